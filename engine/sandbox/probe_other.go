//go:build !linux && !darwin

package sandbox

import "runtime"

// Probe says what this machine can enforce: nothing yet on this OS.
func Probe() Support {
	return Support{Detail: "sandbox enforcement is not implemented on " + runtime.GOOS + " yet"}
}
