//go:build unix

package host

import (
	"os/exec"
	"syscall"
	"time"
)

// ownGroup puts the login shell in a process group of its own, and has a
// cancelled context kill that whole group, not only the shell.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// waitGroupGone waits up to d for the killed group pgid to be empty (its
// members dead and reaped: by the host, a child subreaper, or init).
func waitGroupGone(pgid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for syscall.Kill(-pgid, 0) == nil && time.Now().Before(deadline) {
		_ = syscall.Kill(-pgid, syscall.SIGKILL) // a member forked since
		time.Sleep(10 * time.Millisecond)
	}
}
