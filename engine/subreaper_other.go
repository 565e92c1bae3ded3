//go:build !linux

package engine

import (
	"os/exec"
	"runtime"
)

// BecomeSubreaper is Linux's: elsewhere it does nothing. On Windows the
// job object holds every process of a server, however it detaches; macOS
// has no child subreaper, and a member that leaves its server's process
// group is not followed there.
func BecomeSubreaper() error { return nil }

// StartChild starts cmd; release does nothing (see the Linux version).
func StartChild(cmd *exec.Cmd) (release func(), err error) {
	return func() {}, cmd.Start()
}

// Tracking says how this OS's engine finds every process of a server, for
// the host's log.
func Tracking(bool) string {
	if runtime.GOOS == "windows" {
		return "job object (KILL_ON_JOB_CLOSE)"
	}
	return "process group"
}
