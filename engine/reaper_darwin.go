//go:build darwin

package engine

import (
	"errors"
	"os/exec"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// prepareOS puts the server in a process group of its own. macOS has no
// Pdeathsig: what survives a killed host is swept at the next start.
func prepareOS(cmd *exec.Cmd, _ *Launch) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// treeAlive reports whether the leader or any other member of its group
// is still running (zombies do not count). macOS has no subreaper and no
// /proc environ of other processes to read cheaply: a member that left
// the group (setsid) is not followed here; the next host's sweep finds it
// only if it stayed in the group.
func (o *osProc) treeAlive() bool {
	return len(groupMembers(o.pid)) > 0
}

// signalTree sends each of sigs to the server's process group. The leader
// is not reaped yet, so the group id still belongs to us.
func (o *osProc) signalTree(sigs ...unix.Signal) {
	for _, sig := range sigs {
		_ = unix.Kill(-o.pid, sig)
	}
}

// startOS starts cmd and watches its leader with kqueue (NOTE_EXIT), which
// does not reap it. When the leader exits alone (no other member left in
// its group) it is reaped at once for its status; otherwise it stays a
// zombie, holding its pid and group id, until release.
func startOS(cmd *exec.Cmd) (*osProc, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	o := &osProc{cmd: cmd, pid: cmd.Process.Pid, exit: make(chan ExitStatus, 1), reap: make(chan struct{}), reaped: make(chan error, 1)}
	go func() {
		waitExitKqueue(o.pid)
		if len(groupMembers(o.pid)) == 0 {
			err := cmd.Wait()
			o.exit <- exitFromWaitStatus(cmd.ProcessState.Sys().(syscall.WaitStatus))
			<-o.reap
			if _, ok := err.(*exec.ExitError); ok {
				err = nil
			}
			o.reaped <- err
			return
		}
		o.exit <- ExitStatus{}
		<-o.reap
		err := cmd.Wait()
		if _, ok := err.(*exec.ExitError); ok {
			err = nil
		}
		o.reaped <- err
	}()
	return o, nil
}

func waitExitKqueue(pid int) {
	kq, err := unix.Kqueue()
	if err != nil {
		pollExit(pid)
		return
	}
	defer unix.Close(kq)
	ev := []unix.Kevent_t{{Ident: uint64(pid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}}
	if _, err := unix.Kevent(kq, ev, nil, nil); err != nil {
		return // ESRCH: it has already exited
	}
	out := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(kq, nil, out, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n > 0 {
			return
		}
	}
}

// pollExit is the fallback when kqueue is unavailable.
func pollExit(pid int) {
	for alive(pid) {
		sleepPoll()
	}
}

func alive(pid int) bool {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	return err == nil && kp.Proc.P_pid == int32(pid) && kp.Proc.P_stat != sZomb
}

const sZomb = 5 // SZOMB in <sys/proc.h>

type procStat struct {
	pid   int
	start uint64 // microseconds since the epoch
}

func groupProcs(pgid int) []procStat {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.pgrp", pgid)
	if err != nil {
		return nil
	}
	var out []procStat
	for _, kp := range kps {
		if kp.Proc.P_stat == sZomb || kp.Eproc.Pgid != int32(pgid) {
			continue
		}
		tv := kp.Proc.P_starttime
		out = append(out, procStat{pid: int(kp.Proc.P_pid), start: uint64(tv.Sec)*1e6 + uint64(tv.Usec)})
	}
	return out
}

func groupMembers(pgid int) []int {
	var pids []int
	for _, st := range groupProcs(pgid) {
		pids = append(pids, st.pid)
	}
	return pids
}

func procStart(pid int) uint64 {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		return 0
	}
	tv := kp.Proc.P_starttime
	return uint64(tv.Sec)*1e6 + uint64(tv.Usec)
}

// bootID is the boot time: start times are wall-clock on macOS, so a
// record of an earlier boot can only name processes that started no
// later, and is skipped anyway.
func bootID() string {
	tv, err := unix.SysctlTimeval("kern.boottime")
	if err != nil {
		return ""
	}
	return itoa(int(tv.Sec))
}

// survivors lists the recorded server's processes that still run. A group
// whose leader pid now belongs to a process started later is someone
// else's; otherwise members that started no earlier than the leader are
// the server's (macOS does not reuse a pid that is a live group's id).
func survivors(id Identity) []procStat {
	if id.Boot != bootID() {
		return nil
	}
	if s := procStart(id.PGID); s != 0 && s != id.Start {
		return nil
	}
	var out []procStat
	for _, st := range groupProcs(id.PGID) {
		if st.start >= id.Start {
			out = append(out, st)
		}
	}
	return out
}

func killSurvivor(st procStat) error {
	if procStart(st.pid) != st.start {
		return nil
	}
	return unix.Kill(st.pid, unix.SIGKILL)
}

func exitFromWaitStatus(ws syscall.WaitStatus) ExitStatus {
	switch {
	case ws.Exited():
		return ExitStatus{Exited: true, Code: ws.ExitStatus()}
	case ws.Signaled():
		return ExitStatus{Signal: unix.SignalName(ws.Signal())}
	}
	return ExitStatus{}
}

func itoa(i int) string { return strconv.Itoa(i) }

func sleepPoll() { time.Sleep(20 * time.Millisecond) }
