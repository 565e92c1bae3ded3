//go:build linux

package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestStats(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 10; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	s := statsOf(ds)
	if s.median != 5500*time.Microsecond || s.p90 != 9*time.Millisecond || s.lo != time.Millisecond || s.hi != 10*time.Millisecond {
		t.Errorf("statsOf(1..10 ms) = %+v", s)
	}
	if m := medianInt([]int64{3, 1, 2}); m != 2 {
		t.Errorf("medianInt = %v", m)
	}
}

func TestReadUsageOfSelf(t *testing.T) {
	u, err := readUsage(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if u.rssKB <= 0 || u.threads <= 0 || u.ticks < 0 || len(u.wakes) != u.threads {
		t.Errorf("readUsage(self) = %+v", u)
	}
}

// TestSmoke runs the whole harness on a small scale: 2 servers, a 1 s
// window, 2 reload rounds. It checks that it works, not its figures.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("builds switchboard and runs a host")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out strings.Builder
	c := config{work: t.TempDir(), servers: 2, settle: 200 * time.Millisecond, window: time.Second, rounds: 2}
	if err := run(ctx, c, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	for _, want := range []string{"RssAnon (own memory) median, MB", "VmRSS (own + mapped files) median, MB", "CPU utime+stime, clock ticks", "reload: write -> running again",
		"server's own start (CommandTransport)", "untouched servers whose pid changed: 0 of 2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in the output:\n%s", want, out.String())
		}
	}
	t.Log("\n" + out.String())
}
