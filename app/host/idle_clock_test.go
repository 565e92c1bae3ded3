package host

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestIdleStopOnTheClock: an on-demand server is stopped exactly its
// idleStop after its last call ends, and not before: a call in flight
// keeps it running however long it takes, and a call a second before the
// idle stop counts the idleStop again from its end. A call wakes the
// sleeping server, which serves it. On the clock of a synctest bubble,
// the server in memory (the Manager's connect: no process runs in a
// bubble), with the host's own server type, supervisor, relay and timer.
func TestIdleStopOnTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const idle = time.Minute
		var runs atomic.Int32
		release := make(chan struct{})
		srv := mcp.NewServer(&mcp.Implementation{Name: "idle", Version: "1"}, nil)
		mcp.AddTool(srv, &mcp.Tool{Name: "echo"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo ok"}}}, nil, nil
		})
		mcp.AddTool(srv, &mcp.Tool{Name: "slow"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, nil, ctx.Err()
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow ok"}}}, nil, nil
		})
		m := NewManager(ManagerOptions{Policy: supervisor.Policy{Initial: time.Second, Max: time.Second, StableAfter: time.Second}})
		m.connect = func(ctx context.Context) (mcp.Transport, error) {
			runs.Add(1)
			ct, st := mcp.NewInMemoryTransports()
			if _, err := srv.Connect(ctx, st, nil); err != nil {
				return nil, err
			}
			return ct, nil
		}
		defer m.StopAll()
		f, err := config.Parse(fmt.Appendf(nil, `{"version": 1, "mcpServers": {"idle": {"command": "in-memory", "start": "on-demand", "idleStop": %d, "callTimeout": %d}}}`,
			idle.Milliseconds(), (24 * time.Hour).Milliseconds()))
		if err != nil {
			t.Fatal(err)
		}
		m.Apply(ServerConfigs(f))
		s, err := m.get("idle")
		if err != nil {
			t.Fatal(err)
		}
		state := func() supervisor.State { return s.sup.Status().State }

		// With no lists yet it runs once to learn them, then sleeps.
		testkit.Advance(time.Second)
		if runs.Load() != 1 || state() != supervisor.Stopped || !s.sleeping() {
			t.Fatalf("after learning its lists: %d runs, state %q, sleeping %v; want 1 run, asleep", runs.Load(), state(), s.sleeping())
		}

		call := func(tool, want string) time.Time {
			t.Helper()
			r, err := m.Call(context.Background(), "idle", tool, nil)
			if err != nil {
				t.Fatalf("call %s: %v", tool, err)
			}
			if len(r.Content) != 1 || r.Content[0].(*mcp.TextContent).Text != want {
				t.Fatalf("call %s: %+v, want %q", tool, r.Content, want)
			}
			return time.Now()
		}
		// stopsAt checks that the server runs until exactly idle after
		// end, and is stopped (asleep) then.
		stopsAt := func(end time.Time, what string) {
			t.Helper()
			testkit.Advance(time.Until(end.Add(idle - time.Millisecond)))
			if st := state(); st != supervisor.Running {
				t.Fatalf("%s: %v after the last call's end, a millisecond before its idleStop: state %q, want running", what, idle-time.Millisecond, st)
			}
			testkit.Advance(time.Millisecond)
			if st := state(); st != supervisor.Stopped || !s.sleeping() {
				t.Fatalf("%s: idleStop after the last call's end: state %q, sleeping %v; want asleep", what, st, s.sleeping())
			}
		}

		// A call wakes it, and it serves the call.
		call("echo", "echo ok")
		if runs.Load() != 2 {
			t.Fatalf("the call woke the server %d times, want once", runs.Load()-1)
		}
		// A second before its idle stop, a call counts it again from its end.
		testkit.Advance(idle - time.Second)
		if st := state(); st != supervisor.Running {
			t.Fatalf("a second before its idleStop: state %q, want running", st)
		}
		end := call("echo", "echo ok")
		stopsAt(end, "a call at idleStop-1s")
		if runs.Load() != 2 {
			t.Fatalf("%d runs, want 2: the second call went to the running server", runs.Load())
		}

		// A call in flight keeps it running for an hour, ten idleStops.
		done := make(chan error)
		go func() {
			_, err := m.Call(context.Background(), "idle", "slow", nil)
			done <- err
		}()
		testkit.Advance(time.Hour)
		if st := state(); st != supervisor.Running || runs.Load() != 3 {
			t.Fatalf("an hour into a call: state %q after %d runs; want running, 3 runs", st, runs.Load())
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatalf("the call of an hour: %v", err)
		}
		end = time.Now()
		stopsAt(end, "a call of an hour")
	})
}
