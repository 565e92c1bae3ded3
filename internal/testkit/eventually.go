package testkit

import (
	"testing"
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
	deadline := time.Now().Add(d)
	for {
		ok, last := check()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			if last != "" {
				t.Fatalf("%s: not within %v; last: %s", what, d, last)
			}
			t.Fatalf("%s: not within %v", what, d)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
