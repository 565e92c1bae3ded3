//go:build unix

package activity

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used, user and system: the
// writer's cost, which other processes' load disturbs less than the
// wall-clock time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
