package host

import (
	"context"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestQuestionFlood: a hostile server that asks many questions at once
// gets at most maxWaitingPerServer of them shown; the others are
// cancelled at once. Another server's question still waits, and an
// answer to a shown one reaches its asker.
func TestQuestionFlood(t *testing.T) {
	var published [][]hostapi.InputRequest
	in := &inputs{m: &Manager{log: slog.New(slog.DiscardHandler)}, askers: func() int { return 1 }}
	in.changed = func(l []hostapi.InputRequest) { published = append(published, l) }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &mcp.ElicitParams{Message: "again?", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}}
	results := make(chan *mcp.ElicitResult, 64)
	for range 50 {
		go func() {
			r, err := in.ask(ctx, "flood", "app", hostapi.InputForm, p)
			if err == nil {
				results <- r
			}
		}()
	}
	for range 50 - maxWaitingPerServer {
		if r := <-results; r.Action != hostapi.ActionCancel {
			t.Fatalf("a question over the bound: %+v", r)
		}
	}
	go func() { r, _ := in.ask(ctx, "other", "app", hostapi.InputForm, p); results <- r }()
	var waiting []hostapi.InputRequest
	testkit.Eventually(t, "the bound's questions and the other server's wait", func() bool {
		waiting = in.list()
		return len(waiting) == maxWaitingPerServer+1
	})
	if err := in.answer(hostapi.AnswerParams{ID: waiting[0].ID, Action: hostapi.ActionAccept, Content: []byte(`{"ok": true}`)}); err != nil {
		t.Fatal(err)
	}
	if r := <-results; r.Action != hostapi.ActionAccept || r.Content["ok"] != true {
		t.Errorf("the answered question: %+v", r)
	}
}
