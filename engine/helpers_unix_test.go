//go:build unix

package engine

// The misbehaving servers of these tests are helper processes: the test
// binary re-executed, its role chosen by helperEnv and checked in TestMain
// (as in Go's os/exec/exec_test.go). The engine passes only allowlisted
// variables, so a test puts helperEnv in the spec's Env.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const (
	helperEnv   = "SWITCHBOARD_ENGINE_TEST_HELPER" // the helper's role
	leaderEnv   = "SWITCHBOARD_ENGINE_TEST_LEADER" // fork: "exit" makes the leader exit after forking
	codeEnv     = "SWITCHBOARD_ENGINE_TEST_CODE"   // exit: the exit code
	registryEnv = "SWITCHBOARD_ENGINE_TEST_REG"    // host: the registry's path
	serverEnv   = "SWITCHBOARD_ENGINE_TEST_SERVER" // host, subhost: the server's role (default fork)
)

// testExe is the test binary, run as every helper.
var testExe string

func TestMain(m *testing.M) {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot find the test binary:", err)
		os.Exit(2)
	}
	testExe = exe
	if role := os.Getenv(helperEnv); role != "" {
		h, ok := helpers[role]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown helper %q\n", role)
			os.Exit(99)
		}
		// syscall.Exit, not os.Exit: a race-enabled binary that exits 0
		// through os.Exit first sleeps for GORACE's atexit_sleep_ms (1 s),
		// which would look like a server ignoring EOF. Helpers write to
		// stdout and stderr unbuffered (or flush), so nothing is lost.
		syscall.Exit(h(os.Args[1:]))
	}
	os.Exit(testkit.Run(m))
}

// pids is what the forking helpers print: their own pid and their child's.
type pids struct {
	Pid   int `json:"pid"`
	Child int `json:"child"`
}

