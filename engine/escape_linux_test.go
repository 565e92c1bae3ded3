//go:build linux

package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// Members that leave the process group: a server's descendant that calls
// setsid() (a daemonizing child) is no longer reached by a signal to the
// group. The ladder follows it by descent and by its token, the host
// adopts it as a child subreaper, and a later sweep finds it by its token.

func init() {
	helpers["subhost"] = runSubhost
}

// subhostReport is what the "subhost" helper prints once its server is
// stopped.
type subhostReport struct {
	Errors []string `json:"errors"`
	Waited int      `json:"waited"` // own children whose Wait saw their exit code
}

// runSubhost plays a host that is a child subreaper: it starts an
// "escape" server whose leader exits at once (its escaped grandchild is
// re-parented to this process), relays the server's pids, and on a line
// on stdin stops the server while it starts and waits for children of its
// own (in its group with os/exec, and in a group of their own through
// StartChild): their Wait must see their real status, never ECHILD from
// the orphan reaper. Then it prints a subhostReport and waits to be killed.
func runSubhost([]string) int {
	if err := BecomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "subhost:", err)
		return 97
	}
	spec := Spec{Name: "escape", Command: testExe,
		Env:        map[string]EnvValue{helperEnv: Literal("escape"), leaderEnv: Literal("exit")},
		Stderr:     Stderr{Kind: StderrDiscard},
		StdinGrace: testStdinGrace, TermGrace: testTermGrace}
	p, err := Start(context.Background(), spec, StartOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "subhost:", err)
		return 97
	}
	line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
	if err != nil {
		fmt.Fprintln(os.Stderr, "subhost:", err)
		return 96
	}
	os.Stdout.WriteString(line)
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return 95
	}
	var mu sync.Mutex
	var rep subhostReport
	note := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			rep.Errors = append(rep.Errors, err.Error())
		} else {
			rep.Waited++
		}
	}
	check := func(what string, err error) error {
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 7 {
			return fmt.Errorf("%s: Wait = %v, want exit status 7", what, err)
		}
		return nil
	}
	child := func(setpgid bool) *exec.Cmd {
		c := exec.Command(testExe)
		c.Env = append(os.Environ(), helperEnv+"=exit", codeEnv+"=7")
		if setpgid {
			c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		}
		return c
	}
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 8 {
				note(check("os/exec child", child(false).Run()))
			}
		}()
		go func() {
			defer wg.Done()
			for range 8 {
				c := child(true)
				release, err := StartChild(c)
				if err != nil {
					note(err)
					continue
				}
				note(check("StartChild child", c.Wait()))
				release()
			}
		}()
	}
	<-p.Stop()
	wg.Wait()
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	testkit.Hang()
	return 0
}

