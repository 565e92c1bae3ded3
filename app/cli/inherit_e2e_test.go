//go:build linux

package cli

// What a host and its servers inherit (issue 25, items 5 and 6): an AI
// app's open descriptors and its environment's switches reach neither
// the host that its bridge starts on demand nor any server; and the
// shipped program (sbBin is built without the switchboard_testhooks tag)
// ignores the switches that weaken enforcement.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	sbx "github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const fdFileEnv = "SBTEST_FD_FILE" // fdlister: where it writes its descriptors

func init() {
	// fdlister writes the descriptors it inherited ("FD TARGET" lines),
	// then serves as modern does. An inherited descriptor is one without
	// close-on-exec (it came through exec); the Go runtime's own (a
	// cgroup file, the poller) have the flag.
	helpers["fdlister"] = func() int {
		var lines []string
		for fd := 0; fd < 1024; fd++ {
			l, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
			if err != nil {
				continue
			}
			if flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); e == 0 && flags&syscall.FD_CLOEXEC == 0 {
				lines = append(lines, fmt.Sprintf("%d %s", fd, l))
			}
		}
		if err := os.WriteFile(os.Getenv(fdFileEnv), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "fdlister:", err)
			return 1
		}
		return runModern()
	}
}

// leaks are descriptors of this process without close-on-exec, as an AI
// app or a terminal may leave them: a file and both ends of a pipe. Every
// process started while they are open inherits them.
type leaks struct {
	fds     []int
	targets []string // their /proc/PID/fd link targets
}

func openLeaks(t *testing.T, dir string) *leaks {
	t.Helper()
	path := filepath.Join(dir, "app-secret.txt")
	if err := os.WriteFile(path, []byte("the app's file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := syscall.Open(path, syscall.O_RDONLY, 0) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	var p [2]int
	if err := syscall.Pipe2(p[:], 0); err != nil { // no O_CLOEXEC
		t.Fatal(err)
	}
	l := &leaks{fds: []int{f, p[0], p[1]}}
	for _, fd := range l.fds {
		if flags, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0); e != 0 || flags&syscall.FD_CLOEXEC != 0 {
			t.Fatalf("descriptor %d: flags %#x, %v: want it inheritable", fd, flags, e)
		}
		target, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
		if err != nil {
			t.Fatal(err)
		}
		l.targets = append(l.targets, target)
	}
	t.Cleanup(l.close)
	return l
}

func (l *leaks) close() {
	for _, fd := range l.fds {
		syscall.Close(fd)
	}
	l.fds = nil
}

// held returns the descriptors of pid that are one of the leaks.
func (l *leaks) held(t *testing.T, pid int) []string {
	t.Helper()
	dir := "/proc/" + strconv.Itoa(pid) + "/fd"
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("listing the descriptors of pid %d: %v", pid, err)
	}
	var out []string
	for _, e := range ents {
		target, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err == nil && slices.Contains(l.targets, target) {
			out = append(out, e.Name()+" -> "+target)
		}
	}
	return out
}

// checkServerFDs fails unless the server inherited exactly 0, 1 and 2 (the
// engine adds no descriptor on purpose: no ExtraFiles).
func checkServerFDs(t *testing.T, file string) {
	t.Helper()
	var got string
	testkit.Eventually(t, "the server lists its descriptors", func() (bool, string) {
		b, err := os.ReadFile(file)
		got = string(b)
		return err == nil && strings.HasSuffix(got, "\n"), fmt.Sprint(err)
	})
	var fds []string
	for _, line := range strings.Split(strings.TrimSpace(got), "\n") {
		fd, _, _ := strings.Cut(line, " ")
		fds = append(fds, fd)
	}
	if !slices.Equal(fds, []string{"0", "1", "2"}) {
		t.Errorf("the server inherited descriptors other than stdin, stdout and stderr:\n%s", got)
	}
}

// sdkOnlyEnv is a switch that an earlier host's test builds read (it took
// the gateway around the call pipeline's hooks); no program reads it now:
// kept to show that it does nothing.
const sdkOnlyEnv = "SWITCHBOARD_GATEWAY_SDK_ONLY"

// switches are the variables an app's environment must not pass to the
// host, with values that would weaken it.
var switches = []string{
	sbx.ABIEnv + "=0",
	sdkOnlyEnv + "=1",
	"SWITCHBOARD_CPUPROFILE=/nonexistent/host.prof",
	IdleTimeoutEnv + "=1h",
	"LD_PRELOAD=",
	"NODE_OPTIONS=--require=/nonexistent/evil.js",
}

