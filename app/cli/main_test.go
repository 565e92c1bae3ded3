//go:build linux

package cli

// Two kinds of tests live here. The unit tests call Main in this process
// with buffers. The end-to-end tests run the real binary, built once in
// TestMain: `switchboard serve` as a child process, driven by the CLI as
// separate processes whose stdout and exit codes they read.
//
// The servers of the end-to-end tests are real npm servers or this test
// binary re-executed as a helper, its role chosen by helperEnv in TestMain;
// only allowlisted variables reach a server, so a test puts helperEnv (and
// the helper's settings) in the entry's env.
//
// Every process a test starts (host, servers, their children, daemons)
// carries markEnv=<the test's mark> in its environment; at the end a test
// looks for processes with its mark, fails if any is left, and kills them.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	enginesandbox "github.com/switchboard-mcp/switchboard/engine/sandbox"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/hostrun"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const (
	helperEnv = "SWITCHBOARD_CLI_TEST_HELPER" // the helper's role
	markEnv   = "SBTEST_MARK"                 // marks every process of a test
	gcFileEnv = "SBTEST_GRANDCHILD_FILE"      // forker: where the grandchild writes "PID START"
	stayEnv   = "SBTEST_STAY"                 // modern: "term": ignore EOF and SIGTERM
)

var (
	testExe  string // this test binary
	sbBin    string // the switchboard binary, built by TestMain
	sbBridge string // switchboard-bridge, built by TestMain next to sbBin
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == enginesandbox.ShimArg { // an in-process host's sandbox shim is this binary
		os.Exit(enginesandbox.ShimMain(os.Args[2:]))
	}
	testkit.HelperMain(&testExe, helperEnv, helpers)
	dir, err := os.MkdirTemp("", "sbbin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		if err := buildBinary(dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		return testkit.Run(m)
	}()
	os.Exit(code)
}

// buildBinary builds the switchboard command and switchboard-bridge next to
// it, with -race if this test binary has it, so that the end-to-end tests
// run the host under the race detector too.
func buildBinary(dir string) error {
	// go test puts its own GOROOT/bin first in the test's PATH.
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("no go command to build switchboard with: %v", err)
	}
	sbBin = filepath.Join(dir, "switchboard")
	args := []string{"build", "-o", sbBin}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "github.com/switchboard-mcp/switchboard")
	cmd := exec.Command(goCmd, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	// The small bridge as the packages ship it (CGO_ENABLED=0), or with
	// -race (which needs cgo) when this test binary has it.
	sbBridge = filepath.Join(dir, "switchboard-bridge")
	args = []string{"build", "-o", sbBridge}
	if raceEnabled {
		args = append(args, "-race")
	}
	args = append(args, "github.com/switchboard-mcp/switchboard/app/bridge/cmd/switchboard-bridge")
	cmd = exec.Command(goCmd, args...)
	if !raceEnabled {
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

var helpers = map[string]func() int{
	"modern": runModern,
	"asker":  runModern, // modern with a roots tool (requests_test.go)
	"forker": func() int {
		if err := startGrandchild(); err != nil {
			fmt.Fprintln(os.Stderr, "forker:", err)
			return 1
		}
		return runModern()
	},
	// grandchild ignores SIGTERM and the end of its stdin, and writes its
	// pid and start time to gcFileEnv.
	"grandchild": func() int {
		signal.Ignore(syscall.SIGTERM)
		_, _ = io.Copy(io.Discard, os.Stdin)
		me := os.Getpid()
		if err := os.WriteFile(os.Getenv(gcFileEnv), fmt.Appendf(nil, "%d %d\n", me, procStart(me)), 0o600); err != nil {
			return 1
		}
		select {}
	},
}

// startGrandchild starts this binary as the grandchild (same process
// group, same environment: the host's server token included).
func startGrandchild() error {
	cmd := exec.Command(testExe)
	cmd.Env = append(os.Environ(), helperEnv+"=grandchild")
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// runModern is a go-sdk server (the 2026-07-28 era) with one tool, echo
// ("echo: MESSAGE"). With stayEnv=term it ignores SIGTERM and outlives the
// end of its stdin.
func runModern() int {
	if os.Getenv(stayEnv) == "term" {
		signal.Ignore(syscall.SIGTERM)
	}
	fmt.Fprintln(os.Stderr, "cli helper: serving")
	s := mcp.NewServer(&mcp.Implementation{Name: "cli-test-helper", Version: "1"}, nil)
	type echoArgs struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Message}}}, nil, nil
	})
	if os.Getenv(helperEnv) == "asker" {
		addRootsTool(s)
	}
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "cli helper:", err)
	}
	if os.Getenv(stayEnv) == "term" {
		select {}
	}
	return 0
}

