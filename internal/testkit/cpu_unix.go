//go:build unix

package testkit

import (
	"syscall"
	"time"
)

// ProcessCPU is the CPU time this process has used, user and system, its
// children's not included: a benchmark's cost that other processes' load
// disturbs far less than the wall-clock time.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
