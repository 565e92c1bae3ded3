//go:build !linux && !darwin

package sandbox

import "runtime"

// Probe says what this machine can enforce: nothing on this OS. On
// Windows the AppContainer launch (appcontainer.go, exec_windows.go) is
// written and tested as functions but not wired in until it has run on
// Windows: a server's status says its sandbox is not enforced.
func Probe() Support {
	if runtime.GOOS == "windows" {
		return Support{Detail: "sandbox enforcement is not implemented on Windows yet (the AppContainer launch has not been run on Windows)"}
	}
	return Support{Detail: "sandbox enforcement is not implemented on " + runtime.GOOS + " yet"}
}
