//go:build !unix

package activity

import "time"

// cpuTime is not measured here (0: the benchmark reports no CPU figure).
func cpuTime() time.Duration { return 0 }
