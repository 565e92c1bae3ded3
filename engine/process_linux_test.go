//go:build linux

package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestLeaderUnreapedUntilSignalled: a leader that exits by itself while
// its child runs stays a zombie, holding its pid and group id, until the
// ladder has ended the group; then it is reaped.
func TestLeaderUnreapedUntilSignalled(t *testing.T) {
	t.Parallel()
	spec := helperSpec("fork")
	spec.Env[leaderEnv] = Literal("exit")
	s := startServer(t, spec, StartOptions{})
	ids := s.pids(t)
	s.waitExited(t, doneTimeout)
	if st := s.ExitStatus(); st != (ExitStatus{Exited: true, Code: 0}) {
		t.Errorf("status %v, want exit status 0", st)
	}
	zombie := func(when string) {
		t.Helper()
		st, ok := readProc(s.Pid())
		if !ok || st.State != 'Z' || st.PPid != os.Getpid() || st.Start != s.start {
			t.Fatalf("%s: leader %d is %+v (exists %v), want our unreaped zombie", when, s.Pid(), st, ok)
		}
	}
	zombie("after it exited")
	if !isLive(ids.Child) {
		t.Fatalf("the grandchild %d is not running", ids.Child)
	}
	done := s.Stop()
	// The grandchild ignores EOF and SIGTERM: the group is SIGKILLed after
	// both graces, and the leader is reaped only then.
	time.Sleep(testStdinGrace / 2)
	zombie("during the stdin grace")
	time.Sleep(testStdinGrace)
	select {
	case <-done:
		t.Fatal("the ladder finished before the SIGKILL step")
	default:
		zombie("during the term grace")
	}
	s.stop(t)
	s.assertGone(t, ids.Child)
	if _, ok := readProc(s.Pid()); ok {
		st, _ := readProc(s.Pid())
		if st.Start == s.start {
			t.Errorf("after Done, the leader is still there: %+v", st)
		}
	}
}

