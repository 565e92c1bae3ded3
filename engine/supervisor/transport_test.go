//go:build unix

package supervisor_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestWaitingForUser: a transport whose attempt fails with a *UserError
// (a remote server not signed in) is not tried again on a timer and uses
// up no attempts, however small MaxReconnects is: it waits in WaitingUser
// until Retry (a sign-in) or Start, then runs. An attempt that fails with
// an ordinary error is retried with the backoff, as before, so that the
// test shows the difference.
func TestWaitingForUser(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var tries atomic.Int32
		var signedIn, flaky atomic.Bool
		srv := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
		rec := newRecorder()
		sup := supervisor.New(supervisor.Options{
			Client: testClient(),
			Policy: supervisor.Policy{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, StableAfter: time.Minute},
			Transport: func(ctx context.Context) (mcp.Transport, error) {
				tries.Add(1)
				if flaky.Load() {
					return nil, errors.New("the network is down")
				}
				if !signedIn.Load() {
					return nil, &supervisor.UserError{Err: errors.New("not signed in: run 'switchboard servers login x'")}
				}
				ct, st := mcp.NewInMemoryTransports()
				if _, err := srv.Connect(ctx, st, nil); err != nil {
					return nil, err
				}
				return ct, nil
			},
			OnChange: rec.onChange,
		})
		sup.Start()
		t.Cleanup(func() { <-sup.Stop() })

		w, wi := rec.waitState(t, 0, supervisor.WaitingUser)
		if !strings.Contains(w.St.LastError, "not signed in") || w.St.Failures != 0 || !w.St.NextAttempt.IsZero() {
			t.Errorf("waiting for the user: LastError %q, Failures %d, NextAttempt %v", w.St.LastError, w.St.Failures, w.St.NextAttempt)
		}
		testkit.Advance(time.Hour) // 180000 backoff delays, on the bubble's clock
		if n := tries.Load(); n != 1 {
			t.Errorf("the transport was tried %d times while waiting for the user, want 1", n)
		}
		if st := sup.Status(); st.State != supervisor.WaitingUser {
			t.Errorf("state %q after waiting", st.State)
		}

		// Start while waiting tries again at once; still not signed in, it
		// waits again, its failures still 0.
		sup.Start()
		w, wi = rec.waitFor(t, wi+1, "waiting again", func(st supervisor.Status) bool { return st.State == supervisor.WaitingUser })
		if n := tries.Load(); n != 2 || w.St.Failures != 0 {
			t.Errorf("after Start: %d tries, Failures %d; want 2 and 0", n, w.St.Failures)
		}

		// The ordinary failure, for contrast: retried on the backoff's timer.
		flaky.Store(true)
		sup.Retry()
		_, wi = rec.waitState(t, wi+1, supervisor.Backoff)
		_, wi = rec.waitState(t, wi+1, supervisor.Backoff)
		if n := tries.Load(); n < 4 {
			t.Errorf("an ordinary failure was tried %d times in all, want it retried by itself", n)
		}
		flaky.Store(false)

		// Signed in: the next attempt runs.
		signedIn.Store(true)
		sup.Retry()
		run, _ := rec.waitState(t, wi, supervisor.Running)
		if run.Sess == nil {
			t.Fatal("running without a session")
		}
	})
}

// TestRetryWhileRunningIsNotKept: a Retry that comes while the server
// runs (a secret set, a sign-in renewed, for a server that needed
// nothing) is not kept for later: when that server, much later, fails
// with a *UserError, it waits for the user as it should, instead of
// trying once more at once because of the old Retry.
func TestRetryWhileRunningIsNotKept(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var tries atomic.Int32
		var signedIn atomic.Bool
		signedIn.Store(true)
		srv := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
		sessions := make(chan *mcp.ServerSession, 4)
		rec := newRecorder()
		sup := supervisor.New(supervisor.Options{
			Client: testClient(),
			Policy: supervisor.Policy{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, StableAfter: time.Minute},
			Transport: func(ctx context.Context) (mcp.Transport, error) {
				tries.Add(1)
				if !signedIn.Load() {
					return nil, &supervisor.UserError{Err: errors.New("not signed in: run 'switchboard servers login x'")}
				}
				ct, st := mcp.NewInMemoryTransports()
				ss, err := srv.Connect(ctx, st, nil)
				if err != nil {
					return nil, err
				}
				sessions <- ss
				return ct, nil
			},
			OnChange: rec.onChange,
		})
		sup.Start()
		t.Cleanup(func() { <-sup.Stop() })
		_, wi := rec.waitState(t, 0, supervisor.Running)
		sup.Retry() // while running: nothing waits for it

		// The sign-in is lost and the connection ends: the next attempt
		// needs the user.
		signedIn.Store(false)
		(<-sessions).Close()
		_, _ = rec.waitState(t, wi+1, supervisor.WaitingUser)
		before := tries.Load()
		testkit.Advance(time.Hour) // 180000 backoff delays, on the bubble's clock
		if n := tries.Load(); n != before {
			t.Errorf("the transport was tried %d more times while waiting for the user (an old Retry woke the wait), want 0", n-before)
		}
		if st := sup.Status(); st.State != supervisor.WaitingUser {
			t.Errorf("state %q, want %q", st.State, supervisor.WaitingUser)
		}
	})
}

