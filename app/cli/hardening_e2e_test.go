//go:build linux

package cli

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// End-to-end tests of a real `switchboard serve` against what a hostile
// or unlucky machine does: signals from a closing terminal, a closed
// pipe, servers whose children escape, a slow login shell (issue 11).

func init() {
	// escaper is a server whose grandchild escapes: a detacher child
	// starts it in a session of its own (setsid) and exits, so that the
	// grandchild is out of the server's process group and nobody's
	// descendant but the host's, which adopts it as a child subreaper.
	helpers["escaper"] = func() int {
		d := exec.Command(testExe)
		d.Env = append(os.Environ(), helperEnv+"=detacher")
		if err := d.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "escaper:", err)
			return 1
		}
		return runModern()
	}
	helpers["detacher"] = func() int {
		c := exec.Command(testExe)
		c.Env = append(os.Environ(), helperEnv+"=escapee")
		c.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := c.Start(); err != nil {
			fmt.Fprintln(os.Stderr, "detacher:", err)
			return 1
		}
		return 0
	}
	// escapee ignores SIGTERM, writes its pid and start time to
	// gcFileEnv, and hangs (testkit.Hang: with nothing else to run, the
	// runtime would end a bare select{} as a deadlock).
	helpers["escapee"] = func() int {
		signal.Ignore(syscall.SIGTERM)
		me := os.Getpid()
		if err := os.WriteFile(os.Getenv(gcFileEnv), fmt.Appendf(nil, "%d %d\n", me, procStart(me)), 0o600); err != nil {
			return 1
		}
		testkit.Hang()
		return 0
	}
}

// grandchildPid waits for the grandchild's "PID START" file.
func grandchildPid(t *testing.T, file string) (int, uint64) {
	t.Helper()
	var pid int
	var start uint64
	testkit.Eventually(t, "the grandchild reports its pid", func() (bool, string) {
		b, err := os.ReadFile(file)
		if err != nil {
			return false, err.Error()
		}
		f := strings.Fields(string(b))
		if len(f) != 2 {
			return false, string(b)
		}
		pid, _ = strconv.Atoi(f[0])
		start, _ = strconv.ParseUint(f[1], 10, 64)
		return pid > 0, string(b)
	})

	return pid, start
}

func ppidOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	p, _ := strconv.Atoi(f[1])
	return p
}

// TestE2ESighup: SIGHUP (the terminal of `switchboard serve &` closed)
// stops the host like SIGTERM: the "stopping" line, every ladder, nothing
// left; among the servers one whose grandchild escaped its process group
// and was adopted by the host.
func TestE2ESighup(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	sb.cli(t, sb.helperArgs("stubborn", "modern", "--env", stayEnv+"=term")...)
	gcFile := filepath.Join(sb.root, "grandchild")
	sb.cli(t, sb.helperArgs("escaper", "escaper", "--env", gcFileEnv+"="+gcFile)...)
	sb.shortLadders(t)
	// A terminal's host starts with SIGHUP at its default. This test may
	// run under nohup (SIGHUP ignored, which a child inherits, and which
	// the host rightly keeps): handling SIGHUP here makes the exec reset
	// it to the default for the host.
	if signal.Ignored(syscall.SIGHUP) {
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		defer signal.Stop(hup)
	}
	h := sb.serve(t)
	sb.waitRunning(t, "stubborn")
	sb.waitRunning(t, "escaper")
	gc, start := grandchildPid(t, gcFile)
	if pgid, _ := syscall.Getpgid(gc); pgid != gc {
		t.Fatalf("the grandchild %d is in group %d: it did not escape", gc, pgid)
	}
	testkit.Eventually(t, "the host adopts the escaped grandchild", func() (bool, string) {
		p := ppidOf(gc)
		return p == h.pid(), fmt.Sprintf("parent %d, host %d", p, h.pid())
	})

	if err := h.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if code := h.wait(t, wait); code != 0 {
		t.Fatalf("the host exited with %d after SIGHUP:\n%s", code, h.stderr.String())
	}
	// Checked the moment the host is gone: it waited for every ladder.
	if left := marked(sb.mark); len(left) > 0 {
		t.Fatalf("processes left when the host exited: %v", left)
	}
	if alive(gc, start) {
		t.Fatalf("the escaped grandchild %d outlived the host", gc)
	}
	log := h.stderr.String()
	if !strings.Contains(log, `msg="host stopping" reason="signal hangup"`) || !strings.Contains(log, "every server stopped") {
		t.Errorf("the host's log:\n%s", log)
	}
}

// TestE2EClosedStderr: the host's stdout and stderr are a pipe whose
// reader goes away (`switchboard serve 2>&1 | head -c 300`); the host
// survives its next log lines, keeps writing them to host.log, and still
// answers.
func TestE2EClosedStderr(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sbBin, "serve")
	cmd.Env = sb.env
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			cmd.Process.Kill()
			select {
			case <-done:
			case <-time.After(wait):
				t.Errorf("the host (pid %d) did not end after SIGKILL", cmd.Process.Pid)
			}
		}
	})
	// Read up to "host ready", as head would, then go away.
	br := bufio.NewReader(r)
	for {
		l, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the host's output ended before it was ready: %v", err)
		}
		if strings.Contains(l, `msg="host ready"`) {
			break
		}
	}
	r.Close()

	// More log lines: a server added (a reload), started, and a bad one.
	sb.cli(t, sb.helperArgs("late", "modern")...)
	sb.waitRunning(t, "late")
	sb.cli(t, "servers", "add", "missing", "--", "switchboard-no-such-command")
	select {
	case <-done:
		t.Fatalf("the host died after its stderr closed: %v", waitErr)
	default:
	}
	st := sb.status(t)
	if st.Host == nil || st.Host.PID != cmd.Process.Pid {
		t.Fatalf("status after the pipe closed: host %+v, want pid %d", st.Host, cmd.Process.Pid)
	}
	testkit.Eventually(t, "host.log has the lines logged after stderr closed", func() (bool, string) {
		b, _ := os.ReadFile(sb.logPath())
		return strings.Contains(string(b), "missing"), string(b)
	})

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
		if waitErr != nil {
			t.Fatalf("the host exited with %v after SIGTERM", waitErr)
		}
	case <-time.After(wait):
		t.Fatal("the host did not exit after SIGTERM")
	}
	b, _ := os.ReadFile(sb.logPath())
	if !strings.Contains(string(b), "every server stopped") {
		t.Errorf("host.log lacks the end of the stop:\n%s", b)
	}
}

// TestE2ELoginShellOfStatusAndHost: `status` without a host asks the login shell
// for the PATH a host gives servers (one resolution everywhere, the
// host's: issue 27 §12), and the host asks it too.
func TestE2ELoginShellOfStatusAndHost(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	marker := filepath.Join(sb.root, "shell-ran")
	shell := filepath.Join(sb.root, "fakesh")
	script := "#!/bin/sh\necho ran >> " + marker + "\nprintf '\\n__SWITCHBOARD_PATH_START__\\n%s\\n__SWITCHBOARD_PATH_END__\\n' \"$PATH\"\n"
	if err := os.WriteFile(shell, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	sb.env = sb.with("SHELL=" + shell)
	sb.cli(t, sb.helperArgs("a", "modern")...)
	if out := sb.cli(t, "status"); !strings.Contains(out, "no host is running") {
		t.Fatalf("status without a host:\n%s", out)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("status without a host did not ask the login shell")
	}
	if err := os.Remove(marker); err != nil {
		t.Fatal(err)
	}
	sb.serve(t)
	sb.waitRunning(t, "a")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the host did not ask the login shell: %v", err)
	}
}
