//go:build linux

package engine

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"

	"golang.org/x/sys/unix"
)

// A server's descendant that calls setsid() leaves the server's process
// group, and once its parent exits it is re-parented: to init, or to the
// nearest ancestor that is a child subreaper. BecomeSubreaper makes the
// host that ancestor, so that such a process stays in the host's tree
// (the stop ladder finds it among the host's children by its token, see
// treeMembers) and, when it exits, its zombie is the host's to reap.
//
// The host's own children (servers, the login shell) are reaped by
// whoever waits for them (os/exec, waitid): the orphan reaper must never
// reap one of those first, or their Wait would fail with ECHILD. It reaps
// a zombie child only if none of these holds:
//   - it was started through startChild / StartChild, which register it
//     before the reaper can see it exit, until its Wait has reaped it;
//   - it is in the host's own process group (a plain os/exec child, which
//     the engine does not know, never leaves it unless asked to).
// A re-parented orphan was never started here and is in a group of its
// server or a session of its own.

var (
	// forkMu is held for reading while a child is started and registered,
	// and for writing by the reaper's scan: a child that exits at once is
	// registered before the reaper can see its zombie.
	forkMu sync.RWMutex
	pidsMu sync.Mutex
	ownPid = map[int]int{} // pid -> how many registrations (a pid may be reused after a Wait)

	subreaperOnce sync.Once
)

// BecomeSubreaper makes this process a child subreaper
// (PR_SET_CHILD_SUBREAPER): the orphans among its descendants are
// re-parented to it rather than to init. It also starts the orphan reaper,
// which reaps those orphans when they exit (on SIGCHLD) and never a child
// that this process started itself (see startChild and StartChild). The
// host calls it once at start; the setting lasts for the process's life.
func BecomeSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	subreaperOnce.Do(func() {
		c := make(chan os.Signal, 1)
		signal.Notify(c, unix.SIGCHLD)
		go func() {
			for range c {
				reapOrphans()
			}
		}()
	})
	reapOrphans() // any that arrived before the handler
	return nil
}

// Tracking says how this OS's engine finds every process of a server, for
// the host's log (docs/decisions.md has the reasons).
func Tracking(subreaper bool) string {
	if subreaper {
		return "process group, descent and token (SWITCHBOARD_SERVER_TOKEN); orphans re-parent to this host (child subreaper)"
	}
	return "process group, descent and token (SWITCHBOARD_SERVER_TOKEN)"
}

// reapOrphans reaps the zombie children of this process that it did not
// start, and returns how many.
func reapOrphans() int {
	forkMu.Lock()
	defer forkMu.Unlock()
	self, pgrp := os.Getpid(), unix.Getpgrp()
	n := 0
	for _, st := range allProcs() {
		if st.ppid != self || st.state != 'Z' || st.pgrp == pgrp || isOwnChild(st.pid) {
			continue
		}
		var ws unix.WaitStatus
		if pid, err := unix.Wait4(st.pid, &ws, unix.WNOHANG, nil); err == nil && pid == st.pid {
			n++
		}
	}
	return n
}

// startChild starts cmd and registers its pid as this process's own child,
// which the orphan reaper leaves alone until forgetChild.
func startChild(cmd *exec.Cmd) error {
	forkMu.RLock()
	defer forkMu.RUnlock()
	if err := cmd.Start(); err != nil {
		return err
	}
	pidsMu.Lock()
	ownPid[cmd.Process.Pid]++
	pidsMu.Unlock()
	return nil
}

// forgetChild ends a registration of startChild, once the child is reaped.
func forgetChild(pid int) {
	pidsMu.Lock()
	if ownPid[pid]--; ownPid[pid] <= 0 {
		delete(ownPid, pid)
	}
	pidsMu.Unlock()
}

func isOwnChild(pid int) bool {
	pidsMu.Lock()
	defer pidsMu.Unlock()
	return ownPid[pid] > 0
}

// StartChild starts cmd like cmd.Start, for a process that may be a
// subreaper (the host): the orphan reaper leaves the child alone until
// the returned release is called, which must be after cmd.Wait (or
// whatever reaps it) has returned. Needed only for a child outside this
// process's group (SysProcAttr.Setpgid or Setsid).
func StartChild(cmd *exec.Cmd) (release func(), err error) {
	if err := startChild(cmd); err != nil {
		return func() {}, err
	}
	pid := cmd.Process.Pid
	var once sync.Once
	return func() { once.Do(func() { forgetChild(pid) }) }, nil
}
