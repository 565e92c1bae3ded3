//go:build !linux

package sandbox

import "runtime"

// ABIEnv caps the Landlock ABI on Linux (tests only); unused here.
const ABIEnv = "SWITCHBOARD_LANDLOCK_ABI"

// Probe says what this machine can enforce: nothing yet on this OS.
func Probe() Support {
	return Support{Detail: "sandbox enforcement is not implemented on " + runtime.GOOS + " yet"}
}