// addRootsTool adds the asker's tool roots: the roots its client gives
// while it serves the call, asked for the 2026-07-28 way (an
// input_required round) since the host speaks that era to it.
func addRootsTool(s *mcp.Server) {
	s.AddTool(&mcp.Tool{Name: "roots", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		//lint:ignore SA1019 roots are deprecated as of 2026-07-28 and still carried for the eras before it
		lr, ok := req.Params.InputResponses["roots"].(*mcp.ListRootsResult)
		if !ok || req.Params.RequestState != "asked-roots" {
			//lint:ignore SA1019 roots are deprecated as of 2026-07-28 and still carried for the eras before it
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"roots": &mcp.ListRootsParams{}}, RequestState: "asked-roots"}, nil
		}
		var uris []string
		for _, r := range lr.Roots {
			uris = append(uris, r.URI)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("roots: %q", uris)}}}, nil
	})
	// confirm asks its client a yes-or-no question in an input_required
	// round, and says what the answer was.
	s.AddTool(&mcp.Tool{Name: "confirm", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		er, ok := req.Params.InputResponses["sure"].(*mcp.ElicitResult)
		if !ok || req.Params.RequestState != "asked-sure" {
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"sure": &mcp.ElicitParams{Message: "Delete everything?",
				RequestedSchema: json.RawMessage(`{"type":"object","properties":{"sure":{"type":"boolean","title":"Sure?"}},"required":["sure"]}`)}},
				RequestState: "asked-sure"}, nil
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("confirm: %s %v", er.Action, er.Content["sure"])}}}, nil
	})
}

// procStart is a process's start time in clock ticks since boot (field 22
// of /proc/PID/stat), or 0.
func procStart(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0
	}
	v, _ := strconv.ParseUint(f[19], 10, 64)
	return v
}

// alive reports whether pid runs (and is not a zombie); with start != 0,
// whether it is still the process that started then.
func alive(pid int, start uint64) bool {
	return !testkit.Gone(pid) && (start == 0 || procStart(pid) == start)
}

// marked returns the processes (other than this one) whose environment
// holds markEnv=mark, as "PID COMM".
func marked(mark string) map[int]string { return testkit.ProcsWithEnv(markEnv + "=" + mark) }

// syncBuffer is a bytes.Buffer safe for a writer and readers.
type syncBuffer = testkit.SyncBuffer

// wait bounds every wait: generous, since nothing here measures speed.
const wait = 45 * time.Second

// sandbox is one user's world: a runtime directory (lock, socket,
// registry), a config home, a cache home (host.log) and a HOME, all fresh,
// and the environment that points there.
type sandbox struct {
	root, runtime, configHome, cacheHome, home string
	mark                                       string
	env                                        []string
}

