//go:build linux

package engine

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// prepareOS puts the server in a process group of its own and, with
// Pdeathsig, has the kernel SIGKILL it if the host dies: even by SIGKILL.
func prepareOS(cmd *exec.Cmd, _ *Launch) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// startOS starts cmd from a goroutine locked to its OS thread for the
// server's whole life: Pdeathsig fires when the creating THREAD exits, not
// the process (go.dev/issue/27505), so the thread must outlive the child.
// The same goroutine waits for the leader without reaping it, then reaps it
// when release allows; only then does the thread exit.
func startOS(cmd *exec.Cmd) (*osProc, error) {
	o := &osProc{cmd: cmd, exit: make(chan ExitStatus, 1), reap: make(chan struct{}), reaped: make(chan error, 1)}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		o.pid = cmd.Process.Pid
		started <- nil
		o.exit <- waitNoReap(o.pid)
		<-o.reap
		err := cmd.Wait()
		if _, ok := err.(*exec.ExitError); ok {
			err = nil // the status was reported by waitExit
		}
		o.reaped <- err
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return o, nil
}

// waitNoReap waits for pid to exit with waitid(WNOWAIT), which leaves it a
// zombie: its pid and group id stay ours until it is reaped.
func waitNoReap(pid int) ExitStatus {
	var info [128]byte // siginfo_t
	for {
		err := unix.Waitid(unix.P_PID, pid, (*unix.Siginfo)(unsafe.Pointer(&info)), unix.WEXITED|unix.WNOWAIT, nil)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return ExitStatus{}
		}
		break
	}
	// siginfo_t for SIGCHLD on Linux: si_code at 8; si_pid, si_uid and
	// si_status at 16, 20 and 24 (the union is 8-aligned on 64-bit and
	// starts at 12 on 32-bit).
	off := 16
	if strconv.IntSize == 32 {
		off = 12
	}
	code := int32(binary.NativeEndian.Uint32(info[8:]))
	status := int32(binary.NativeEndian.Uint32(info[off+8:]))
	const cldExited = 1
	if code == cldExited {
		return ExitStatus{Exited: true, Code: int(status)}
	}
	return ExitStatus{Signal: unix.SignalName(syscall.Signal(status))}
}

// procStat is what /proc/PID/stat says of a process.
type procStat struct {
	pid   int
	state byte
	pgrp  int
	start uint64 // clock ticks after boot
}

func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	// "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
	// majflt cmajflt utime stime cutime cstime priority nice threads
	// itrealvalue starttime ..."; comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return procStat{}, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return procStat{}, false
	}
	st := procStat{pid: pid, state: f[0][0]}
	st.pgrp, _ = strconv.Atoi(f[2])
	st.start, _ = strconv.ParseUint(f[19], 10, 64)
	return st, true
}

// allProcs lists every process of the system.
func allProcs() []procStat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]procStat, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		if st, ok := readStat(pid); ok {
			out = append(out, st)
		}
	}
	return out
}

// procScanner shares scans of /proc between the stop ladders that poll at
// the same time: 50 stopping servers would otherwise each scan all of
// /proc every poll. A caller joins a scan only if that scan has not begun
// reading yet, so every answer is at least as fresh as the question.
type procScanner struct {
	mu      sync.Mutex
	pending *procScan // not begun; callers may join it
	running *procScan // reading /proc now
}

type procScan struct {
	done chan struct{}
	res  []procStat
}

var scanner procScanner

func (s *procScanner) get() []procStat {
	s.mu.Lock()
	if r := s.pending; r != nil {
		s.mu.Unlock()
		<-r.done
		return r.res
	}
	r := &procScan{done: make(chan struct{})}
	s.pending = r
	prev := s.running
	s.mu.Unlock()
	if prev != nil {
		<-prev.done // one scan at a time; callers meanwhile join r
	}
	s.mu.Lock()
	s.pending, s.running = nil, r
	s.mu.Unlock()
	r.res = allProcs()
	s.mu.Lock()
	if s.running == r {
		s.running = nil
	}
	s.mu.Unlock()
	close(r.done)
	return r.res
}

// groupMembers lists the live (not zombie) members of process group pgid.
func groupMembers(pgid int) []int {
	var pids []int
	for _, st := range scanner.get() {
		if st.pgrp == pgid && st.state != 'Z' && st.state != 'X' {
			pids = append(pids, st.pid)
		}
	}
	return pids
}

// procStart returns a process's start time, its identity beside its pid.
func procStart(pid int) uint64 {
	st, _ := readStat(pid)
	return st.start
}

// bootID tells one boot from another: start times count from boot.
func bootID() string {
	b, _ := os.ReadFile("/proc/sys/kernel/random/boot_id")
	return strings.TrimSpace(string(b))
}

// hasToken reports whether pid's environment carries the server's token.
func hasToken(pid int, token string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(TokenEnv + "=" + token)
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

// survivors lists the live processes that belong to the recorded server:
// its leader, if the same process (same start time) still runs, and the
// members of its group that carry its token and started no earlier. A pid
// or group id reused by another process matches neither.
func survivors(id Identity) []procStat {
	if id.Boot != bootID() {
		return nil
	}
	var out []procStat
	for _, st := range allProcs() {
		if st.pgrp != id.PGID || st.state == 'Z' || st.state == 'X' {
			continue
		}
		if (st.pid == id.PID && st.start == id.Start) || (st.start >= id.Start && hasToken(st.pid, id.Token)) {
			out = append(out, st)
		}
	}
	return out
}

// killSurvivor kills one survivor through a pidfd, after checking again,
// through that pidfd's process, that it is the same one: no signal can
// reach a pid that was reused in between.
func killSurvivor(st procStat) error {
	fd, err := unix.PidfdOpen(st.pid, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if now, ok := readStat(st.pid); !ok || now.start != st.start {
		return nil // gone, or reused before the pidfd was opened
	}
	return unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
}
