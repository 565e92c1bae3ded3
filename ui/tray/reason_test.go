package tray

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestServerReason: a server's submenu starts with what is wrong with it,
// phrased from the host's problems (ui/phrase), with no command-line
// words; a server that is fine has none.
func TestServerReason(t *testing.T) {
	install := hostapi.Problem{Server: "n", Key: "command", Message: "server \"n\": command \"npx\" was not found in PATH (/x): install it",
		Fact:   `"npx" was not found in the PATH the host gives servers`,
		Remedy: &hostapi.Remedy{Kind: hostapi.RemedyInstall, Server: "n", Command: "npx", Program: "Node.js", URL: "https://nodejs.org/en/download"}}
	s := client.Snapshot{Connected: true, Servers: []hostapi.ServerStatus{
		{Name: "n", State: hostapi.StateFailed, LastError: install.Message, Issues: []hostapi.Problem{install}},
		{Name: "bad", State: hostapi.StateInvalid, Problems: []hostapi.Problem{{Server: "bad", Key: "cwd", Message: `"rel" is not absolute: give an absolute path`}}},
		{Name: "ok", State: hostapi.StateRunning, Tools: 2},
	}}
	m := BuildMenu(s, Actions{})
	sub := func(name string) []string {
		for _, it := range m.Items {
			if strings.HasPrefix(it.Label, name+" — ") && it.ChildMenu != nil {
				var out []string
				for _, c := range it.ChildMenu.Items {
					out = append(out, c.Label)
				}
				return out
			}
		}
		t.Fatalf("no submenu for %s", name)
		return nil
	}
	if got := sub("n"); got[0] != `command: "npx" was not found in the PATH the host gives servers.` || !strings.HasPrefix(got[1], "Install Node.js (it provides npx), or add") {
		t.Errorf("n's submenu: %q", got)
	}
	if got := sub("bad"); got[0] != `cwd: "rel" is not absolute: give an absolute path` {
		t.Errorf("bad's submenu: %q", got)
	}
	if got := sub("ok"); got[0] != LabelStart {
		t.Errorf("ok's submenu: %q", got)
	}
}
