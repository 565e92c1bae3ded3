package gateway_test

// The gateway's Windows path end to end, with real processes: the host's
// manager runs a real stdio MCP server (this test binary run again as a
// go-sdk server, in a job object), the gateway serves it on the user's
// named pipe (api.InstanceLock.ListenGateway, as the host does), and AI
// apps (go-sdk clients here) run `switchboard bridge` (this test binary
// run again as cli.Main, the code of the real command), which relays
// their stdin and stdout to that pipe byte for byte: on Windows the
// bridge cannot hand its descriptors over. It runs on Windows, and on
// Linux under Wine through scripts/wine-test.sh.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/windows"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/cli"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// roleEnv makes this test binary a helper process instead of the tests:
// "server" (the MCP server), "bridge" (switchboard with its arguments) or
// "switchboard-bridge" (the small bridge's code, app/bridge.Main).
const roleEnv = "SWITCHBOARD_GW_WIN_ROLE"

// bridgeArg, as the first argument, makes this test binary the bridge
// when its environment cannot say so: an app that passes none.
const (
	bridgeArg      = "as-switchboard"        // cli.Main
	smallBridgeArg = "as-switchboard-bridge" // bridge.Main
)

func init() {
	if len(os.Args) > 1 && os.Args[1] == bridgeArg {
		os.Exit(cli.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == smallBridgeArg {
		os.Exit(bridge.Main(os.Args[2:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	}
	switch role := os.Getenv(roleEnv); role {
	case "":
	case "server":
		os.Exit(runServer())
	case "bridge":
		os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	case "switchboard-bridge":
		os.Exit(bridge.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	default:
		fmt.Fprintf(os.Stderr, "unknown role %q\n", role)
		os.Exit(99)
	}
}

// runServer is a go-sdk stdio server with the tools echo ("echo: MESSAGE
// (pid N)": which process answered) and sleep ({"ms": n}: sleeps, or until
// the call is cancelled; it reports both on stderr).
func runServer() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "gw-win-server", Version: "1"}, nil)
	type echoArgs struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("echo: %s (pid %d)", a.Message, os.Getpid())}}}, nil, nil
	})
	type sleepArgs struct {
		MS int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, a sleepArgs) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "sleep started")
		select {
		case <-time.After(time.Duration(a.MS) * time.Millisecond):
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "sleep cancelled")
			return nil, nil, ctx.Err()
		}
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "server:", err)
		return 1
	}
	return 0
}

// wait bounds each step: Wine starts processes slowly.
const wait = 30 * time.Second

// winHost is the host's side: a manager with one server and the gateway
// over it on the user's gateway pipe.
type winHost struct {
	exe  string
	pipe string
	mgr  *host.Manager
	gw   *gateway.Gateway
	done chan error // Serve's result
}

func startHost(t *testing.T) *winHost {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The pipe the bridge dials: the user's, \\.\pipe\switchboard-mcp-SID.
	pipe, err := api.DefaultGatewayPath()
	if err != nil {
		t.Fatal(err)
	}
	lock, err := api.AcquireInstanceLock(gateway.TempDir(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Release() })
	l, err := lock.ListenGateway(pipe)
	if err != nil {
		if strings.Contains(err.Error(), "already exists") && os.Getenv("CI") != "true" {
			// Not a failure of the code: this user's Switchboard host
			// holds the pipe that the bridge dials.
			t.Skipf("a Switchboard host of this user runs (it holds %s): stop it to run this test: %v", pipe, err)
		}
		t.Fatal(err)
	}
	// Under Wine a throwaway client must take the first pipe instance.
	gateway.TakeFirstInstance(t, pipe)

	h := &winHost{exe: exe, pipe: pipe, done: make(chan error, 1)}
	var log syncBuffer
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the host's log:\n%s", &log)
		}
	})
	var gw atomic.Pointer[gateway.Gateway]
	h.mgr = host.NewManager(host.ManagerOptions{
		Start:   engine.StartOptions{},
		Logger:  slog.New(slog.NewTextHandler(&log, nil)),
		Policy:  supervisor.Policy{Initial: 50 * time.Millisecond, Max: 500 * time.Millisecond},
		Version: "test",
		// As the host wires them: every change but a log line rebuilds
		// the gateway's view.
		Publish: func(topic string, _ any) {
			if g := gw.Load(); g != nil && topic != hostapi.TopicLog {
				g.Notify()
			}
		},
	})
	h.gw = gateway.New(gateway.Options{Backend: h.mgr.GatewayBackend(), Version: "test",
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	gw.Store(h.gw)
	t.Cleanup(func() {
		h.gw.Close()
		h.mgr.StopAll()
	})

	entry, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{
		"srv": map[string]any{"command": exe, "env": map[string]string{roleEnv: "server"}},
	}})
	f, err := config.Parse(entry)
	if err != nil {
		t.Fatal(err)
	}
	h.mgr.Apply(host.ServerConfigs(f))
	go func() { h.done <- h.gw.Serve(l) }()
	return h
}

