//go:build unix

package engine

import (
	"os/exec"

	"golang.org/x/sys/unix"
)

// osProc is the OS side of a running server on Unix: a process group led
// by the server, whose leader stays unreaped (see waitExit) until the group
// has been signalled for the last time, so that no signal can reach a
// recycled pid or group.
type osProc struct {
	cmd    *exec.Cmd
	pid    int
	token  string          // the value of TokenEnv in the server's environment
	start  uint64          // the leader's start time (procStart)
	exit   chan ExitStatus // the leader's status, once, without reaping it
	reap   chan struct{}   // closed to let the leader be reaped
	reaped chan error
}

// terminate sends SIGTERM, then SIGCONT to wake stopped members, to the
// server's whole tree (signalTree: its process group, and on Linux the
// members that left it).
func (o *osProc) terminate() bool {
	o.signalTree(unix.SIGTERM, unix.SIGCONT)
	return true
}

// kill sends SIGKILL to the whole tree.
func (o *osProc) kill() {
	o.signalTree(unix.SIGKILL)
}

// waitExit blocks until the leader exits and returns how; the leader is
// left as a zombie until release.
func (o *osProc) waitExit() ExitStatus { return <-o.exit }

// release reaps the leader. Call it only after the group is gone or has
// been killed.
func (o *osProc) release() error {
	close(o.reap)
	return <-o.reaped
}
