package gateway

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestWaitStartedOnTheClock: a first list's wait (waitStarted) for the
// servers still starting, on a synctest bubble's clock: it ends the
// moment the server runs, or at its start timeout exactly if it never
// does, and not at all for a server the client does not see.
// (TestFirstListWaits checks it through a client, in real time.)
func TestWaitStartedOnTheClock(t *testing.T) {
	all := &Filter{}
	for _, tt := range []struct {
		name   string
		filter *Filter
		runsAt time.Duration // 0: never
		want   time.Duration
	}{
		{"a server that comes", all, 4 * time.Second, 4 * time.Second},
		{"a server that never comes", all, 0, 10 * time.Second},
		{"a server the client does not see", &Filter{Servers: []string{"up"}}, 0, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFake(running("up", "a"), Server{Name: "slow", State: hostapi.StateStarting, StartTimeout: 10 * time.Second})
				g := New(Options{Backend: f, Version: "test"})
				defer g.Close()
				start := time.Now()
				done := make(chan time.Duration, 1)
				go func() {
					g.waitStarted(context.Background(), tt.filter)
					done <- time.Since(start)
				}()
				if tt.runsAt > 0 {
					testkit.Advance(tt.runsAt)
					f.set(running("slow", "b"))
					g.Notify()
				}
				testkit.Advance(time.Hour)
				select {
				case d := <-done:
					if d != tt.want {
						t.Errorf("the wait ended after %v, want %v", d, tt.want)
					}
				default:
					t.Error("the wait did not end within an hour")
				}
			})
		})
	}
}
