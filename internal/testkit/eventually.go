package testkit

import (
	"testing"
	"testing/synctest"
	"time"
)

// Deadline bounds every [Eventually]: generous, since a test waits for a
// condition and never measures speed (a loaded machine is slow, not
// wrong).
const Deadline = 60 * time.Second

// Eventually polls cond every 10 ms until it holds, and fails the test
// (t.Fatalf) if it does not hold within [Deadline]. what names the
// condition awaited. cond is a func() bool, or a func() (bool, string)
// whose string, the last state it saw, goes into the failure.
func Eventually[C func() bool | func() (bool, string)](t testing.TB, what string, cond C) {
	t.Helper()
	eventually(t, what, cond, Deadline)
}

func eventually[C func() bool | func() (bool, string)](t testing.TB, what string, cond C, d time.Duration) {
	t.Helper()
	check := func() (bool, string) {
		switch c := any(cond).(type) {
		case func() bool:
			return c(), ""
		case func() (bool, string):
			return c()
		}
		panic("unreachable")
	}
	var last string
	if Poll(d, func() (ok bool) { ok, last = check(); return ok }) {
		return
	}
	if last != "" {
		t.Fatalf("%s: not within %v; last: %s", what, d, last)
	}
	t.Fatalf("%s: not within %v", what, d)
}

// Poll calls done every 10 ms until it returns true or d has passed, and
// reports whether it did: for a wait whose failure is not the test's (a
// cleanup that then kills what is left).
func Poll(d time.Duration, done func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if done() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// EventuallyWithin is [Eventually] with its own deadline d: for a test
// that must fail sooner than [Deadline] (a helper process that could hang
// a parent test), or a wait known to be longer.
func EventuallyWithin[C func() bool | func() (bool, string)](t testing.TB, what string, d time.Duration, cond C) {
	t.Helper()
	eventually(t, what, cond, d)
}

// Advance moves a testing/synctest bubble's fake clock on by d and
// returns once every goroutine of the bubble is durably blocked again:
// what the timers due by then do has been done. It must run inside a
// bubble (synctest.Test): it panics elsewhere, before waiting, so it
// cannot become a real sleep.
func Advance(d time.Duration) {
	synctest.Wait() // panics outside a bubble
	time.Sleep(d)
	synctest.Wait()
}
