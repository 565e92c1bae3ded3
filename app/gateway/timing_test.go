package gateway

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestLeanSlowCallLogged: a call whose server takes long is logged with
// the time of each step (issue 11, item 19: a call once took 60 s with
// nothing in the log), and a quick one is not.
func TestLeanSlowCallLogged(t *testing.T) {
	old := slowServerAfter
	slowServerAfter = 100 * time.Millisecond
	t.Cleanup(func() { slowServerAfter = old })
	var logs testkit.SyncBuffer
	f := newFake(running("alpha", "echo", "slow"))
	f.setOnCall(func(ctx context.Context, server string, p *mcp.CallToolParams, _ func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
		if p.Name == "slow" {
			time.Sleep(300 * time.Millisecond)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
	g := New(Options{Backend: fakeRaw{f}, Version: "test", Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	l, sock := testListen(t)
	go func() { _ = g.Serve(l) }()
	t.Cleanup(g.Close)
	h := &harness{g: g, fake: f, sock: sock}
	cs := h.connect(t, nil, "", nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	for _, tool := range []string{"alpha__echo", "alpha__slow"} {
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool}); err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
	}
	// The line is written once the answer has gone to the client (it
	// gives that step's time too), so it may come just after the answer.
	var out string
	testkit.Eventually(t, "the slow-call line", func() bool { out = logs.String(); return strings.Contains(out, "took long") })
	if n := strings.Count(out, "a tool call through the gateway took long"); n != 1 {
		t.Fatalf("%d slow-call lines, want 1 (for alpha__slow):\n%s", n, out)
	}
	for _, want := range []string{"server=alpha", "tool=alpha__slow", "server_answered_in=", "to_client="} {
		if !strings.Contains(out, want) {
			t.Errorf("the slow-call line lacks %q:\n%s", want, out)
		}
	}
}
