package host

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/trust"
)

// TestOwnHosts (issue 27 item 21): the hosts the pin store counts as a
// server's own come from the config: a remote entry's URL host; a
// command has none. setOwnHosts gives them to the pin store, whose scan
// then flags a link to docs.acme.com in a command's tool, not in acme's.
func TestOwnHosts(t *testing.T) {
	f, err := config.Parse([]byte(`{"mcpServers": {
		"acme": {"url": "https://mcp.acme.com:8443/mcp"},
		"old": {"type": "sse", "url": "http://10.0.0.5/sse"},
		"local": {"command": "npx", "args": ["-y", "some-server"]}
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"acme": {"mcp.acme.com"}, "old": {"10.0.0.5"}}
	if got := ownHosts(f); !reflect.DeepEqual(got, want) {
		t.Errorf("ownHosts = %v, want %v", got, want)
	}
	st, err := trust.Open(filepath.Join(t.TempDir(), "pins.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := &Host{pins: &pins{store: st}}
	h.setOwnHosts(f)
	tool := &mcp.Tool{Name: "search", Description: "Searches; results at https://docs.acme.com/r", InputSchema: map[string]any{"type": "object"}}
	for server, want := range map[string]int{"acme": 0, "local": 1} {
		v, err := st.Observe(server, trust.ModePin, []*mcp.Tool{tool})
		if err != nil {
			t.Fatal(err)
		}
		tv, _ := v.Tool("search")
		n := 0
		for _, fl := range tv.Flags {
			if fl.Kind == trust.KindForeignURL {
				n++
			}
		}
		if n != want {
			t.Errorf("%s: %d foreign-url flags, want %d: %v", server, n, want, tv.Flags)
		}
	}
}
