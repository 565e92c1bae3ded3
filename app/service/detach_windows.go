//go:build windows

package service

import "syscall"

// detached starts the host without a console, in a process group of its
// own, and outside the starter's job object where the job allows it
// (an AI app that kills its job on exit would otherwise take the host
// along).
func detached() *syscall.SysProcAttr {
	const (
		detachedProcess        = 0x00000008
		createNewProcessGroup  = 0x00000200
		createBreakawayFromJob = 0x01000000
	)
	return &syscall.SysProcAttr{CreationFlags: detachedProcess | createNewProcessGroup | createBreakawayFromJob, HideWindow: true}
}
