//go:build linux

package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/hostapi"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestErrorsPrintProblemsAndRemedies: the host's errors are printed one
// problem a line, each remedy as the command to run, from a real host
// (run in this process with the unit's keyring) and without one.
func TestErrorsPrintProblemsAndRemedies(t *testing.T) {
	u := newUnit(t)
	if err := os.MkdirAll(filepath.Dir(u.configPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"version": 1, "mcpServers": {
	  "off": {"command": "/bin/cat", "disabled": true},
	  "sec": {"command": "/bin/cat", "env": {"TOKEN": "${keyring:gh}"}}}}`
	if err := os.WriteFile(u.configPath(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := os.Getenv("SWITCHBOARD_RUNTIME_DIR")
	ready := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- host.Run(ctx, host.Options{ConfigPath: u.configPath(), RuntimeDir: dir, SocketPath: filepath.Join(dir, api.SocketName),
			LogPath: filepath.Join(u.dir, "host.log"), Secrets: u.store, Version: "test", Ready: func() { close(ready) }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("host.Run: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("the host stopped: %v", err)
	}

	t.Run("disabled", func(t *testing.T) {
		r := u.main("", "servers", "start", "off")
		want := "switchboard: server \"off\" is disabled: run 'switchboard servers enable off'\n"
		if r.code != 1 || r.stderr != want {
			t.Errorf("got %s\nwant stderr %q", r, want)
		}
	})
	t.Run("secret missing", func(t *testing.T) {
		testkit.Eventually(t, "sec waits for its secret", func() (bool, string) {
			r := u.main("", "tools", "sec")
			return strings.Contains(r.stderr, "run 'switchboard secret set gh'"), r.String()
		})

	})
	t.Run("import", func(t *testing.T) {
		// servers import reports each refusal with its problems and their
		// remedies, as data (the host's), not the joined sentence.
		block := filepath.Join(u.dir, "import.json")
		if err := os.WriteFile(block, []byte(`{"mcpServers": {
		  "bad": {"command": "/bin/c at", "cwd": "relative/dir"},
		  "off": {"command": "/bin/cat"},
		  "typo": {"command": "/bin/cat", "arsg": ["x"]},
		  "fine": {"command": "/bin/cat"}}}`), 0o600); err != nil {
			t.Fatal(err)
		}
		r := u.main("", "servers", "import", block)
		for _, want := range []string{
			"not imported: bad: server \"bad\": its entry has 2 problems, so nothing was changed:\n" +
				"  mcpServers.bad.command: ",
			"\n  mcpServers.bad.cwd: ",
			"not imported: off: server \"off\" already exists: change it with 'switchboard servers set off', or remove it first ('switchboard servers remove off')\n",
			"imported fine\n",
			// Left out when read, with the remedy as data (rename_key).
			`skipped: "typo": not imported: mcpServers.typo.arsg: is not a known key: did you mean "args"? Rename "arsg" to "args" in the entry, or remove it` + "\n",
		} {
			if !strings.Contains(r.stdout, want) {
				t.Errorf("import output lacks %q:\n%s", want, r)
			}
		}
		if r.code != 1 {
			t.Errorf("exit %d; want 1 (two were not imported)", r.code)
		}
	})
	t.Run("several problems", func(t *testing.T) {
		r := u.main("", "servers", "add", "bad", "--cwd", "relative/dir", "--", "/bin/c at")
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if r.code != 1 || len(lines) != 3 || lines[0] != `switchboard: server "bad": its entry has 2 problems, so nothing was changed:` ||
			!strings.HasPrefix(lines[1], "  mcpServers.bad.command: ") || !strings.HasPrefix(lines[2], "  mcpServers.bad.cwd: ") {
			t.Errorf("got %s", r)
		}
	})

	// A problem with a rename as its remedy (the host's, as data), and an
	// error without problems (an older host's, or any other): as before.
	var b bytes.Buffer
	printError(&b, "switchboard:", &hostapi.Error{Code: hostapi.CodeInvalidConfig, Message: "m", Problems: []hostapi.Problem{
		{Server: "s", Key: "arsg", Message: `is not a known key: did you mean "args"? Rename it, or remove it`, Fact: `is not a known key: did you mean "args"?`,
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyRenameKey, Server: "s", From: "arsg", To: "args"}},
		{Server: "s", Key: "cwd", Message: "is wrong", Remedy: &hostapi.Remedy{Kind: "a_kind_from_the_future", Text: "do x"}},
	}})
	want := `switchboard: server "s": its entry has 2 problems, so nothing was changed:
  mcpServers.s.arsg: is not a known key: did you mean "args"? Rename "arsg" to "args" in the entry, or remove it
  mcpServers.s.cwd: is wrong
`
	if b.String() != want {
		t.Errorf("printed\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	printError(&b, "switchboard:", &hostapi.Error{Code: "internal", Message: `server "x": calling "t": boom`})
	if b.String() != "switchboard: server \"x\": calling \"t\": boom\n" {
		t.Errorf("an error without problems printed %q", b.String())
	}
}