// TestBackoffOnTheClock: the backoff of a server whose attempts fail, on
// the fake clock of a synctest bubble, with delays of seconds and no
// jitter: each delay is exact (Initial doubling up to Max), the
// supervisor gives up after MaxReconnects+1 attempts, tries no more for an
// hour, and a Start tries again at once. (TestBackoff checks the same
// with a real process and real time, within the jitter's bounds.)
func TestBackoffOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tries atomic.Int32
		rec := newRecorder()
		sup := supervisor.New(supervisor.Options{
			Spec:   engine.Spec{Name: "remote", MaxReconnects: 5},
			Client: testClient(),
			Policy: supervisor.Policy{Initial: time.Second, Max: 8 * time.Second, StableAfter: time.Minute, Jitter: -1},
			Transport: func(ctx context.Context) (mcp.Transport, error) {
				tries.Add(1)
				return nil, errors.New("the network is down")
			},
			OnChange: rec.onChange,
		})
		sup.Start()
		t.Cleanup(func() { <-sup.Stop() })
		failed, fi := rec.waitState(t, 0, supervisor.Failed)
		var waits []time.Duration
		var backoff time.Time
		for _, c := range rec.changes()[:fi] {
			switch c.St.State {
			case supervisor.Backoff:
				backoff = c.At
				if d := c.St.NextAttempt.Sub(c.At); d != time.Second<<min(c.St.Failures-1, 3) {
					t.Errorf("Backoff after %d failures: next attempt in %v", c.St.Failures, d)
				}
			case supervisor.Starting:
				if !backoff.IsZero() {
					waits = append(waits, c.At.Sub(backoff))
					backoff = time.Time{}
				}
			}
		}
		if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 8 * time.Second}; !slices.Equal(waits, want) {
			t.Errorf("waits between attempts %v, want %v", waits, want)
		}
		if n := tries.Load(); n != 6 || failed.St.Failures != 6 {
			t.Errorf("Failed after %d attempts, %d failures; want 6 and 6 (MaxReconnects 5, then one more)", n, failed.St.Failures)
		}
		testkit.Advance(time.Hour)
		if n := tries.Load(); n != 6 {
			t.Errorf("%d attempts in the hour after Failed, want none", n-6)
		}
		if st := sup.Status(); st.State != supervisor.Failed {
			t.Errorf("state %q an hour after Failed", st.State)
		}
		sup.Start()
		rec.waitState(t, fi+1, supervisor.Starting)
		testkit.Advance(0)
		if n := tries.Load(); n != 7 {
			t.Errorf("a Start after Failed made %d attempts, want 1", n-6)
		}
	})
}

// TestUpdateWhileStoppedDoesNotStart: an Update of a stopped server keeps
// its new spec and starts nothing, for an hour of a synctest bubble's
// clock.
func TestUpdateWhileStoppedDoesNotStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var tries atomic.Int32
		srv := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
		rec := newRecorder()
		sup := supervisor.New(supervisor.Options{
			Spec:   engine.Spec{Name: "remote"},
			Client: testClient(),
			Transport: func(ctx context.Context) (mcp.Transport, error) {
				tries.Add(1)
				ct, st := mcp.NewInMemoryTransports()
				if _, err := srv.Connect(ctx, st, nil); err != nil {
					return nil, err
				}
				return ct, nil
			},
			OnChange: rec.onChange,
		})
		sup.Start()
		t.Cleanup(func() { <-sup.Stop() })
		rec.waitState(t, 0, supervisor.Running)
		<-sup.Stop()
		spec := sup.Spec()
		spec.Args = []string{"updated"}
		sup.Update(spec)
		testkit.Advance(time.Hour)
		if st := sup.Status(); st.State != supervisor.Stopped {
			t.Errorf("Update of a stopped server left it %q", st.State)
		}
		if got := sup.Spec().Args; len(got) != 1 || got[0] != "updated" {
			t.Errorf("Spec() args %q after Update", got)
		}
		if n := tries.Load(); n != 1 {
			t.Errorf("%d attempts, want 1", n)
		}
	})
}

