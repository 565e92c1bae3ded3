//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// entryOf returns a server's entry as the config file has it.
func entryOf(t *testing.T, sb *sandbox, name string) map[string]any {
	t.Helper()
	e, _ := servers(readConfig(t, sb.configPath()))[name].(map[string]any)
	return e
}

// TestE2ERenameAndToolFilter: 'servers rename' without a host (the file)
// and with one (a running server stops under its old name and runs under
// the new), and 'servers set --allow-tool/--deny-tool/--clear-tool-filter'
// in the file and in what the gateway exposes.
func TestE2ERenameAndToolFilter(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	sb.cli(t, sb.helperArgs("first", "modern", "--env", "KEEP=1")...)
	sb.cli(t, sb.helperArgs("other", "modern")...)

	// An AI app limited to first and other: the rename says how to update
	// its entry, and leaves its file alone.
	sb.cli(t, "clients", "connect", "claude-desktop", "--servers", "first,other")
	var list []clientStatus
	if err := json.Unmarshal([]byte(sb.cli(t, "clients", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list, func(c clientStatus) bool { return c.ID == "claude-desktop" })
	if i < 0 || !list[i].Connected {
		t.Fatalf("claude-desktop is not connected: %+v", list)
	}
	appFile := list[i].Config
	readFile := func() string {
		b, err := os.ReadFile(appFile)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	before := readFile()

	// No host: the file changes under its lock.
	out := sb.cli(t, "servers", "rename", "first", "second")
	if !strings.Contains(out, "renamed first to second") || !strings.Contains(out, "second__TOOL") {
		t.Fatalf("servers rename printed %q", out)
	}
	if !strings.Contains(out, "Claude Desktop's Switchboard entry") || !strings.Contains(out, "'switchboard clients connect claude-desktop --servers second,other'") {
		t.Fatalf("servers rename did not say how to update Claude Desktop's --servers: %q", out)
	}
	if after := readFile(); after != before {
		t.Fatalf("the rename changed Claude Desktop's file:\n%s\nthen\n%s", before, after)
	}
	if e := entryOf(t, sb, "second"); e == nil || e["env"].(map[string]any)["KEEP"] != "1" || entryOf(t, sb, "first") != nil {
		t.Fatalf("after the rename: %v", servers(readConfig(t, sb.configPath())))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"servers", "rename", "nope", "x"}, `"nope" is not in the config`},
		{[]string{"servers", "rename", "second", "other"}, `a server named "other" already exists`},
		{[]string{"servers", "rename", "second", "Bad_Name"}, `"bad-name"`},
		{[]string{"servers", "rename", "second"}, "give the server's NAME and its NEWNAME"},
		{[]string{"servers", "set", "second", "--allow-tool", "[bad"}, `tool pattern "[bad" is not a valid glob`},
	} {
		if r := sb.run(t, "", c.args...); r.code == 0 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("switchboard %q: want a failure saying %q, got %s", c.args, c.want, r)
		}
	}

	// Tool filter flags: they add to the lists, once each.
	sb.cli(t, "servers", "set", "second", "--allow-tool", "ec*", "--allow-tool", "read_*", "--deny-tool", "echo")
	sb.cli(t, "servers", "set", "second", "--allow-tool", "read_*")
	tools, _ := entryOf(t, sb, "second")["tools"].(map[string]any)
	if b, _ := json.Marshal(tools); string(b) != `{"allow":["ec*","read_*"],"deny":["echo"]}` {
		t.Fatalf("tools after --allow-tool/--deny-tool: %s", b)
	}

	sb.serve(t)
	sec := sb.waitRunning(t, "second")
	testkit.Eventually(t, "the gateway hides second's echo (denied)", func() (bool, string) {
		out := sb.cli(t, "tools", "second")
		return strings.Contains(out, "gateway: not exposed"), out
	})

	// With the host: the running server restarts under its new name.
	sb.cli(t, "servers", "rename", "second", "third")
	third := sb.waitRunning(t, "third")
	if third.PID == sec.PID {
		t.Fatalf("third runs with second's pid %d", sec.PID)
	}
	testkit.Eventually(t, "second's process is gone", func() (bool, string) { return testkit.Gone(sec.PID), "" })
	if _, ok := sb.status(t).server("second"); ok {
		t.Fatal("second is still listed after the rename")
	}
	if e := entryOf(t, sb, "third"); e["tools"] == nil || e["env"].(map[string]any)["KEEP"] != "1" {
		t.Fatalf("the renamed entry lost fields: %v", e)
	}

	// --clear-tool-filter: every tool is exposed again, under the new name.
	sb.cli(t, "servers", "set", "third", "--clear-tool-filter")
	if e := entryOf(t, sb, "third"); e["tools"] != nil {
		t.Fatalf("tools after --clear-tool-filter: %v", e["tools"])
	}
	testkit.Eventually(t, "the gateway exposes third__echo", func() (bool, string) {
		out := sb.cli(t, "tools", "third")
		return strings.Contains(out, "gateway: third__echo"), out
	})
	sb.waitServer(t, "third", "running again", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning })
}