var helpers = map[string]func(args []string) int{
	// argv prints its arguments as JSON.
	"argv": func(args []string) int {
		_ = json.NewEncoder(os.Stdout).Encode(args)
		return 0
	},
	// env prints its environment and working directory as JSON.
	"env": func([]string) int {
		wd, _ := os.Getwd()
		_ = json.NewEncoder(os.Stdout).Encode(map[string]any{"env": os.Environ(), "cwd": wd})
		return 0
	},
	// eof says ready, then exits 0 when stdin ends.
	"eof": func([]string) int {
		ready()
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// ignore-eof never reads stdin; SIGTERM ends it (Go's default action).
	"ignore-eof": func([]string) int {
		ready()
		testkit.Hang()
		return 0
	},
	// ignore-term ignores EOF and SIGTERM: only SIGKILL ends it.
	"ignore-term": func([]string) int {
		signal.Ignore(syscall.SIGTERM)
		ready()
		testkit.Hang()
		return 0
	},
	// fork starts a grandchild that ignores EOF and SIGTERM and shares its
	// stdin, stdout and stderr (as npx's child does), prints both pids once
	// the grandchild ignores SIGTERM, then ignores EOF (SIGTERM ends it) or,
	// with leaderEnv=exit, exits 0 at once.
	"fork": func([]string) int {
		r, w, err := os.Pipe()
		if err != nil {
			return 98
		}
		c := exec.Command(testExe)
		c.Env = append(os.Environ(), helperEnv+"=grandchild")
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		c.ExtraFiles = []*os.File{w}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "fork:", err)
			return 98
		}
		w.Close()
		_, _ = io.ReadAll(r) // the grandchild closes its end when ready
		_ = json.NewEncoder(os.Stdout).Encode(pids{Pid: os.Getpid(), Child: c.Process.Pid})
		if os.Getenv(leaderEnv) == "exit" {
			return 0
		}
		testkit.Hang()
		return 0
	},
	// escape is "fork" whose grandchild leaves the process group and the
	// session (setsid), as a daemonizing child does.
	"escape": func([]string) int {
		r, w, err := os.Pipe()
		if err != nil {
			return 98
		}
		c := exec.Command(testExe)
		c.Env = append(os.Environ(), helperEnv+"=grandchild")
		c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stdout, os.Stderr
		c.ExtraFiles = []*os.File{w}
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "escape:", err)
			return 98
		}
		w.Close()
		_, _ = io.ReadAll(r)
		_ = json.NewEncoder(os.Stdout).Encode(pids{Pid: os.Getpid(), Child: c.Process.Pid})
		if os.Getenv(leaderEnv) == "exit" {
			return 0
		}
		testkit.Hang()
		return 0
	},
	"grandchild": func([]string) int {
		signal.Ignore(syscall.SIGTERM)
		os.NewFile(3, "ready").Close()
		testkit.Hang()
		return 0
	},
	// exit exits at once with the code in codeEnv.
	"exit": func([]string) int {
		code, _ := strconv.Atoi(os.Getenv(codeEnv))
		return code
	},
	// stderr writes each argument as a line to stderr and "out" to stdout,
	// then exits when stdin ends.
	"stderr": func(args []string) int {
		for _, a := range args {
			fmt.Fprintln(os.Stderr, a)
		}
		fmt.Println("out")
		_, _ = io.Copy(io.Discard, os.Stdin)
		return 0
	},
	// crash writes args[0] lines to stderr and exits 3 at once.
	"crash": func(args []string) int {
		n, _ := strconv.Atoi(args[0])
		w := bufio.NewWriter(os.Stderr)
		for i := range n {
			fmt.Fprintf(w, "crash %d\n", i)
		}
		w.Flush()
		return 3
	},
	// flood writes args[0] MiB to stderr in lines of 1 KiB ("line NNNNNN "
	// and padding), then "done" to stdout, and exits 0.
	"flood": func(args []string) int {
		mib, _ := strconv.Atoi(args[0])
		w := bufio.NewWriterSize(os.Stderr, 64<<10)
		pad := strings.Repeat("x", 1024-len("line 000000 ")-1)
		for i := range mib * 1024 {
			fmt.Fprintf(w, "line %06d %s\n", i, pad)
		}
		if err := w.Flush(); err != nil {
			return 1
		}
		fmt.Println("done")
		return 0
	},
	// marker creates the file args[0] and exits.
	"marker": func(args []string) int {
		_ = os.WriteFile(args[0], []byte("started"), 0o600)
		return 0
	},
	// host plays a Switchboard host: it starts a "fork" server with a
	// Registry at registryEnv, relays the server's pids line to its own
	// stdout, and waits to be killed.
	"host": func([]string) int {
		role := os.Getenv(serverEnv)
		if role == "" {
			role = "fork"
		}
		spec := Spec{Name: "pdeathsig", Command: testExe,
			Env:    map[string]EnvValue{helperEnv: Literal(role)},
			Stderr: Stderr{Kind: StderrDiscard}}
		p, err := Start(context.Background(), spec, StartOptions{Registry: NewRegistry(os.Getenv(registryEnv))})
		if err != nil {
			fmt.Fprintln(os.Stderr, "host:", err)
			return 97
		}
		line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
		if err != nil {
			fmt.Fprintln(os.Stderr, "host:", err)
			return 96
		}
		os.Stdout.WriteString(line)
		testkit.Hang()
		return 0
	},
}

func ready() { fmt.Println("ready") }

// Short graces keep the ladder tests fast; the bounds on timings are loose.
const (
	testStdinGrace = 250 * time.Millisecond
	testTermGrace  = 250 * time.Millisecond
	// lineTimeout bounds the wait for a helper's first line: starting the
	// race-enabled test binary many times at once is slow on 2 cores.
	lineTimeout = 30 * time.Second
	// doneTimeout bounds a whole stop ladder in the tests.
	doneTimeout = 30 * time.Second
)

// helperSpec is a spec that runs the helper role with args, stderr
// discarded and short graces.
func helperSpec(role string, args ...string) Spec {
	return Spec{
		Name:       "helper-" + role,
		Command:    testExe,
		Args:       args,
		Env:        map[string]EnvValue{helperEnv: Literal(role)},
		Stderr:     Stderr{Kind: StderrDiscard},
		StdinGrace: testStdinGrace,
		TermGrace:  testTermGrace,
	}
}

