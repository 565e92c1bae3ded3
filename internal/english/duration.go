package english

import (
	"strconv"
	"time"
)

// Duration writes a measured duration (a call's, a median) for a person,
// in one style everywhere (the command line's activity and the window's):
// a number and its unit with a space between, at most three significant
// digits and never more than one decimal: "850 µs", "1.9 ms", "12 ms",
// "450 ms", "1.5 s", "45 s", "2.5 min", "75 min". So no place shows
// "1.5036s" beside "1.9ms" (issue 27 item 14).
func Duration(d time.Duration) string {
	if d < 0 {
		return "-" + Duration(-d)
	}
	switch {
	case d < time.Microsecond:
		return strconv.FormatInt(int64(d), 10) + " ns"
	// Each unit up to where its figure would round to 1000 (or 60 s).
	case d < 999500*time.Nanosecond:
		return number(float64(d)/float64(time.Microsecond)) + " µs"
	case d < 999500*time.Microsecond:
		return number(float64(d)/float64(time.Millisecond)) + " ms"
	case d < 59500*time.Millisecond:
		return number(d.Seconds()) + " s"
	}
	return number(d.Minutes()) + " min"
}

// DurationMs is Duration of fractional milliseconds (the host API's unit).
func DurationMs(ms float64) string {
	return Duration(time.Duration(ms * float64(time.Millisecond)))
}

// number is x with one decimal below 10 (dropped when it is 0), none from
// 10: two or three significant digits.
func number(x float64) string {
	if x < 9.95 {
		s := strconv.FormatFloat(x, 'f', 1, 64)
		if len(s) > 2 && s[len(s)-2:] == ".0" {
			s = s[:len(s)-2]
		}
		return s
	}
	return strconv.FormatFloat(x, 'f', 0, 64)
}