// newSandbox makes the directories under a short root (the socket's path
// must fit in 107 bytes) and removes them at the end, after checking that
// no process of the test is left.
func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root, err := os.MkdirTemp("", "sb")
	if err != nil {
		t.Fatal(err)
	}
	s := &sandbox{root: root, runtime: filepath.Join(root, "run"), configHome: filepath.Join(root, "cfg"),
		cacheHome: filepath.Join(root, "cache"), home: filepath.Join(root, "home"),
		mark: fmt.Sprintf("%s-%d-%d", strings.ReplaceAll(t.Name(), "/", "_"), os.Getpid(), time.Now().UnixNano())}
	for _, d := range []string{s.home, s.configHome, s.cacheHome} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		if strings.HasPrefix(k, "SWITCHBOARD_") || strings.HasPrefix(k, "XDG_") || strings.HasPrefix(k, "SBTEST_") ||
			k == "HOME" || k == "SHELL" || k == "DBUS_SESSION_BUS_ADDRESS" || k == "GORACE" {
			continue
		}
		s.env = append(s.env, e)
	}
	s.env = append(s.env,
		"SWITCHBOARD_RUNTIME_DIR="+s.runtime, "XDG_CONFIG_HOME="+s.configHome, "XDG_CACHE_HOME="+s.cacheHome,
		"HOME="+s.home, "SHELL=/bin/sh", markEnv+"="+s.mark,
		hostrun.RegistrySyncEnv+"=off", // a test's host reaches no registry on its own
		"GORACE=atexit_sleep_ms=0")     // a -race binary sleeps a second at exit by default
	t.Cleanup(func() {
		// The tests' own cleanups (stopping hosts) ran first.
		var left map[int]string
		testkit.Poll(10*time.Second, func() bool { left = marked(s.mark); return len(left) == 0 })
		for pid := range left {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		if len(left) > 0 {
			t.Errorf("processes of the test left behind (now killed): %v", left)
		}
		os.RemoveAll(root)
	})
	return s
}

func (s *sandbox) configPath() string {
	return filepath.Join(s.configHome, "switchboard", "config.json")
}

func (s *sandbox) logPath() string { return filepath.Join(s.cacheHome, "switchboard", "host.log") }

func (s *sandbox) socket() string { return filepath.Join(s.runtime, "host.sock") }

// with returns the sandbox's environment with extra variables.
func (s *sandbox) with(extra ...string) []string {
	return append(append([]string(nil), s.env...), extra...)
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

// runEnv runs the switchboard binary with env and stdin, and returns what
// it printed and its exit code.
func runEnv(t *testing.T, env []string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, sbBin, args...)
	cmd.Env = env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatalf("switchboard %s: %v", strings.Join(args, " "), err)
	}
	if strings.Contains(r.stderr, "DATA RACE") {
		t.Errorf("switchboard %s: a data race:\n%s", strings.Join(args, " "), r.stderr)
	}
	return r
}

// run runs the CLI in the sandbox.
func (s *sandbox) run(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	return runEnv(t, s.env, stdin, args...)
}

// cli runs the CLI and fails the test unless it exits 0; it returns stdout.
func (s *sandbox) cli(t *testing.T, args ...string) string {
	t.Helper()
	r := s.run(t, "", args...)
	if r.code != 0 {
		t.Fatalf("switchboard %s: %s", strings.Join(args, " "), r)
	}
	return r.stdout
}

type statusOut struct {
	Host    *hostapi.Info          `json:"host"`
	Servers []hostapi.ServerStatus `json:"servers"`
}

func (s *sandbox) status(t *testing.T) statusOut {
	t.Helper()
	out := s.cli(t, "status", "--json")
	var st statusOut
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json printed no JSON (%v):\n%s", err, out)
	}
	return st
}

func (st statusOut) server(name string) (hostapi.ServerStatus, bool) {
	for _, s := range st.Servers {
		if s.Name == name {
			return s, true
		}
	}
	return hostapi.ServerStatus{}, false
}

// waitStatus polls `status --json` until cond holds.
func (s *sandbox) waitStatus(t *testing.T, what string, cond func(statusOut) bool) statusOut {
	t.Helper()
	var st statusOut
	testkit.Eventually(t, what, func() (bool, string) {
		st = s.status(t)
		b, _ := json.Marshal(st.Servers)
		return cond(st), string(b)
	})

	return st
}

