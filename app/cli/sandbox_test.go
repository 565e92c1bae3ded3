//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestE2EServersSetSandbox: 'servers set --sandbox...' writes the entry's
// "sandbox" as the issue's JSON, without a host (the file) and through a
// running host's API, keeps the entry's other keys, and refuses bad
// values with the remedy and nothing written.
func TestE2EServersSetSandbox(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	sb.cli(t, sb.helperArgs("box", "modern", "--env", "KEEP=1", "--disabled")...)
	sandboxOf := func() string {
		b, _ := json.Marshal(entryOf(t, sb, "box")["sandbox"])
		return string(b)
	}

	sb.cli(t, "servers", "set", "box", "--sandbox", "strict")
	if got := sandboxOf(); got != `"strict"` {
		t.Fatalf("after --sandbox strict: %s", got)
	}
	sb.cli(t, "servers", "set", "box", "--sandbox", "files", "--sandbox-read", "/srv/notes",
		"--sandbox-write", "/srv/site", "--sandbox-write", "/srv/site", "--sandbox-net", "api.github.com:443,localhost:8080")
	if got := sandboxOf(); got != `{"net":["api.github.com:443","localhost:8080"],"preset":"files","read":["/srv/notes"],"write":["/srv/site"]}` {
		t.Fatalf("after --sandbox files with paths: %s", got)
	}
	if e := entryOf(t, sb, "box"); e["env"].(map[string]any)["KEEP"] != "1" || e["disabled"] != true {
		t.Fatalf("the entry lost fields: %v", e)
	}
	before := sandboxOf()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"servers", "set", "box", "--sandbox", "paranoid"}, `--sandbox "paranoid": use off`},
		{[]string{"servers", "set", "box", "--sandbox-net", "example.com"}, `"example.com" is not host:port`},
		{[]string{"servers", "set", "box", "--sandbox", "off", "--sandbox-write", "/x"}, "--sandbox off confines nothing"},
	} {
		if r := sb.run(t, "", c.args...); r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("switchboard %q: want a failure saying %q, got %s", c.args, c.want, r)
		}
	}
	if got := sandboxOf(); got != before {
		t.Fatalf("a refused change wrote %s", got)
	}

	// With a host: the same edit goes through its API (servers.put).
	sb.serve(t)
	sb.waitServer(t, "box", "listed", func(s hostapi.ServerStatus) bool { return s.Name == "box" })
	sb.cli(t, "servers", "set", "box", "--sandbox-net", "outbound", "--sandbox-read", "/srv/more")
	if got := sandboxOf(); got != `{"net":"outbound","preset":"files","read":["/srv/notes","/srv/more"],"write":["/srv/site"]}` {
		t.Fatalf("through the host: %s", got)
	}
	sb.cli(t, "servers", "set", "box", "--sandbox", "off")
	if got := sandboxOf(); got != `"off"` {
		t.Fatalf("after --sandbox off: %s", got)
	}
}

// TestE2ESandboxUnixAndStrictNote: --sandbox-unix adds to the entry's
// "unix"; "strict" on an entry whose args name a folder prints the note
// at 'servers add' and 'servers set', and 'status' says it without a host
// and through a running host (as an issue marked warning: the entry is
// valid and not held back); a too-wide grant (--sandbox-read ~) is
// refused with its key and the remedy, nothing written.
func TestE2ESandboxUnixAndStrictNote(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	dir := filepath.Join(sb.home, "Projects")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	const note = `strict gives the server none of its folders: "files" does`
	out := sb.cli(t, append(sb.helperArgs("box", "modern", "--disabled", "--sandbox", "strict", "--sandbox-unix", "/run/agent.sock", "--sandbox-unix", "~/b.sock"), dir)...)
	if !strings.Contains(out, "note: mcpServers.box.sandbox: "+note) || !strings.Contains(out, dir) {
		t.Errorf("servers add printed no note:\n%s", out)
	}
	b, _ := json.Marshal(entryOf(t, sb, "box")["sandbox"])
	if got, want := string(b), `{"preset":"strict","unix":["/run/agent.sock","`+filepath.Join(sb.home, "b.sock")+`"]}`; got != want {
		t.Errorf("sandbox = %s, want %s", got, want)
	}
	if out := sb.cli(t, "servers", "set", "box", "--sandbox-net", "none"); !strings.Contains(out, note) {
		t.Errorf("servers set printed no note:\n%s", out)
	}
	if out := sb.cli(t, "status"); !strings.Contains(out, "box: note: mcpServers.box.sandbox: "+note) {
		t.Errorf("status without a host says no note:\n%s", out)
	}
	hasNote := func(s hostapi.ServerStatus) bool {
		return len(s.Problems) == 0 && slices.ContainsFunc(s.Issues, func(p hostapi.Problem) bool {
			return p.Warning && p.Key == "sandbox" && strings.Contains(p.Message, note)
		})
	}
	if st := sb.status(t); len(st.Servers) != 1 || !hasNote(st.Servers[0]) {
		t.Errorf("status --json without a host: %+v", st.Servers)
	}
	if r := sb.run(t, "", "servers", "set", "box", "--sandbox", "files", "--sandbox-read", sb.home); r.code == 0 ||
		!strings.Contains(r.stderr, "mcpServers.box.sandbox.read[0]") || !strings.Contains(r.stderr, "home folder") || !strings.Contains(r.stderr, `"sandbox": "off"`) {
		t.Errorf("--sandbox-read HOME: want a refusal on its key with the remedy, got %s", r)
	}

	sb.serve(t)
	s := sb.waitServer(t, "box", "listed with the note", hasNote)
	if s.State != hostapi.StateDisabled {
		t.Errorf("state %s", s.State)
	}
	if out := sb.cli(t, "status"); !strings.Contains(out, "box: note: mcpServers.box.sandbox: "+note) {
		t.Errorf("status through the host says no note:\n%s", out)
	}
	if out := sb.cli(t, "servers", "set", "box", "--sandbox", "files"); strings.Contains(out, "note:") {
		t.Errorf("files: a note is printed:\n%s", out)
	}
	sb.waitServer(t, "box", "without the note", func(s hostapi.ServerStatus) bool { return !hasNote(s) })
}
