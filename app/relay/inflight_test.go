package relay

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestRelayPause: Callers lists the callers of the calls in flight, once
// each; while a pause is on (the server waits for a person or an app) no
// call times out, and once it ends the calls' deadlines have moved by the
// time paused. On the fake clock of a synctest bubble.
func TestRelayPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		r := New("s", p.conn, Options{})
		c1, ch := call("ask", "")
		c1.Caller = Caller{App: "a", ID: 1}
		c2, ch2 := call("other", "")
		c2.Caller = Caller{App: "a", ID: 1}
		start := time.Now()
		if _, err := r.Start(c1, time.Minute); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Start(c2, time.Minute); err != nil {
			t.Fatal(err)
		}
		p.next()
		p.next()
		if cs := r.Callers(); len(cs) != 1 || cs[0].ID != 1 {
			t.Fatalf("Callers: %v", cs)
		}
		testkit.Advance(30 * time.Second)
		resume := r.Pause()
		testkit.Advance(5 * time.Minute) // a person takes their time
		if len(ch) != 0 || len(ch2) != 0 {
			t.Fatalf("a call timed out during the pause")
		}
		resume()
		resume() // once only
		testkit.Advance(30*time.Second - time.Millisecond)
		if len(ch) != 0 {
			t.Fatalf("the call timed out %v after its start: its deadline did not move by the pause", time.Since(start))
		}
		o := got(t, ch)
		var te *TimeoutError
		if !errors.As(o.err, &te) || time.Since(start) != 6*time.Minute {
			t.Fatalf("the call ended after %v with %v, want its timeout after 6m", time.Since(start), o.err)
		}
		got(t, ch2)
		if cs := r.Callers(); len(cs) != 0 {
			t.Fatalf("Callers after the calls ended: %v", cs)
		}
	})
}