// waitServer waits until the server's status satisfies cond.
func (s *sandbox) waitServer(t *testing.T, name, what string, cond func(hostapi.ServerStatus) bool) hostapi.ServerStatus {
	t.Helper()
	st := s.waitStatus(t, name+": "+what, func(st statusOut) bool {
		srv, ok := st.server(name)
		return ok && cond(srv)
	})
	srv, _ := st.server(name)
	return srv
}

func (s *sandbox) waitRunning(t *testing.T, name string) hostapi.ServerStatus {
	t.Helper()
	return s.waitServer(t, name, "running", func(st hostapi.ServerStatus) bool { return st.State == "running" && st.PID != 0 })
}

// hostProc is a `switchboard serve` child process.
type hostProc struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
	done   chan struct{}
	code   int
}

// startServe starts `switchboard serve ARGS` with env, and stops it (and
// fails the test if it does not stop) at the end of the test.
func startServe(t *testing.T, env []string, args ...string) *hostProc {
	t.Helper()
	h := &hostProc{stderr: &syncBuffer{}, done: make(chan struct{})}
	h.cmd = exec.Command(sbBin, append([]string{"serve"}, args...)...)
	h.cmd.Env = env
	h.cmd.Stdout = h.stderr
	h.cmd.Stderr = h.stderr
	if err := h.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := h.cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			h.code = ee.ExitCode()
			if h.code < 0 {
				h.code = 128 + int(ee.Sys().(syscall.WaitStatus).Signal())
			}
		} else if err != nil {
			h.code = -1
		}
		close(h.done)
	}()
	t.Cleanup(func() {
		if !h.exited() {
			_ = h.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-h.done:
			case <-time.After(wait):
				_ = h.cmd.Process.Kill()
				<-h.done
				t.Errorf("the host (pid %d) did not exit within %v of SIGTERM", h.cmd.Process.Pid, wait)
			}
		}
		if strings.Contains(h.stderr.String(), "DATA RACE") {
			t.Errorf("the host had a data race:\n%s", h.stderr.String())
		}
		if t.Failed() {
			t.Logf("the host's output:\n%s", h.stderr.String())
		}
	})
	return h
}

// serve starts a host in the sandbox and waits until it is ready.
func (s *sandbox) serve(t *testing.T, args ...string) *hostProc {
	t.Helper()
	h := startServe(t, s.env, args...)
	h.waitReady(t)
	return h
}

func (h *hostProc) pid() int { return h.cmd.Process.Pid }

func (h *hostProc) exited() bool {
	select {
	case <-h.done:
		return true
	default:
		return false
	}
}

// waitReady waits for the host's "host ready" log line.
func (h *hostProc) waitReady(t *testing.T) {
	t.Helper()
	testkit.Eventually(t, "the host is ready", func() (bool, string) {
		if h.exited() {
			t.Fatalf("the host exited with %d before it was ready:\n%s", h.code, h.stderr.String())
		}
		return strings.Contains(h.stderr.String(), `msg="host ready"`), h.stderr.String()
	})

}

// wait waits for the host to exit and returns its exit code.
func (h *hostProc) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-h.done:
		return h.code
	case <-time.After(d):
		t.Fatalf("the host (pid %d) did not exit within %v:\n%s", h.pid(), d, h.stderr.String())
		return 0
	}
}

// writeRename saves data as an editor that writes a new file and renames
// it over the old one does.
func writeRename(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".config.json.swp")
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// writeInPlace saves data as an editor that truncates the file and writes
// it in two chunks does; the pause between them is longer than the
// watcher's debounce, so that the host may well read the half file.
func writeInPlace(t *testing.T, path string, data []byte, pause time.Duration) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	half := len(data) / 2
	if _, err := f.Write(data[:half]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(pause)
	if _, err := f.Write(data[half:]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// readConfig reads the config file as generic JSON.
func readConfig(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("the config file is not JSON (%v):\n%s", err, b)
	}
	return m
}

func servers(cfg map[string]any) map[string]any {
	m, _ := cfg["mcpServers"].(map[string]any)
	if m == nil {
		m = map[string]any{}
		cfg["mcpServers"] = m
	}
	return m
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}
