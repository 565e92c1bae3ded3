//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// TestEnvNameRefused: --env with a name that holds a space (or '=', or
// nothing) is refused before anything is written, naming the variable and
// saying what a name is, in the config's words.
func TestEnvNameRefused(t *testing.T) {
	u := newUnit(t)
	for _, tc := range []struct {
		args []string
		name string
	}{
		{[]string{"servers", "add", "a", "--env", "BAD KEY=1", "--", "/bin/cat"}, "BAD KEY"},
		{[]string{"servers", "add", "a", "--secret-env", "BAD KEY=gh", "--", "/bin/cat"}, "BAD KEY"},
		{[]string{"servers", "add", "a", "--inherit-env", "HTTPS PROXY", "--", "/bin/cat"}, "HTTPS PROXY"},
		{[]string{"try", "--env", "BAD\tKEY=1", "--", "/bin/cat"}, "BAD\tKEY"},
	} {
		r := u.main("", tc.args...)
		want := config.CheckEnvName(tc.name).Error()
		if r.code != 2 || !strings.Contains(r.stderr, want) {
			t.Errorf("switchboard %q: want exit 2 saying %q, got %s", tc.args, want, r)
		}
	}
	if _, err := os.Stat(u.configPath()); err == nil {
		t.Fatal("a refused command wrote the config")
	}
	u.ok(t, "", "servers", "add", "a", "--env", "GOOD_KEY=has spaces = and more", "--", "/bin/cat")
}

// TestDoctorNamesMisspelledKeys: doctor shows a key that looks like a
// misspelling as a thing to fix, with the key it looks like.
func TestDoctorNamesMisspelledKeys(t *testing.T) {
	u := newUnit(t)
	if err := os.MkdirAll(filepath.Dir(u.configPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(u.configPath(), []byte(`{"mcpServers": {"cat": {"command": "/bin/cat", "arsg": ["-u"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := u.main("", "doctor")
	want := `FIX   config: mcpServers.cat.arsg: is not a known key: did you mean "args"? Rename "arsg" to "args" in the entry, or remove it`
	if !strings.Contains(r.stdout, want+"\n") {
		t.Errorf("doctor:\n%s\nwant a line %q", r.stdout, want)
	}
}
