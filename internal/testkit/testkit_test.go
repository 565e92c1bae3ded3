package testkit

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func TestModuleRoot(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "internal", "testkit", "testkit.go")); err != nil {
		t.Fatalf("moduleRoot %s is not this module's root: %v", root, err)
	}
}

func TestSkipOrFailSkipsOutsideCI(t *testing.T) {
	t.Setenv("CI", "")
	var skipped bool
	t.Run("missing", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		NpmServer(t, "no-such-npm-server")
		t.Error("NpmServer returned for a server that is not installed")
	})
	if !skipped {
		t.Error("a missing npm server did not skip the test outside CI")
	}
}

func TestSyncBuffer(t *testing.T) {
	var b SyncBuffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			_, _ = b.Write([]byte("x"))
		}
	}()
	for range 100 {
		_ = b.String()
	}
	<-done
	if got := len(b.String()); got != 100 {
		t.Errorf("got %d bytes, want 100", got)
	}
}

// TestSkipOrFailFailsInCI runs SkipOrFail in a child test binary with
// CI=true: the child must fail, not skip.
func TestSkipOrFailFailsInCI(t *testing.T) {
	if os.Getenv("TESTKIT_CHILD") == "1" {
		SkipOrFail(t, "a piece is missing")
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestSkipOrFailFailsInCI$", "-test.v")
	cmd.Env = append(os.Environ(), "TESTKIT_CHILD=1", "CI=true")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--- FAIL") || !strings.Contains(string(out), "CI=true") {
		t.Fatalf("with CI=true SkipOrFail did not fail the test: %v\n%s", err, out)
	}
}

var testExe string

func TestMain(m *testing.M) {
	HelperMain(&testExe, "TESTKIT_HELPER", map[string]func() int{
		"exe": func() int { fmt.Print(testExe); return 7 }, // testExe is set before a helper runs
		// stdin reads its stdin to the end: it runs as long as the
		// process that holds the pipe's other end.
		"stdin": func() int { _, _ = io.Copy(io.Discard, os.Stdin); return 0 },
	})
	os.Exit(Run(m))
}

func TestHelperMain(t *testing.T) {
	run := func(role string) (string, int) {
		cmd := exec.Command(testExe)
		cmd.Env = append(os.Environ(), "TESTKIT_HELPER="+role)
		out, _ := cmd.Output()
		return string(out), cmd.ProcessState.ExitCode()
	}
	if out, code := run("exe"); out != testExe || code != 7 {
		t.Errorf("helper exe: printed %q, exit %d; want %q, exit 7", out, code, testExe)
	}
	if _, code := run("nope"); code != 99 {
		t.Errorf("an unknown helper exits %d, want 99", code)
	}
}

// TestEventually: a condition that comes true passes; one that never does
// fails the test with what was awaited and the last state (with a short
// deadline, on a testing.TB that records the failure).
func TestEventually(t *testing.T) {
	n := 0
	Eventually(t, "the third poll", func() bool { n++; return n == 3 })
	if n != 3 {
		t.Errorf("polled %d times, want 3", n)
	}
	m := 0
	Eventually(t, "the second poll", func() (bool, string) { m++; return m == 2, "not yet" })
	if m != 2 {
		t.Errorf("polled %d times, want 2", m)
	}
	for _, tc := range []struct {
		what, want string
		run        func(tb testing.TB)
	}{
		{"never", "never: not within 50ms", func(tb testing.TB) { eventually(tb, "never", func() bool { return false }, 50*time.Millisecond) }},
		{"never with state", "never with state: not within 50ms; last: 7 left", func(tb testing.TB) {
			eventually(tb, "never with state", func() (bool, string) { return false, "7 left" }, 50*time.Millisecond)
		}},
	} {
		f := &fatalTB{TB: t}
		done := make(chan struct{})
		go func() { defer close(done); tc.run(f) }()
		<-done
		if f.msg != tc.want {
			t.Errorf("%s: failed with %q, want %q", tc.what, f.msg, tc.want)
		}
	}
}

// fatalTB records a Fatalf and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestRunNamesALeftChild runs TestLeaveAChild in a child test binary: it
// starts a helper and leaves it running, so Run must fail the binary that
// passed its tests and name the helper. A binary whose test stops its
// child passes.
func TestRunNamesALeftChild(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Run checks children on Linux only")
	}
	for _, leave := range []bool{true, false} {
		cmd := exec.Command(testExe, "-test.run=^TestLeaveAChild$", "-test.v")
		cmd.Env = append(os.Environ(), "TESTKIT_LEAVE_CHILD="+fmt.Sprint(leave))
		out, err := cmd.CombinedOutput()
		code := cmd.ProcessState.ExitCode()
		if !strings.Contains(string(out), "--- PASS: TestLeaveAChild") {
			t.Fatalf("leave=%v: the child binary's test did not pass (%v):\n%s", leave, err, out)
		}
		named := strings.Contains(string(out), "still running after the tests") && strings.Contains(string(out), "TESTKIT_HELPER=stdin")
		if leave && (code != 1 || !named) {
			t.Errorf("a binary that left its child running exited %d; want 1, naming the child:\n%s", code, out)
		}
		if !leave && (code != 0 || named) {
			t.Errorf("a binary that stopped its child exited %d; want 0:\n%s", code, out)
		}
	}
}

// TestLeaveAChild is TestRunNamesALeftChild's: run alone with
// TESTKIT_LEAVE_CHILD set, it starts a helper reading a pipe whose other
// end it keeps, and leaves it running (true) or stops it (false). The
// helper ends when this binary exits and the pipe closes.
func TestLeaveAChild(t *testing.T) {
	leave := os.Getenv("TESTKIT_LEAVE_CHILD")
	if leave == "" {
		t.Skip("run by TestRunNamesALeftChild")
	}
	childGrace = 200 * time.Millisecond
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(testExe)
	cmd.Env = append(os.Environ(), "TESTKIT_HELPER=stdin")
	cmd.Stdin = r
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r.Close()
	Eventually(t, "the helper among Children", func() (bool, string) {
		c := Children()
		return slices.ContainsFunc(c, func(s string) bool { return strings.HasPrefix(s, fmt.Sprint(cmd.Process.Pid)+" ") }), fmt.Sprint(c)
	})
	if leave == "false" {
		w.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		return
	}
	leftPipe = w // kept open until the binary exits
}

var leftPipe *os.File

// TestAdvance: in a bubble, Advance runs the timers due within d (and
// not those after), on the bubble's clock, at once.
func TestAdvance(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		fired := make(chan time.Duration, 2)
		time.AfterFunc(time.Hour, func() { fired <- time.Since(start) })
		time.AfterFunc(3*time.Hour, func() { fired <- time.Since(start) })
		Advance(2 * time.Hour)
		if len(fired) != 1 {
			t.Fatalf("%d timers fired after 2h, want 1", len(fired))
		}
		if d := <-fired; d != time.Hour {
			t.Errorf("the timer fired at %v, want 1h", d)
		}
	})
	defer func() {
		if recover() == nil {
			t.Error("Advance outside a bubble did not panic")
		}
	}()
	Advance(time.Hour)
}