// escapee checks that the grandchild left the server's group and session,
// and makes sure the test kills it whatever happens.
func escapee(t *testing.T, leader, pid int) procInfo {
	t.Helper()
	t.Cleanup(func() {
		if isLive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	st, ok := readProc(pid)
	if !ok || st.State == 'Z' {
		t.Fatalf("the escaped grandchild %d is not running", pid)
	}
	sid, _ := unix.Getsid(pid)
	if st.Pgrp == leader || sid != pid {
		t.Fatalf("the grandchild %d is in group %d, session %d: it did not escape the group of %d", pid, st.Pgrp, sid, leader)
	}
	return st
}

// TestStopEscapee: a grandchild that called setsid() (out of the group)
// and ignores SIGTERM ends with the server: the ladder finds it by descent.
func TestStopEscapee(t *testing.T) {
	t.Parallel()
	s := startServer(t, helperSpec("escape"), StartOptions{})
	ids := s.pids(t)
	escapee(t, s.Pid(), ids.Child)
	s.stop(t)
	if st := s.ExitStatus(); st.Signal != "SIGTERM" {
		t.Errorf("leader status %v, want killed by SIGTERM", st)
	}
	testkit.Eventually(t, fmt.Sprintf("the escaped grandchild %d gone after the stop ladder", ids.Child), func() bool { return !isLive(ids.Child) })
	s.assertGone(t)
}

// TestStopOrphanedEscapee: the server exits at once and leaves its escaped
// grandchild, now nobody's descendant, behind; the ladder finds it by its
// token.
func TestStopOrphanedEscapee(t *testing.T) {
	t.Parallel()
	spec := helperSpec("escape")
	spec.Env[leaderEnv] = Literal("exit")
	s := startServer(t, spec, StartOptions{})
	ids := s.pids(t)
	escapee(t, s.Pid(), ids.Child)
	s.waitExited(t, doneTimeout)
	testkit.Eventually(t, fmt.Sprintf("the grandchild %d re-parented after its parent exited", ids.Child), func() bool { st, _ := readProc(ids.Child); return st.PPid != s.Pid() })
	if live := liveGroupMembers(s.Pid()); len(live) != 0 {
		t.Fatalf("group %d still has %v: this test no longer shows a member outside it", s.Pid(), live)
	}
	s.stop(t)
	testkit.Eventually(t, fmt.Sprintf("the orphaned escapee %d gone after the stop ladder", ids.Child), func() bool { return !isLive(ids.Child) })
}

// TestSubreaperHost: a host that is a child subreaper adopts a server's
// escaped orphan, the ladder kills it, and the orphan reaper reaps its
// zombie, while the host's own children are still waited for by their
// own Wait.
func TestSubreaperHost(t *testing.T) {
	t.Parallel()
	host := exec.Command(testExe)
	host.Env = append(os.Environ(), helperEnv+"=subhost")
	host.Stderr = os.Stderr
	in, err := host.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	lines := make(chan string, 2)
	go func() {
		r := bufio.NewReader(out)
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	next := func(what string) string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("the subreaper host ended before %s", what)
			}
			return l
		case <-time.After(lineTimeout):
			t.Fatalf("the subreaper host wrote no %s in %v", what, lineTimeout)
		}
		return ""
	}
	var ids pids
	if l := next("pids"); json.Unmarshal([]byte(l), &ids) != nil || ids.Child == 0 {
		t.Fatalf("the host wrote %q", l)
	}
	escapee(t, ids.Pid, ids.Child)
	testkit.Eventually(t, fmt.Sprintf("the escaped orphan %d adopted by the subreaper host %d", ids.Child, host.Process.Pid), func() (bool, string) {
		st, _ := readProc(ids.Child)
		return st.PPid == host.Process.Pid, fmt.Sprintf("parent %d", st.PPid)
	})
	if _, err := in.Write([]byte("stop\n")); err != nil {
		t.Fatal(err)
	}
	var rep subhostReport
	if l := next("report"); json.Unmarshal([]byte(l), &rep) != nil {
		t.Fatalf("the host wrote %q", l)
	}
	for _, e := range rep.Errors {
		t.Errorf("subreaper host: %s", e)
	}
	if rep.Waited != 48 {
		t.Errorf("%d of the host's 48 own children were waited for rightly", rep.Waited)
	}
	// Killed by the ladder, and reaped by the host: not even a zombie.
	testkit.Eventually(t, fmt.Sprintf("the escaped orphan %d gone after the stop", ids.Child), func() (bool, string) {
		st, ok := readProc(ids.Child)
		return !ok, fmt.Sprintf("state %c, parent %d", st.State, st.PPid)
	})
}

// TestSweepEscapee: a killed host's server leaves its escaped grandchild
// (out of the group, re-parented away) running; the next host's sweep
// finds it by its token.
func TestSweepEscapee(t *testing.T) {
	t.Parallel()
	reg := filepath.Join(t.TempDir(), "procs.json")
	host := exec.Command(testExe)
	host.Env = append(os.Environ(), helperEnv+"=host", registryEnv+"="+reg, serverEnv+"=escape")
	host.Stderr = os.Stderr
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	l, err := bufio.NewReader(out).ReadString('\n')
	var ids pids
	if err != nil || json.Unmarshal([]byte(l), &ids) != nil || ids.Child == 0 {
		t.Fatalf("host wrote %q (%v)", l, err)
	}
	escapee(t, ids.Pid, ids.Child)
	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	testkit.Eventually(t, fmt.Sprintf("the server %d gone with its killed host", ids.Pid), func() bool { return !isLive(ids.Pid) })
	if !isLive(ids.Child) {
		t.Fatalf("the escapee %d died with the host: this test no longer shows what the sweep is for", ids.Child)
	}
	n, err := NewRegistry(reg).Sweep()
	if err != nil {
		t.Errorf("Sweep: %v", err)
	}
	if n != 1 {
		t.Errorf("Sweep killed %d processes, want 1 (the escapee)", n)
	}
	testkit.Eventually(t, fmt.Sprintf("the escapee %d gone after the sweep", ids.Child), func() bool { return !isLive(ids.Child) })
}
