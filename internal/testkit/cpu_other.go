//go:build !unix

package testkit

import "time"

// ProcessCPU is not measured here: 0 (a benchmark then reports no CPU
// figure).
func ProcessCPU() time.Duration { return 0 }
