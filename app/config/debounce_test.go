package config

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestDebounce: the watcher's timer on the fake clock of a synctest
// bubble (the watcher's fsnotify cannot run in one), with the real
// period. A change is looked at one quiet period after it, not sooner; a
// burst, one period after its last change; a stream that never pauses,
// every ten periods; nothing, never.
func TestDebounce(t *testing.T) {
	const d = DefaultDebounce
	// run makes a change at each of the times changes (from the start),
	// runs on to the time end, and returns when C fired (from the start).
	run := func(t *testing.T, changes []time.Duration, end time.Duration) []time.Duration {
		var fired []time.Duration
		synctest.Test(t, func(t *testing.T) {
			b := newDebounce(d)
			defer b.stop()
			start := time.Now()
			poll := func() {
				select {
				case at := <-b.C():
					b.fired()
					fired = append(fired, at.Sub(start))
				default:
				}
			}
			for _, at := range append(changes, end) {
				testkit.Advance(at - time.Since(start))
				poll()
				if time.Since(start) < end {
					b.change()
				}
			}
		})
		return fired
	}
	every := func(step, until time.Duration) []time.Duration {
		var out []time.Duration
		for at := time.Duration(0); at < until; at += step {
			out = append(out, at)
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		changes []time.Duration
		end     time.Duration
		want    []time.Duration
	}{
		{"one change", []time.Duration{0}, time.Hour, []time.Duration{d}},
		{"one change, looked at after a quiet period only", []time.Duration{0}, d - time.Millisecond, nil},
		{"a burst", every(d/2, 3*d), time.Hour, []time.Duration{3*d - d/2 + d}},
		{"two bursts", append(every(d/4, d), every(d/4, d)[0]+5*d), time.Hour, []time.Duration{d - d/4 + d, 6 * d}},
		{"a stream that never pauses", every(d/4, 25*d), 25 * d, []time.Duration{10 * d, 20 * d}},
		{"no change", nil, time.Hour, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := run(t, tt.changes, tt.end); !slices.Equal(got, tt.want) {
				t.Errorf("fired at %v, want %v", got, tt.want)
			}
		})
	}
}