// server is a started helper and a reader of its stdout.
type server struct {
	*Process
	out   *bufio.Reader
	start uint64 // the leader's start time, to tell it from a reused pid
}

// startServer starts spec and makes sure the test ends its tree.
func startServer(t testing.TB, spec Spec, opts StartOptions) *server {
	t.Helper()
	p, err := Start(context.Background(), spec, opts)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	st, _ := readProc(p.Pid())
	t.Cleanup(func() {
		select {
		case <-p.Stop():
		case <-time.After(doneTimeout):
			t.Errorf("cleanup: the stop ladder of pid %d did not finish", p.Pid())
		}
	})
	return &server{Process: p, out: bufio.NewReader(p.Stdout()), start: st.Start}
}

// line reads one line of the server's stdout, without the newline.
func (s *server) line(t testing.TB) string {
	t.Helper()
	type res struct {
		s   string
		err error
	}
	c := make(chan res, 1)
	go func() {
		l, err := s.out.ReadString('\n')
		c <- res{strings.TrimSuffix(l, "\n"), err}
	}()
	select {
	case r := <-c:
		if r.err != nil {
			t.Fatalf("reading the stdout of pid %d: %v (got %q)", s.Pid(), r.err, r.s)
		}
		return r.s
	case <-time.After(lineTimeout):
		t.Fatalf("pid %d wrote no line to stdout in %v", s.Pid(), lineTimeout)
	}
	return ""
}

// pids reads the line of a forking helper.
func (s *server) pids(t testing.TB) pids {
	t.Helper()
	var ids pids
	l := s.line(t)
	if err := json.Unmarshal([]byte(l), &ids); err != nil || ids.Pid != s.Pid() || ids.Child == 0 {
		t.Fatalf("bad pids line %q from pid %d (%v)", l, s.Pid(), err)
	}
	return ids
}

// stop runs the ladder and returns how long it took.
func (s *server) stop(t testing.TB) time.Duration {
	t.Helper()
	t0 := time.Now()
	select {
	case <-s.Stop():
	case <-time.After(doneTimeout):
		t.Fatalf("the stop ladder of pid %d did not finish in %v", s.Pid(), doneTimeout)
	}
	return time.Since(t0)
}

// waitExited waits for the leader to exit by itself.
func (s *server) waitExited(t testing.TB, d time.Duration) {
	t.Helper()
	select {
	case <-s.Exited():
	case <-time.After(d):
		t.Fatalf("pid %d did not exit within %v", s.Pid(), d)
	}
}

// assertGone checks that, after Done, nothing of the server's tree is
// left: no live member of its process group, none of the other pids
// alive, and the leader reaped (not our zombie).
func (s *server) assertGone(t testing.TB, others ...int) {
	t.Helper()
	if live := liveGroupMembers(s.Pid()); len(live) > 0 {
		t.Errorf("after Done, process group %d still has live members %v", s.Pid(), live)
		defer syscall.Kill(-s.Pid(), syscall.SIGKILL) // leave nothing behind a failed test
	}
	if st, ok := readProc(s.Pid()); ok && st.Start == s.start && st.PPid == os.Getpid() {
		t.Errorf("after Done, the leader %d is still our child (state %c): not reaped", s.Pid(), st.State)
	}
	for _, pid := range others {
		if isLive(pid) {
			st, _ := readProc(pid)
			t.Errorf("after Done, pid %d is still alive (state %c, group %d)", pid, st.State, st.Pgrp)
			defer syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// procInfo is what the tests read of a process from the OS.
type procInfo struct {
	State byte // 'Z' for a zombie
	PPid  int
	Pgrp  int
	Start uint64
}

// isLive reports whether pid runs: it exists and is not a zombie. (PID 1
// of some containers never reaps, so a dead orphan may stay a zombie.)
func isLive(pid int) bool {
	st, ok := readProc(pid)
	return ok && st.State != 'Z' && st.State != 'X'
}

// syncBuffer is a bytes buffer safe for a writer and a reader at once.
type syncBuffer = testkit.SyncBuffer
