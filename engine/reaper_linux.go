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
		// Registered as our own child before the orphan reaper can see it
		// exit: that one is reaped here, by cmd.Wait.
		if err := startChild(cmd); err != nil {
			started <- err
			return
		}
		defer forgetChild(cmd.Process.Pid) // after cmd.Wait below
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
	ppid  int
	pgrp  int
	start uint64 // clock ticks after boot
}

func (st procStat) live() bool { return st.state != 'Z' && st.state != 'X' }

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
	st.ppid, _ = strconv.Atoi(f[1])
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
	tokens.prune(r.res)
	s.mu.Lock()
	if s.running == r {
		s.running = nil
	}
	s.mu.Unlock()
	close(r.done)
	return r.res
}

// treeMembers lists the live processes of a server's tree, from one scan
// of /proc:
//   - the members of its process group (the leader's pid is the group's id),
//   - the descendants of any of them, wherever they went (a process that
//     called setsid() left the group, not the tree),
//   - any process that started no earlier than the leader and carries the
//     server's token in its environment, and its descendants: a process
//     whose parent died is no longer anyone's descendant (it was
//     re-parented to this host, a child subreaper: see BecomeSubreaper; or
//     to init or another subreaper when the host is not one).
//
// A process outside the group is found only while it is alive; the token
// is read from /proc/PID/environ (which only its own user and root can
// read) once per process, and remembered while the process lives.
func treeMembers(leader int, leaderStart uint64, token string) []procStat {
	all := scanner.get()
	kids := make(map[int][]int, len(all))
	byPid := make(map[int]procStat, len(all))
	for _, st := range all {
		byPid[st.pid] = st
		kids[st.ppid] = append(kids[st.ppid], st.pid)
	}
	in := map[int]bool{}
	var queue []int
	add := func(pid int) {
		if !in[pid] {
			in[pid] = true
			queue = append(queue, pid)
		}
	}
	for _, st := range all {
		if st.pgrp == leader || st.pid == leader {
			add(st.pid)
		}
	}
	for _, st := range all {
		if token == "" || in[st.pid] || !st.live() || st.start < leaderStart {
			continue
		}
		// An orphan's new parent (this host, init, a subreaper) started
		// before the leader; a process whose parent started later is a
		// member's descendant (found below) or a stranger's: its
		// environment need not be read.
		if parent, ok := byPid[st.ppid]; ok && parent.start >= leaderStart {
			continue
		}
		if tokens.of(st) == token {
			add(st.pid)
		}
	}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range kids[pid] {
			add(c)
		}
	}
	var out []procStat
	for pid := range in {
		if st := byPid[pid]; st.live() {
			out = append(out, st)
		}
	}
	return out
}

// treeAlive reports whether any process of the server's tree still runs
// (zombies do not count).
func (o *osProc) treeAlive() bool {
	return len(treeMembers(o.pid, o.start, o.token)) > 0
}

// signalTree sends each of sigs to the server's whole group and to every
// member of its tree outside the group, each through a pidfd after checking that
// the pid still names the same process. The leader is not reaped yet, so
// the group id is still ours.
func (o *osProc) signalTree(sigs ...unix.Signal) {
	outside := treeMembers(o.pid, o.start, o.token)
	for _, sig := range sigs {
		_ = unix.Kill(-o.pid, sig)
		for _, st := range outside {
			if st.pgrp != o.pid {
				_ = signalSame(st, sig)
			}
		}
	}
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

// tokenCache remembers the value of TokenEnv in each process's environment
// ("" for none, or unreadable), by pid and start time: a stop ladder polls
// the tree many times, and reads each process's environment only once.
type tokenCache struct {
	mu sync.Mutex
	m  map[procKey]string
}

type procKey struct {
	pid   int
	start uint64
}

var tokens = tokenCache{m: map[procKey]string{}}

func (c *tokenCache) of(st procStat) string {
	k := procKey{st.pid, st.start}
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = readToken(st.pid)
	if now, ok := readStat(st.pid); !ok || now.start != st.start {
		return "" // the pid was reused while its environment was read
	}
	c.mu.Lock()
	c.m[k] = v
	c.mu.Unlock()
	return v
}

// prune forgets the processes that are no longer in a scan.
func (c *tokenCache) prune(scan []procStat) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) == 0 {
		return
	}
	now := make(map[procKey]bool, len(scan))
	for _, st := range scan {
		now[procKey{st.pid, st.start}] = true
	}
	for k := range c.m {
		if !now[k] {
			delete(c.m, k)
		}
	}
}

// readToken returns the value of TokenEnv in pid's environment, or "".
func readToken(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return ""
	}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if v, ok := bytes.CutPrefix(kv, []byte(TokenEnv+"=")); ok {
			return string(v)
		}
	}
	return ""
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
// its leader, if the same process (same start time) still runs, every
// process that carries its token and started no earlier, wherever it is
// (in the group, or out of it after setsid()), and their descendants. A
// pid or group id reused by another process matches none of these.
func survivors(id Identity) []procStat {
	if id.Boot != bootID() {
		return nil
	}
	all := allProcs()
	kids := make(map[int][]procStat, len(all))
	in := map[int]bool{}
	var queue []procStat
	add := func(st procStat) {
		if !in[st.pid] && st.start >= id.Start {
			in[st.pid] = true
			queue = append(queue, st)
		}
	}
	for _, st := range all {
		kids[st.ppid] = append(kids[st.ppid], st)
		if (st.pid == id.PID && st.start == id.Start) || (st.live() && id.Token != "" && st.start >= id.Start && hasToken(st.pid, id.Token)) {
			add(st)
		}
	}
	// And their descendants, which started later still: a process may
	// have cleared its environment, not its parentage.
	var out []procStat
	for len(queue) > 0 {
		st := queue[0]
		queue = queue[1:]
		if st.live() {
			out = append(out, st)
		}
		for _, c := range kids[st.pid] {
			add(c)
		}
	}
	return out
}

// killSurvivor kills one survivor through a pidfd, after checking again,
// through that pidfd's process, that it is the same one: no signal can
// reach a pid that was reused in between.
func killSurvivor(st procStat) error { return signalSame(st, unix.SIGKILL) }

// signalSame sends sig to st's process through a pidfd, after checking
// through that pidfd's pid that it is still the same process (same start
// time): no signal can reach a pid that was reused in between.
func signalSame(st procStat, sig unix.Signal) error {
	fd, err := unix.PidfdOpen(st.pid, 0)
	if err != nil {
		if err == unix.ESRCH {
			return nil // gone
		}
		return err
	}
	defer unix.Close(fd)
	if now, ok := readStat(st.pid); !ok || now.start != st.start {
		return nil // gone, or reused before the pidfd was opened
	}
	return unix.PidfdSendSignal(fd, sig, nil, 0)
}