// startHost runs the "host" helper, which starts a forking server with a
// registry at reg, and returns the host and the server's pids.
func startHost(t *testing.T, reg string) (*exec.Cmd, pids) {
	t.Helper()
	host := exec.Command(testExe)
	host.Env = append(os.Environ(), helperEnv+"=host", registryEnv+"="+reg)
	host.Stderr = os.Stderr
	out, err := host.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { host.Process.Kill(); host.Wait() })
	lines := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		lines <- l
	}()
	var ids pids
	select {
	case l := <-lines:
		if err := json.Unmarshal([]byte(l), &ids); err != nil || ids.Pid == 0 || ids.Child == 0 {
			t.Fatalf("host wrote %q (%v)", l, err)
		}
	case <-time.After(lineTimeout):
		t.Fatal("the host wrote no pids")
	}
	// Whatever happens, kill what the test started.
	t.Cleanup(func() {
		for _, pid := range []int{ids.Pid, ids.Child} {
			if isLive(pid) {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	return host, ids
}

// TestHostKilled: when the host is SIGKILLed, Pdeathsig ends the server at
// once; its grandchild, which the OS cannot tie to the host, survives until
// the next host's Registry.Sweep kills it.
func TestHostKilled(t *testing.T) {
	t.Parallel()
	reg := filepath.Join(t.TempDir(), "procs.json")
	host, ids := startHost(t, reg)
	st, _ := readProc(ids.Child)
	if st.Pgrp != ids.Pid {
		t.Fatalf("the grandchild is in group %d, want %d", st.Pgrp, ids.Pid)
	}
	if b, err := os.ReadFile(reg); err != nil || !strings.Contains(string(b), `"pgid":`+strconv.Itoa(ids.Pid)) {
		t.Fatalf("the registry holds %q (%v), want the server's group", b, err)
	}

	if err := host.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	host.Wait()
	testkit.Eventually(t, fmt.Sprintf("the server %d gone with its killed host (Pdeathsig)", ids.Pid), func() bool { return !isLive(ids.Pid) })
	// (Had the grandchild died with the host as well, Sweep below would
	// find nothing to kill, and the count check fails too.)
	if !isLive(ids.Child) {
		t.Fatalf("the grandchild %d died with the host: this test no longer shows what Sweep is for", ids.Child)
	}

	n, err := NewRegistry(reg).Sweep()
	if err != nil {
		t.Errorf("Sweep: %v", err)
	}
	if n != 1 {
		t.Errorf("Sweep killed %d processes, want 1 (the grandchild)", n)
	}
	testkit.Eventually(t, fmt.Sprintf("the grandchild %d gone after the sweep", ids.Child), func() bool { return !isLive(ids.Child) })
	if live := liveGroupMembers(ids.Pid); len(live) > 0 {
		t.Errorf("group %d still has %v", ids.Pid, live)
	}
	// The record is gone: a second sweep finds nothing.
	if n, err := NewRegistry(reg).Sweep(); n != 0 || err != nil {
		t.Errorf("second Sweep = %d, %v", n, err)
	}
}

// startStranger starts a process that the engine did not start: the test
// binary sleeping in a group of its own, or in group pgid if not 0.
func startStranger(t *testing.T, pgid int, env ...string) (pid int, start uint64) {
	t.Helper()
	c := exec.Command(testExe)
	c.Env = append(append(os.Environ(), helperEnv+"=ignore-term"), env...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	out, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Process.Kill(); c.Wait() })
	if l, _ := bufio.NewReader(out).ReadString('\n'); l != "ready\n" {
		t.Fatalf("stranger wrote %q", l)
	}
	st, ok := readProc(c.Process.Pid)
	if !ok {
		t.Fatal("no stranger")
	}
	return c.Process.Pid, st.Start
}

func writeRegistry(t *testing.T, path string, ids ...Identity) {
	t.Helper()
	b, err := json.Marshal(ids)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSweepSparesStrangers: a record whose pid or group now belongs to
// another process never gets it killed.
func TestSweepSparesStrangers(t *testing.T) {
	t.Parallel()
	boot := bootID()
	leader, leaderStart := startStranger(t, 0)
	member, _ := startStranger(t, leader)
	tokened, tokenedStart := startStranger(t, 0, TokenEnv+"=the-token")
	reg := filepath.Join(t.TempDir(), "procs.json")
	writeRegistry(t, reg,
		// The leader's pid with another start time: a reused pid.
		Identity{Server: "reused", PID: leader, PGID: leader, Start: leaderStart + 1, Boot: boot, Token: "t1"},
		// A group whose recorded leader is gone, now someone else's group:
		// its members lack the token.
		Identity{Server: "group", PID: 1 << 22, PGID: leader, Start: leaderStart - 1, Boot: boot, Token: "t2"},
		// The right process, the right token, but a record of another boot.
		Identity{Server: "boot", PID: tokened, PGID: tokened, Start: tokenedStart, Boot: "another-boot", Token: "the-token"},
		// The right token, but the process started before the recorded
		// leader: it cannot be its descendant.
		Identity{Server: "older", PID: 1 << 22, PGID: tokened, Start: tokenedStart + 100, Boot: boot, Token: "the-token"},
	)
	n, err := NewRegistry(reg).Sweep()
	if n != 0 || err != nil {
		t.Errorf("Sweep = %d, %v; want 0 killed", n, err)
	}
	if !isLive(tokened) {
		t.Errorf("Sweep killed the stranger %d", tokened)
	}

	// The control: the same process, recorded rightly, is killed.
	writeRegistry(t, reg, Identity{Server: "ours", PID: tokened, PGID: tokened, Start: tokenedStart, Boot: boot, Token: "the-token"})
	if n, err := NewRegistry(reg).Sweep(); n != 1 || err != nil {
		t.Errorf("control Sweep = %d, %v; want 1", n, err)
	}
	testkit.Eventually(t, "the control process gone", func() bool { return !isLive(tokened) })
	// A SIGKILL the first Sweep had sent to the strangers came before the
	// control's, which has taken effect: they would be gone by now.
	for _, pid := range []int{leader, member} {
		if !isLive(pid) {
			t.Errorf("Sweep killed the stranger %d", pid)
		}
	}
}

func TestSweepBadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	n, err := NewRegistry(filepath.Join(dir, "missing", "procs.json")).Sweep()
	if n != 0 || err != nil {
		t.Errorf("missing file: Sweep = %d, %v", n, err)
	}
	for _, body := range []string{"{not json", "", "null", `[{"pid":"x"}]`, `{"pid":1}`, `[{"pid":1,"pgid":1,"boot":"x"}]`} {
		path := filepath.Join(dir, "procs.json")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		n, err := NewRegistry(path).Sweep() // must not panic
		if n != 0 {
			t.Errorf("%q: Sweep killed %d", body, n)
		}
		t.Logf("%q: %v", body, err)
		// The file is usable afterwards.
		if n, err := NewRegistry(path).Sweep(); n != 0 || err != nil {
			t.Errorf("%q: second Sweep = %d, %v", body, n, err)
		}
	}
}

// TestRegistryCleared: a server stopped normally leaves no record.
func TestRegistryCleared(t *testing.T) {
	t.Parallel()
	reg := filepath.Join(t.TempDir(), "procs.json")
	r := NewRegistry(reg)
	s1 := startServer(t, helperSpec("fork"), StartOptions{Registry: r})
	s2 := startServer(t, helperSpec("eof"), StartOptions{Registry: r})
	ids := s1.pids(t)
	s2.line(t)
	var recs []Identity
	b, _ := os.ReadFile(reg)
	if err := json.Unmarshal(b, &recs); err != nil || len(recs) != 2 {
		t.Fatalf("registry %q (%v), want 2 records", b, err)
	}
	for _, rec := range recs {
		if rec.PID != rec.PGID || (rec.PID != s1.Pid() && rec.PID != s2.Pid()) || rec.Boot != bootID() || len(rec.Token) != 32 {
			t.Errorf("record %+v", rec)
		}
	}
	s1.Stop()
	s2.stop(t)
	s1.stop(t)
	s1.assertGone(t, ids.Child)
	b, _ = os.ReadFile(reg)
	recs = nil
	if err := json.Unmarshal(b, &recs); err != nil || len(recs) != 0 {
		t.Errorf("after Stop the registry holds %q", b)
	}
}
