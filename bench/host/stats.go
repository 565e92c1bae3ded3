//go:build linux

package main

import (
	"os"
	"slices"
	"time"
)

func readSmall(path string) ([]byte, error) { return os.ReadFile(path) }

func medianInt(xs []int64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return float64(s[n/2-1]+s[n/2]) / 2
}

// durStats are the order statistics of a sample of durations.
type durStats struct {
	n                   int
	median, p90, lo, hi time.Duration
}

func statsOf(ds []time.Duration) durStats {
	if len(ds) == 0 {
		return durStats{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	n := len(s)
	med := s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	// p90 by nearest rank: the smallest value with at least 90% of the
	// sample at or below it.
	rank := (9*n + 9) / 10
	return durStats{n: n, median: med, p90: s[rank-1], lo: s[0], hi: s[n-1]}
}