// status returns the server's status once it runs with its tools listed.
func (h *winHost) status(t *testing.T) hostapi.ServerStatus {
	t.Helper()
	var st hostapi.ServerStatus
	testkit.Eventually(t, "the server runs with its tools listed", func() (bool, string) {
		for _, s := range h.mgr.Status() {
			if s.Name == "srv" {
				st = s
			}
		}
		return st.State == "running" && st.Tools == 2, fmt.Sprintf("%+v", st)
	})
	return st
}

func (h *winHost) stderr(t *testing.T) []string {
	t.Helper()
	r, err := h.mgr.Logs("srv")
	if err != nil {
		t.Fatal(err)
	}
	r.Flush()
	return r.Lines()
}

// waitStderr waits until the server's stderr has n lines that are line.
func (h *winHost) waitStderr(t *testing.T, line string, n int) {
	t.Helper()
	count := func() int {
		c := 0
		for _, l := range h.stderr(t) {
			if l == line {
				c++
			}
		}
		return c
	}
	testkit.Eventually(t, fmt.Sprintf("the server says %q %d times", line, n), func() (bool, string) {
		return count() == n, strings.Join(h.stderr(t), "\n")
	})
}

func (h *winHost) waitClients(t *testing.T, n int) {
	t.Helper()
	testkit.Eventually(t, fmt.Sprintf("the gateway has %d clients", n), func() (bool, string) {
		c := h.gw.Clients()
		return c == n, fmt.Sprint(c, " clients")
	})
}

// bridgeCmd is `switchboard bridge ARGS` as an app starts it.
func (h *winHost) bridgeCmd(args ...string) (*exec.Cmd, *syncBuffer) {
	return h.bridgeCmdAs("bridge", args...)
}

// bridgeCmdAs is bridgeCmd run as role: "bridge" (`switchboard bridge`)
// or "switchboard-bridge" (`switchboard-bridge bridge ARGS`, as `clients
// connect` writes it).
func (h *winHost) bridgeCmdAs(role string, args ...string) (*exec.Cmd, *syncBuffer) {
	cmd := exec.Command(h.exe, append([]string{"bridge"}, args...)...)
	cmd.Env = append(os.Environ(), roleEnv+"="+role)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

// app is an AI app: a go-sdk client that runs the bridge, in the era of
// version ("": the newest).
type app struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *syncBuffer
}

func (h *winHost) connect(t *testing.T, version string) *app {
	t.Helper()
	return h.connectAs(t, "bridge", version)
}

// connectAs is connect with the bridge of role (see bridgeCmdAs).
func (h *winHost) connectAs(t *testing.T, role, version string) *app {
	t.Helper()
	return h.connectCmd(t, version, func() (*exec.Cmd, *syncBuffer) { return h.bridgeCmdAs(role) })
}

