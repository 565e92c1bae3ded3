package config

import "time"

// debounce is the watcher's timer: after a change it waits for a quiet
// period of d, but never more than ten periods after the first change it
// has not yet fired for (a stream of writes that never pauses is still
// looked at). Its channel C fires once per quiet period; the watcher
// calls fired when it does. It is not safe for concurrent use.
type debounce struct {
	d, maxWait time.Duration
	timer      *time.Timer
	pending    bool
	first      time.Time
}

func newDebounce(d time.Duration) *debounce {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &debounce{d: d, maxWait: 10 * d, timer: t}
}

// C fires when a quiet period (or the longest wait) has passed.
func (b *debounce) C() <-chan time.Time { return b.timer.C }

// change notes a change: the timer fires d from now, or sooner when the
// first change not yet fired for was maxWait ago.
func (b *debounce) change() {
	now := time.Now()
	if !b.pending {
		b.pending, b.first = true, now
	}
	wait := b.d
	if left := b.maxWait - now.Sub(b.first); left < wait {
		wait = max(left, 0)
	}
	b.timer.Reset(wait)
}

// fired is called when C has fired: the next change starts a new wait.
func (b *debounce) fired() { b.pending = false }

func (b *debounce) stop() { b.timer.Stop() }
