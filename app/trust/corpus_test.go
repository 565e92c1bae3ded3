package trust

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// listTools runs a real npm server and lists its tools as the host's
// client does (the go-sdk over a CommandTransport).
func listTools(t *testing.T, bin string, args ...string) []*mcp.Tool {
	t.Helper()
	cmd := exec.Command(testkit.NpmServer(t, bin), args...)
	stderr := &testkit.SyncBuffer{}
	cmd.Stderr = stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "trust-corpus", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("starting %s: %v\n%s", bin, err, stderr.String())
	}
	defer func() { _ = cs.Close() }()
	var tools []*mcp.Tool
	for tl, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatalf("tools/list of %s: %v\n%s", bin, err, stderr.String())
		}
		tools = append(tools, tl)
	}
	if len(tools) < 5 {
		t.Fatalf("%s lists %d tools; want its real list", bin, len(tools))
	}
	return tools
}

// TestCorpusRealServersNoFlag: the real tool lists of the pinned npm
// servers give no flag, each scanned with the other server's tool names
// (and through a store, as the host will).
func TestCorpusRealServersNoFlag(t *testing.T) {
	lists := map[string][]*mcp.Tool{
		"everything": listTools(t, "mcp-server-everything"),
		"filesystem": listTools(t, "mcp-server-filesystem", t.TempDir()),
	}
	names := map[string][]string{}
	for s, tools := range lists {
		for _, tl := range tools {
			names[s] = append(names[s], tl.Name, s+"__"+tl.Name)
		}
	}
	for s, tools := range lists {
		var others []string
		for o, n := range names {
			if o != s {
				others = append(others, n...)
			}
		}
		for _, tl := range tools {
			if flags := Scan(tl, others); len(flags) > 0 {
				t.Errorf("%s tool %s is flagged: %v", s, tl.Name, flags)
			}
		}
	}
	st, err := Open(t.TempDir() + "/pins.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"everything", "filesystem"} {
		v, err := st.Observe(s, ModePin, lists[s])
		if err != nil {
			t.Fatal(err)
		}
		if !v.FirstSeen || len(v.Held()) > 0 {
			t.Errorf("%s: first seen %v, held %v; want trusted on first use", s, v.FirstSeen, v.Held())
		}
		for _, tv := range v.Tools {
			if !tv.Visible || len(tv.Flags) > 0 {
				t.Errorf("%s/%s: visible %v flags %v", s, tv.Name, tv.Visible, tv.Flags)
			}
		}
	}
	t.Logf("scanned %d + %d real tools", len(lists["everything"]), len(lists["filesystem"]))
}