// connectEnv is connectAs with the bridge given env as its whole
// environment (Go adds SYSTEMROOT on Windows, as apps' runtimes do): the
// role goes in the first argument, since no variable can carry it.
func (h *winHost) connectEnv(t *testing.T, role, version string, env []string) *app {
	t.Helper()
	return h.connectCmd(t, version, func() (*exec.Cmd, *syncBuffer) {
		cmd, stderr := h.bridgeCmdAs(role)
		arg := bridgeArg
		if role == "switchboard-bridge" {
			arg = smallBridgeArg
		}
		cmd.Args = append([]string{cmd.Args[0], arg}, cmd.Args[1:]...)
		cmd.Env = env
		return cmd, stderr
	})
}

// connectCmd starts the bridge newCmd builds and initializes through it.
// Under Wine a CreateProcess of a large test binary is now and then
// refused with "Internal error." while the machine is loaded (CI saw it
// once here, on the fourth of six identical spawns, as engine's
// startHelperHost did before): such a refusal is tried again with a fresh
// command, up to three times; any other error fails the test.
func (h *winHost) connectCmd(t *testing.T, version string, newCmd func() (*exec.Cmd, *syncBuffer)) *app {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "gw-win-app", Version: "1"}, nil)
	for attempt := 1; ; attempt++ {
		cmd, stderr := newCmd()
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		cancel()
		if err == nil {
			t.Cleanup(func() { _ = cs.Close() })
			return &app{cs: cs, cmd: cmd, stderr: stderr}
		}
		if attempt == 3 || !strings.Contains(err.Error(), "Internal error") {
			t.Fatalf("initialize through the bridge: %v\nbridge stderr:\n%s", err, stderr)
		}
		t.Logf("starting the bridge: %v (attempt %d; trying again)", err, attempt)
		time.Sleep(time.Second)
	}
}

func (a *app) tools(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := a.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list through the bridge: %v\nbridge stderr:\n%s", err, a.stderr)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func (a *app) echo(t *testing.T, msg string) string {
	t.Helper()
	got := a.echoErr(msg)
	if strings.HasPrefix(got, "ERROR: ") {
		t.Fatalf("tools/call through the bridge: %s\nbridge stderr:\n%s", got, a.stderr)
	}
	return got
}

// echoErr calls srv__echo and returns its text, or "ERROR: " and what
// went wrong.
func (a *app) echoErr(msg string) string {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := a.cs.CallTool(ctx, &mcp.CallToolParams{Name: "srv__echo", Arguments: map[string]any{"message": msg}})
	if err != nil {
		return "ERROR: " + err.Error()
	}
	if res.IsError || len(res.Content) != 1 {
		return fmt.Sprintf("ERROR: not one text: %+v", res)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return fmt.Sprintf("ERROR: not text: %+v", res.Content[0])
	}
	return tc.Text
}

