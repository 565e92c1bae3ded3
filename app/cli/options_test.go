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

// TestDoctorWarnsOfMisspelledKeys: doctor shows a key that looks like a
// misspelling as a warning, which is not a thing to fix.
func TestDoctorWarnsOfMisspelledKeys(t *testing.T) {
	u := newUnit(t)
	if err := os.MkdirAll(filepath.Dir(u.configPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	writeConfig := func(body string) {
		if err := os.WriteFile(u.configPath(), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig(`{"mcpServers": {"cat": {"command": "/bin/cat", "arsg": ["-u"]}}}`)
	r := u.main("", "doctor")
	want := `warn  config: mcpServers.cat.arsg: is not a known key, so it is ignored: did you mean "args"?`
	if !strings.Contains(r.stdout, want+"\n") || !strings.Contains(r.stdout, "ok    config "+u.configPath()+": 1 servers, no problems") {
		t.Errorf("doctor:\n%s\nwant a line %q", r.stdout, want)
	}
	if strings.Contains(r.stdout, "FIX   config") {
		t.Errorf("doctor counts the warning as a problem:\n%s", r.stdout)
	}
}
