// Package stats holds the small statistics the benchmark commands print.
package stats

import "slices"

// Median is the middle of v (the mean of the two middle values for an
// even count); 0 for none.
func Median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
