//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestSecretListCountsEveryReference: a secret is used by a server that
// names it in env, in a header, as oauth.clientSecret, or that signed in
// (oauth.NAME); `secret list` says so, and `secret rm` warns, for each.
func TestSecretListCountsEveryReference(t *testing.T) {
	u := newUnit(t)
	if err := os.MkdirAll(filepath.Dir(u.configPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers": {
	  "local": {"command": "x", "env": {"TOKEN": "${keyring:env-tok}"}},
	  "hdr": {"url": "https://h.example/mcp", "headers": {"Authorization": "Bearer ${keyring:hdr-tok}"}},
	  "app": {"url": "https://o.example/mcp", "oauth": {"clientId": "c", "clientSecret": "${keyring:client-sec}"}}
	}}`
	if err := os.WriteFile(u.configPath(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"env-tok", "hdr-tok", "client-sec", "oauth.app", "stray"} {
		if err := u.store.Set(n, secrets.New("v")); err != nil {
			t.Fatal(err)
		}
	}
	out := u.ok(t, "", "secret", "list")
	for _, want := range []string{"env-tok\tused by local", "hdr-tok\tused by hdr", "client-sec\tused by app", "oauth.app\tused by app", "stray\tunused"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("secret list lacks %q:\n%s", want, out)
		}
	}
	out = u.ok(t, "", "secret", "rm", "hdr-tok")
	if !strings.Contains(out, "note: hdr uses it") {
		t.Errorf("secret rm of a header's secret did not warn:\n%s", out)
	}
}

// TestHelpCoversEveryRoutedCommand: the words of 'tools' (review, accept,
// reject) are routed, listed by 'switchboard help' and answer 'help tools
// WORD' and 'tools WORD --help'; and every command the command line tells
// the user to run ('switchboard X Y' in its messages and help) resolves to a
// row that 'switchboard help' lists and whose 'help X Y' works.
func TestHelpCoversEveryRoutedCommand(t *testing.T) {
	u := newUnit(t)
	overview := oneLine(u.ok(t, "", "help"))
	for _, tc := range []struct {
		args []string
		row  string
	}{
		{[]string{"tools", "review"}, "tools review"},
		{[]string{"tools", "review", "fs"}, "tools review"},
		{[]string{"tools", "--json", "accept", "fs", "t"}, "tools accept"},
		{[]string{"tools", "reject", "fs", "t"}, "tools reject"},
		{[]string{"tools", "fs"}, "tools"},
		{[]string{"tools", "--profile", "review"}, "tools"}, // a flag's value is not a word
	} {
		c, _, err := (&env{}).resolve(tc.args)
		if err != nil || c == nil || c.name != tc.row {
			t.Errorf("%q: %v %v, want the row %q", tc.args, c, err, tc.row)
		}
	}
	for _, w := range []string{"review", "accept", "reject"} {
		for _, args := range [][]string{{"help", "tools", w}, {"tools", w, "--help"}} {
			r := u.main("", args...)
			if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: switchboard tools "+w) {
				t.Errorf("switchboard %q: %s", args, r)
			}
		}
		if !strings.Contains(overview, "tools "+w) {
			t.Errorf("help does not list tools %s", w)
		}
	}

	// What the command line tells the user to run, in its sources.
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	said := regexp.MustCompile(`'switchboard ([a-z][a-z-]*(?: [a-z][a-z-]*)*)`)
	seen := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range said.FindAllStringSubmatch(string(b), -1) {
			words := strings.Fields(m[1])
			c, _, err := (&env{}).resolve(words)
			if err != nil || c == nil {
				t.Errorf("%s tells the user to run 'switchboard %s', which is no command: %v", f, m[1], err)
				continue
			}
			if seen[c.name] {
				continue
			}
			seen[c.name] = true
			if !c.isGroup() && !strings.Contains(overview, c.short()) {
				t.Errorf("%s names 'switchboard %s' (the row %q), which help does not list", f, m[1], c.name)
			}
			if r := u.main("", append([]string{"help"}, strings.Fields(c.name)...)...); r.code != 0 {
				t.Errorf("switchboard help %s: %s", c.name, r)
			}
		}
	}
	if !seen["tools review"] || len(seen) < 10 {
		t.Errorf("the sources' commands found: %v", seen)
	}
}
