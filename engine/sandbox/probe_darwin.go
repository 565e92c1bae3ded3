//go:build darwin

package sandbox

import "os"

// Probe says what this machine can enforce: Seatbelt, through
// /usr/bin/sandbox-exec, which ships with macOS. The profile it enforces
// has not been run on a Mac by this project's tests: see docs/sandbox.md.
func Probe() Support {
	return seatbeltSupport(os.Stat(SeatbeltExec))
}
