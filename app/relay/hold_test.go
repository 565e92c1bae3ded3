package relay

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// testHold is a Hold the test decides.
type testHold struct {
	decided   chan struct{}
	approval  string
	err       error
	withdrawn chan struct{}
	once      sync.Once
}

func newTestHold() *testHold {
	return &testHold{decided: make(chan struct{}), withdrawn: make(chan struct{})}
}

func (h *testHold) Decided() <-chan struct{}  { return h.decided }
func (h *testHold) Decision() (string, error) { return h.approval, h.err }
func (h *testHold) Withdraw()                 { h.once.Do(func() { close(h.withdrawn) }) }
func (h *testHold) decide(approval string, e error) {
	h.approval, h.err = approval, e
	close(h.decided)
}

// holder is a Hook that holds every call with hold, recording After.
type holder struct {
	recorder
	hold     *testHold
	approval chan string
}

func (h *holder) Before(c *Info) error {
	c.Hold = h.hold
	return h.recorder.Before(c)
}

func (h *holder) After(c *Info, res *Result, err error) {
	h.approval <- c.Approval
	h.recorder.After(c, res, err)
}

func TestHeldCallIsSentOnceAllowed(t *testing.T) {
	p := newPeer(t)
	h := &holder{hold: newTestHold(), approval: make(chan string, 1)}
	r := New("s", p.conn, Options{Hook: h})
	c, out := call("delete", `{"path":"/x"}`)
	stop, err := r.Start(c, time.Minute)
	if err != nil || stop == nil {
		t.Fatalf("Start of a held call: %v", err)
	}
	select {
	case m := <-p.lines:
		t.Fatalf("the server got a held call before its decision: %v", m)
	case <-time.After(50 * time.Millisecond):
	}
	h.hold.decide("allowed once by the user", nil)
	m := p.next()
	if m["method"] != "tools/call" {
		t.Fatalf("the server got %v", m)
	}
	p.write(`{"jsonrpc":"2.0","id":"` + m["id"].(string) + `","result":{"content":[{"type":"text","text":"gone"}]}}`)
	o := <-out
	if o.err != nil || !strings.Contains(o.raw, "gone") {
		t.Fatalf("the held call's answer: %+v", o)
	}
	if a := <-h.approval; a != "allowed once by the user" {
		t.Fatalf("After saw the approval %q", a)
	}
}

func TestHeldCallRefused(t *testing.T) {
	p := newPeer(t)
	h := &holder{hold: newTestHold(), approval: make(chan string, 1)}
	r := New("s", p.conn, Options{Hook: h})
	c, out := call("delete", `{}`)
	if _, err := r.Start(c, time.Minute); err != nil {
		t.Fatal(err)
	}
	deny := &DeniedError{Server: "s", Tool: "delete", Reason: "the user did not approve this call"}
	h.hold.decide("denied by the user", deny)
	if o := <-out; o.err != deny {
		t.Fatalf("Done of a refused held call: %+v", o)
	}
	if errs := h.waitAfters(t, 1); len(errs) != 1 || errs[0] != deny {
		t.Fatalf("After: %v", errs)
	}
	if a := <-h.approval; a != "denied by the user" {
		t.Fatalf("After saw the approval %q", a)
	}
	select {
	case m := <-p.lines:
		t.Fatalf("the server got a refused call: %v", m)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestHeldCallWithdrawn(t *testing.T) {
	p := newPeer(t)
	h := &holder{hold: newTestHold(), approval: make(chan string, 1)}
	r := New("s", p.conn, Options{Hook: h})
	c, out := call("delete", `{}`)
	stop, err := r.Start(c, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	select {
	case <-h.hold.withdrawn:
	case <-time.After(wait):
		t.Fatal("stop did not withdraw the hold")
	}
	if errs := h.waitAfters(t, 1); len(errs) != 1 || !errors.Is(errs[0], ErrWithdrawn) {
		t.Fatalf("After: %v", errs)
	}
	stop() // twice is harmless
	select {
	case o := <-out:
		t.Fatalf("Done ran for a withdrawn call: %+v", o)
	case m := <-p.lines:
		t.Fatalf("the server got a withdrawn call: %v", m)
	case <-time.After(50 * time.Millisecond):
	}
}

func TestHeldCallProgress(t *testing.T) {
	defer func(d time.Duration) { HoldProgressEvery = d }(HoldProgressEvery)
	HoldProgressEvery = 10 * time.Millisecond
	p := newPeer(t)
	h := &holder{hold: newTestHold(), approval: make(chan string, 1)}
	r := New("s", p.conn, Options{Hook: h})
	c, _ := call("delete", `{}`)
	got := make(chan json.RawMessage, 100)
	c.Progress = func(params json.RawMessage) {
		select {
		case got <- append(json.RawMessage(nil), params...):
		default:
		}
	}
	stop, err := r.Start(c, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	var last float64
	for i := 0; i < 2; i++ {
		var n struct {
			Progress float64 `json:"progress"`
			Message  string  `json:"message"`
		}
		select {
		case raw := <-got:
			if err := json.Unmarshal(raw, &n); err != nil || n.Progress <= last || n.Message == "" {
				t.Fatalf("progress while held: %s (%v)", raw, err)
			}
			last = n.Progress
		case <-time.After(wait):
			t.Fatal("no progress while held")
		}
	}
}

// A call held then let through gets its whole callTimeout from the
// moment it is sent: the wait does not count (Started, from which the
// deadline is counted, is after the decision). On the fake clock of a
// synctest bubble, the user takes an hour to decide.
func TestHeldCallTimeoutStartsWhenSent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		h := &holder{hold: newTestHold(), approval: make(chan string, 1)}
		started := make(chan time.Time, 1)
		r := New("s", p.conn, Options{Hook: Chain(h, afterFunc(func(c *Info) { started <- c.Started }))})
		c, out := call("delete", `{}`)
		if _, err := r.Start(c, time.Minute); err != nil {
			t.Fatal(err)
		}
		testkit.Advance(time.Hour)
		decided := time.Now()
		h.hold.decide("allowed once by the user", nil)
		m := p.next()
		p.write(`{"jsonrpc":"2.0","id":"` + m["id"].(string) + `","result":{"content":[]}}`)
		if o := <-out; o.err != nil {
			t.Fatalf("the held call: %v", o.err)
		}
		if s := <-started; !s.Equal(decided) {
			t.Fatalf("the call's time was counted from %v, before its decision at %v", s, decided)
		}
	})
}

type afterFunc func(c *Info)

func (f afterFunc) Before(c *Info) error                  { return nil }
func (f afterFunc) After(c *Info, res *Result, err error) { f(c) }

func TestChainWithdrawsAHoldThatALaterHookRefuses(t *testing.T) {
	hold := newTestHold()
	deny := errors.New("no")
	var log []string
	first := hookFunc(func(c *Info) error { c.Hold = hold; return nil })
	h := Chain(first, recHook{"b", deny, &log})
	if err := h.Before(&Info{}); err != deny {
		t.Fatal(err)
	}
	select {
	case <-hold.withdrawn:
	default:
		t.Fatal("the hold of an earlier hook was not withdrawn")
	}
}

type hookFunc func(c *Info) error

func (f hookFunc) Before(c *Info) error                  { return f(c) }
func (f hookFunc) After(c *Info, res *Result, err error) {}
