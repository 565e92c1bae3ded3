//go:build unix

package supervisor_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