// TestTransportStableAfterResetsFailures: for a server reached through a
// Transport (a remote one), connections that end at once add up their
// failures; one that stayed up longer than StableAfter starts the count
// again, and one just short of it does not. On a synctest bubble's clock,
// with the default StableAfter (a minute). (TestStableAfterResetsFailures
// checks a process's, in real time.)
func TestTransportStableAfterResetsFailures(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
		sessions := make(chan *mcp.ServerSession, 8)
		rec := newRecorder()
		sup := supervisor.New(supervisor.Options{
			Spec:   engine.Spec{Name: "remote"},
			Client: testClient(),
			Policy: supervisor.Policy{Initial: time.Second, Jitter: -1},
			Transport: func(ctx context.Context) (mcp.Transport, error) {
				ct, st := mcp.NewInMemoryTransports()
				ss, err := srv.Connect(ctx, st, nil)
				if err != nil {
					return nil, err
				}
				sessions <- ss
				return ct, nil
			},
			OnChange: rec.onChange,
		})
		sup.Start()
		t.Cleanup(func() { <-sup.Stop() })
		const stable = time.Minute // Policy's default
		endAfter := func(from int, up time.Duration) (int, int) {
			t.Helper()
			_, ri := rec.waitState(t, from, supervisor.Running)
			testkit.Advance(up)
			(<-sessions).Close()
			b, bi := rec.waitState(t, ri, supervisor.Backoff)
			return b.St.Failures, bi
		}
		n1, i := endAfter(0, 0)
		n2, i := endAfter(i, stable-time.Second)
		if n1 != 1 || n2 != 2 {
			t.Fatalf("failures %d then %d after connections shorter than StableAfter, want 1 then 2", n1, n2)
		}
		if n3, _ := endAfter(i, stable+time.Second); n3 != 1 {
			t.Errorf("failures %d after a connection that stayed up past StableAfter, want 1", n3)
		}
	})
}

// refusing is a transport whose connections fail at once, with a
// fallback: another transport, or an error to report instead.
type refusing struct {
	next mcp.Transport
	why  error
	seen *atomic.Value // the error Fallback got
}

func (r refusing) Connect(context.Context) (mcp.Connection, error) {
	return nil, errors.New("Bad Request")
}

func (r refusing) Fallback(err error) (mcp.Transport, error) {
	r.seen.Store(err)
	return r.next, r.why
}

// TestFallbackTransport: a FallbackTransport whose connection fails is
// followed, within the same attempt, by the transport its Fallback gives
// (the attempt runs, no failure counted); when Fallback gives none, the
// attempt fails with the error it gives instead of the connection's.
func TestFallbackTransport(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "remote", Version: "1"}, nil)
		var useNext atomic.Bool
		useNext.Store(true)
		var seen atomic.Value
		rec := newRecorder()
		sup := supervisor.New(supervisor.Options{
			Client: testClient(),
			Policy: supervisor.Policy{Initial: 10 * time.Millisecond, Max: 20 * time.Millisecond, StableAfter: time.Minute},
			Transport: func(ctx context.Context) (mcp.Transport, error) {
				if !useNext.Load() {
					return refusing{why: errors.New("worded with the remedy"), seen: &seen}, nil
				}
				ct, st := mcp.NewInMemoryTransports()
				if _, err := srv.Connect(ctx, st, nil); err != nil {
					return nil, err
				}
				return refusing{next: ct, seen: &seen}, nil
			},
			OnChange: rec.onChange,
		})
		sup.Start()
		t.Cleanup(func() { <-sup.Stop() })
		run, wi := rec.waitState(t, 0, supervisor.Running)
		if run.Sess == nil || run.St.Failures != 0 {
			t.Fatalf("running over the fallback: session %v, %d failures", run.Sess, run.St.Failures)
		}
		if err, _ := seen.Load().(error); err == nil || !strings.Contains(err.Error(), "Bad Request") {
			t.Errorf("Fallback got %v, want the connection's failure", err)
		}
		useNext.Store(false)
		sup.Restart()
		w, _ := rec.waitState(t, wi+1, supervisor.Backoff)
		if w.St.LastError != "worded with the remedy" {
			t.Errorf("LastError %q, want Fallback's error", w.St.LastError)
		}
	})
}
