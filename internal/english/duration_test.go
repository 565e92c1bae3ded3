package english

import (
	"testing"
	"time"
)

// TestDuration: one style, at most one decimal, whatever the magnitude;
// the figures issue 27 item 14 saw ("1.5036s" beside "1.9ms") are "1.5 s"
// and "1.9 ms".
func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0 ns"},
		{850 * time.Nanosecond, "850 ns"},
		{1500 * time.Nanosecond, "1.5 µs"},
		{850 * time.Microsecond, "850 µs"},
		{999960 * time.Nanosecond, "1 ms"},
		{999700 * time.Microsecond, "1 s"},
		{59700 * time.Millisecond, "1 min"},
		{1900 * time.Microsecond, "1.9 ms"},
		{2 * time.Millisecond, "2 ms"},
		{12345 * time.Microsecond, "12 ms"},
		{450 * time.Millisecond, "450 ms"},
		{1503600 * time.Microsecond, "1.5 s"},
		{9960 * time.Millisecond, "10 s"},
		{45 * time.Second, "45 s"},
		{150 * time.Second, "2.5 min"},
		{75 * time.Minute, "75 min"},
		{-2 * time.Millisecond, "-2 ms"},
	} {
		if got := Duration(tc.d); got != tc.want {
			t.Errorf("Duration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
	if got := DurationMs(1503.6); got != "1.5 s" {
		t.Errorf("DurationMs(1503.6) = %q", got)
	}
	if got := DurationMs(1.9); got != "1.9 ms" {
		t.Errorf("DurationMs(1.9) = %q", got)
	}
}