// TestBridgeWindows: two apps reach one server process through their own
// bridges and the gateway's named pipe, in both protocol eras; a call an
// app cancels is cancelled at the server; a bridge ends at once when its
// app closes its stdin, a killed bridge's session ends at the gateway,
// and neither touches the server; the host stopping ends a bridge with
// the reason.
func TestBridgeWindows(t *testing.T) {
	h := startHost(t)
	st := h.status(t)
	if st.PID == 0 {
		t.Fatalf("the server runs without a pid: %+v", st)
	}
	want := fmt.Sprintf("(pid %d)", st.PID)

	// initialize, tools/list and tools/call through the bridge.
	a1 := h.connect(t, "")
	if ir := a1.cs.InitializeResult(); ir == nil || ir.ServerInfo == nil || ir.ServerInfo.Name != "switchboard" {
		t.Errorf("initialize answered %+v", ir)
	}
	if got := a1.tools(t); !slices.Equal(got, []string{"srv__echo", "srv__sleep"}) {
		t.Errorf("tools/list: %v", got)
	}
	if got := a1.echo(t, "one"); got != "echo: one "+want {
		t.Errorf("tools/call: %q, want the server of pid %d", got, st.PID)
	}

	// A second app, in the other era and through switchboard-bridge's
	// code, shares the same server process.
	a2 := h.connectAs(t, "switchboard-bridge", "2025-11-25")
	if ir := a2.cs.InitializeResult(); ir == nil || ir.ProtocolVersion != "2025-11-25" {
		t.Errorf("the second app negotiated %+v", ir)
	}
	if got := a2.tools(t); !slices.Equal(got, []string{"srv__echo", "srv__sleep"}) {
		t.Errorf("tools/list of the second app: %v", got)
	}
	if got := a2.echo(t, "two"); got != "echo: two "+want {
		t.Errorf("the second app's call: %q, want the same server (pid %d)", got, st.PID)
	}
	h.waitClients(t, 2)

	// Apps that give the bridge the TS SDK's default Windows environment,
	// or none at all, reach the same host and the same server process:
	// the pipe's name comes from the user's SID, not the environment.
	sdkWin := []string{"APPDATA", "HOMEDRIVE", "HOMEPATH", "LOCALAPPDATA", "PATH", "PROCESSOR_ARCHITECTURE",
		"SYSTEMDRIVE", "SYSTEMROOT", "TEMP", "USERNAME", "USERPROFILE", "PROGRAMFILES"}
	var sdkEnv []string
	for _, k := range sdkWin {
		if v, ok := os.LookupEnv(k); ok {
			sdkEnv = append(sdkEnv, k+"="+v)
		}
	}
	for _, role := range []string{"bridge", "switchboard-bridge"} {
		for name, env := range map[string][]string{"empty": {}, "TS SDK default": sdkEnv} {
			a := h.connectEnv(t, role, "", env)
			if got := a.echo(t, name); got != "echo: "+name+" "+want {
				t.Errorf("%s with the %s environment: %q, want the same server (pid %d)", role, name, got, st.PID)
			}
			_ = a.cs.Close()
		}
	}
	h.waitClients(t, 2)

	// A call the app cancels is cancelled at the server (the lean path's
	// notifications/cancelled, through the relay).
	ctx, cancel := context.WithCancel(context.Background())
	called := make(chan error, 1)
	go func() {
		_, err := a1.cs.CallTool(ctx, &mcp.CallToolParams{Name: "srv__sleep", Arguments: map[string]any{"ms": 60_000}})
		called <- err
	}()
	h.waitStderr(t, "sleep started", 1)
	cancel()
	if err := <-called; err == nil {
		t.Error("a cancelled call of 60 s succeeded")
	}
	h.waitStderr(t, "sleep cancelled", 1)
	if got := a1.echo(t, "after"); got != "echo: after "+want {
		t.Errorf("a call after the cancellation: %q", got)
	}

	// Big messages both ways through the pipes (64 KiB buffers), and
	// concurrent calls of both apps: each gets its own answer.
	big := strings.Repeat("x", 1<<20)
	if got := a1.echo(t, big); got != "echo: "+big+" "+want {
		t.Errorf("a 1 MiB call came back as %d bytes", len(got))
	}
	var wg sync.WaitGroup
	for i := range 16 {
		a := []*app{a1, a2}[i%2]
		wg.Go(func() {
			msg := fmt.Sprint("concurrent ", i)
			if got := a.echoErr(msg); got != "echo: "+msg+" "+want {
				t.Errorf("concurrent call %d: %q", i, got)
			}
		})
	}
	wg.Wait()

	// An app closes the bridge's stdin: the bridge exits at once with 0,
	// and its session at the gateway ends.
	b := h.rawBridge(t)
	h.waitClients(t, 3)
	b.stdin.Close()
	start := time.Now()
	if code := b.exit(t); code != 0 {
		t.Errorf("the bridge whose stdin closed exited with %d; stderr:\n%s", code, b.stderr)
	}
	t.Logf("the bridge exited %v after its stdin closed", time.Since(start).Round(time.Millisecond))
	if rest, _ := io.ReadAll(b.stdout); len(rest) > 0 || b.stderr.String() != "" {
		t.Errorf("the bridge wrote %q to stdout and %q to stderr", rest, b.stderr)
	}
	h.waitClients(t, 2)

	// A bridge is killed (the app died) during a call: its session at the
	// gateway ends, the call is cancelled at the server, and the other
	// app goes on with the same server.
	go func() {
		_, _ = a1.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "srv__sleep", Arguments: map[string]any{"ms": 60_000}})
	}()
	h.waitStderr(t, "sleep started", 2)
	if err := a1.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	h.waitClients(t, 1)
	h.waitStderr(t, "sleep cancelled", 2)
	if got := a2.echo(t, "still"); got != "echo: still "+want {
		t.Errorf("the other app after a bridge was killed: %q", got)
	}

	// The app closes its client: the bridge exits by itself, with 0.
	if err := a2.cs.Close(); err != nil {
		t.Errorf("closing the second app's client: %v\nbridge stderr:\n%s", err, a2.stderr)
	}
	if ps := a2.cmd.ProcessState; ps == nil || ps.ExitCode() != 0 {
		t.Errorf("the bridge of a closed client ended with %v; stderr:\n%s", ps, a2.stderr)
	}
	h.waitClients(t, 0)

	// Through all of it, one server process, never restarted.
	if got := h.status(t); got.PID != st.PID || got.Restarts != 0 {
		t.Errorf("the server changed: pid %d -> %d, %d restarts", st.PID, got.PID, got.Restarts)
	}

	// The host stops: the bridge's relay ends, and it says why.
	b = h.rawBridge(t)
	h.gw.Close()
	if code := b.exit(t); code != 1 || !strings.Contains(b.stderr.String(), "closed the connection") {
		t.Errorf("the bridge of a stopped host exited with %d; stderr:\n%s", code, b.stderr)
	}
	select {
	case err := <-h.done:
		if !errors.Is(err, gateway.ErrClosed) {
			t.Errorf("Serve returned %v", err)
		}
	case <-time.After(wait):
		t.Error("Serve did not return after Close")
	}
	h.mgr.StopAll()
	if !exited(st.PID, wait) {
		t.Errorf("the server (pid %d) outlived StopAll", st.PID)
	}
}