// TestBridgeOnDemandHostInheritsNothing: an AI app with a file and a pipe
// open without close-on-exec, and the switches in its environment, starts
// the bridge with the SDKs' stripped environment; the bridge starts a host
// on demand. The host holds none of the app's descriptors and has none of
// its switches; the host's server has only stdin, stdout and stderr.
func TestBridgeOnDemandHostInheritsNothing(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSessionSandbox(t)
	env := append(only(sb.env, sdkDefaultEnvNames...), switches...)
	cfg := filepath.Join(sb.home, ".config", "switchboard", "config.json") // HOME's: the app passes no XDG_CONFIG_HOME
	fdFile := filepath.Join(sb.root, "server-fds")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	entry := map[string]any{"mcpServers": map[string]any{"srv": map[string]any{"command": testExe,
		"env": map[string]string{helperEnv: "fdlister", fdFileEnv: fdFile, markEnv: sb.mark, "GORACE": "atexit_sleep_ms=0"}}}}
	if err := os.WriteFile(cfg, mustJSON(t, entry), 0o600); err != nil {
		t.Fatal(err)
	}
	hostStatus := func(t *testing.T) statusOut {
		t.Helper()
		r := runEnv(t, env, "", "status", "--json")
		var st statusOut
		if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Host == nil {
			t.Fatalf("status --json: %v\n%s", err, r)
		}
		return st
	}

	for _, p := range []bridgeProgram{smallBridge(), bigBridge()} {
		t.Run(p.name, func(t *testing.T) {
			os.Remove(fdFile)
			l := openLeaks(t, sb.root)
			b := sb.bridgeProg(t, p, env, "")
			l.close() // the bridge has them; nothing started later needs them
			t.Cleanup(func() {
				if r := runEnv(t, env, "", "stop"); r.code != 0 {
					t.Errorf("stop: %s", r)
				}
				testkit.Eventually(t, "the on-demand host stops", func() (bool, string) {
					return len(hostsRunning()) == 0, fmt.Sprint(hostsRunning())
				})
			})
			if got := b.call(t, "srv__echo", map[string]any{"message": "hi"}); got != "echo: hi" {
				t.Fatalf("call through the on-demand host: %q (bridge stderr %q)", got, b.stderr.String())
			}
			st := hostStatus(t)
			if !st.Host.OnDemand {
				t.Fatalf("the host was not started on demand: %+v", st.Host)
			}
			hostPID := st.Host.PID
			if held := l.held(t, hostPID); len(held) > 0 {
				t.Errorf("the host (pid %d) holds the app's descriptors: %v", hostPID, held)
			}
			checkServerFDs(t, fdFile)

			henv := testkit.Environ(t, hostPID)
			for _, kv := range switches {
				name, _, _ := strings.Cut(kv, "=")
				if slices.ContainsFunc(henv, func(e string) bool { return strings.HasPrefix(e, name+"=") }) {
					t.Errorf("the host's environment has the app's %s: %q", name, henv)
				}
			}
			for _, kv := range only(env, "HOME", "PATH") {
				if !slices.Contains(henv, kv) {
					t.Errorf("the host's environment lacks the app's %s: %q", kv, henv)
				}
			}
		})
	}
}

// TestServeInheritsNothing: `switchboard serve` started from a terminal
// with a file and a pipe open and the test switches set: the host closes
// the descriptors at its start and its server gets only stdin, stdout and
// stderr; the shipped program keeps the gateway's own path
// (SWITCHBOARD_GATEWAY_SDK_ONLY ignored), and doctor reports the kernel's
// Landlock ABI (SWITCHBOARD_LANDLOCK_ABI ignored).
func TestServeInheritsNothing(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	fdFile := filepath.Join(sb.root, "server-fds")
	sb.cli(t, sb.helperArgs("srv", "fdlister", "--env", fdFileEnv+"="+fdFile)...)
	l := openLeaks(t, sb.root)
	h := startServe(t, sb.with(switches[:2]...))
	l.close()
	h.waitReady(t)
	sb.waitRunning(t, "srv")
	if held := l.held(t, h.pid()); len(held) > 0 {
		t.Errorf("the host (pid %d) holds the descriptors it inherited: %v", h.pid(), held)
	}
	checkServerFDs(t, fdFile)
	b := sb.bridge(t, "")
	if got := b.call(t, "srv__echo", map[string]any{"message": "hi"}); got != "echo: hi" {
		t.Errorf("call: %q", got)
	}
	if out := h.stderr.String(); strings.Contains(out, sdkOnlyEnv) {
		t.Errorf("the shipped host honours %s:\n%s", sdkOnlyEnv, out)
	}

	// doctor, in the shipped program, reports the kernel's ABI whatever
	// SWITCHBOARD_LANDLOCK_ABI says.
	real := sbx.Probe() // this test binary's environment does not set it
	if !real.Available() {
		testkit.SkipOrFail(t, "no Landlock here (%s): cannot check that doctor ignores %s", real, sbx.ABIEnv)
	}
	r := runEnv(t, sb.with(sbx.ABIEnv+"=0"), "", "doctor")
	if want := "ok    sandbox: landlock ABI " + strconv.Itoa(real.ABI); !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "forced") {
		t.Errorf("doctor with %s=0 in the shipped program: want %q\n%s", sbx.ABIEnv, want, r)
	}
}
