//go:build linux

package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestE2EServersSetSandbox: 'servers set --sandbox...' writes the entry's
// "sandbox" as the JSON, without a host (the file) and through a
// running host's API, keeps the entry's other keys, and refuses bad
// values with the remedy and nothing written.
func TestE2EServersSetSandbox(t *testing.T) {
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