// rawBridgeProc is a bridge that the test drives line by line.
type rawBridgeProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *syncBuffer
	done   chan struct{}
}

// rawBridge starts a bridge and initializes a session through it.
func (h *winHost) rawBridge(t *testing.T) *rawBridgeProc {
	t.Helper()
	cmd, stderr := h.bridgeCmd()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A pipe of our own, not StdoutPipe: Wait would close that one, and
	// what the bridge wrote last is read after it exited.
	stdout, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdout.Close() })
	cmd.Stdout = w
	err = cmd.Start()
	w.Close()
	if err != nil {
		t.Fatal(err)
	}
	b := &rawBridgeProc{cmd: cmd, stdin: stdin, stdout: bufio.NewReader(stdout), stderr: stderr, done: make(chan struct{})}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-b.done
	})
	go func() {
		_ = cmd.Wait()
		close(b.done)
	}()
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	line := make(chan []byte, 1)
	go func() {
		l, _ := b.stdout.ReadBytes('\n')
		line <- l
	}()
	select {
	case l := <-line:
		if !bytes.Contains(l, []byte(`"serverInfo"`)) {
			t.Fatalf("the bridge answered initialize with %q; stderr:\n%s", l, stderr)
		}
	case <-time.After(wait):
		t.Fatalf("no answer to initialize through the bridge; stderr:\n%s", stderr)
	}
	return b
}

// exit waits for the bridge to exit by itself and returns its exit code.
func (b *rawBridgeProc) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-b.done:
		return b.cmd.ProcessState.ExitCode()
	case <-time.After(wait):
		t.Fatalf("the bridge did not exit within %v; stderr:\n%s", wait, b.stderr)
		return -1
	}
}

// exited tells whether the process pid is gone, or goes within d.
func exited(pid int, d time.Duration) bool {
	p, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if err != nil {
		return true // no such process
	}
	defer windows.CloseHandle(p)
	ev, _ := windows.WaitForSingleObject(p, uint32(d/time.Millisecond))
	return ev == windows.WAIT_OBJECT_0
}

type syncBuffer = testkit.SyncBuffer
