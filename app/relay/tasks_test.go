package relay

import (
	"strings"
	"testing"
	"time"
)

// TestTaskCallFields: what the gateway's tasks (app/gateway/tasks.go) need
// of the relay. A tools/call's Task goes to the server as the params'
// "task" member; a hook that holds the call tells its caller through
// OnHold before Start returns; a FollowUp (tasks/get and the like) passes
// no hook, neither Before nor After.
func TestTaskCallFields(t *testing.T) {
	p := newPeer(t)
	h := &holder{hold: newTestHold(), approval: make(chan string, 1)}
	r := New("s", p.conn, Options{Hook: h})

	c, out := call("research", `{"topic":"x"}`)
	c.Task = []byte(`{"ttl":60000}`)
	onHold := 0
	c.OnHold = func() { onHold++ }
	if _, err := r.Start(c, time.Minute); err != nil {
		t.Fatal(err)
	}
	if onHold != 1 {
		t.Fatalf("OnHold ran %d times before Start returned, want 1", onHold)
	}
	h.hold.decide("allowed once by the user", nil)
	m := p.next()
	params, _ := m["params"].(map[string]any)
	task, _ := params["task"].(map[string]any)
	if task == nil || task["ttl"] != float64(60000) || params["name"] != "research" {
		t.Fatalf("the server got %v", m)
	}
	p.write(`{"jsonrpc":"2.0","id":"` + m["id"].(string) + `","result":{"task":{"taskId":"t1","status":"working"}}}`)
	if o := <-out; o.err != nil || !strings.Contains(o.raw, `"taskId":"t1"`) {
		t.Fatalf("the answer: %+v", o)
	}
	<-h.approval

	// A follow-up: the hook does not see it (the holder would hold it).
	before := h.beforeCount()
	f, fout := call("task t1", "")
	f.Method, f.Params, f.FollowUp = "tasks/get", []byte(`"taskId":"t1"`), true
	if _, err := r.Start(f, time.Minute); err != nil {
		t.Fatal(err)
	}
	m = p.next()
	if params, _ := m["params"].(map[string]any); m["method"] != "tasks/get" || params["taskId"] != "t1" {
		t.Fatalf("the server got %v", m)
	}
	p.write(`{"jsonrpc":"2.0","id":"` + m["id"].(string) + `","result":{"taskId":"t1","status":"completed"}}`)
	if o := <-fout; o.err != nil || !strings.Contains(o.raw, `"completed"`) {
		t.Fatalf("the follow-up's answer: %+v", o)
	}
	if n := h.beforeCount(); n != before {
		t.Errorf("the hook's Before saw the follow-up (%d calls, %d before)", n, before)
	}
	select {
	case a := <-h.approval:
		t.Errorf("the hook's After saw the follow-up (%q)", a)
	default:
	}
}

func (h *recorder) beforeCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.before)
}
