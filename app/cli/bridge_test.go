//go:build linux

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// bridgeClient is a go-sdk client that runs `switchboard bridge ARGS` as
// an AI app does, in the era of version ("": the newest).
type bridgeClient struct {
	cs     *mcp.ClientSession
	cmd    *exec.Cmd
	stderr *syncBuffer
}

func (s *sandbox) bridge(t *testing.T, version string, args ...string) *bridgeClient {
	t.Helper()
	return s.bridgeEnv(t, s.env, version, args...)
}

// bridgeEnv is bridge with another environment.
func (s *sandbox) bridgeEnv(t *testing.T, env []string, version string, args ...string) *bridgeClient {
	t.Helper()
	return s.bridgeProg(t, bigBridge(), env, version, args...)
}

// bridgeProgram is a way to run the bridge: `switchboard bridge` (what
// older entries name) or switchboard-bridge (what `clients connect` writes
// when it is installed).
type bridgeProgram struct {
	name string
	argv []string
}

func bigBridge() bridgeProgram   { return bridgeProgram{"switchboard bridge", []string{sbBin, "bridge"}} }
func smallBridge() bridgeProgram { return bridgeProgram{"switchboard-bridge", []string{sbBridge}} }

func (p bridgeProgram) command(args ...string) *exec.Cmd {
	return exec.Command(p.argv[0], append(p.argv[1:len(p.argv):len(p.argv)], args...)...)
}

// bridgeProg is bridgeEnv with the bridge program p.
func (s *sandbox) bridgeProg(t *testing.T, p bridgeProgram, env []string, version string, args ...string) *bridgeClient {
	t.Helper()
	cmd := p.command(args...)
	cmd.Env = env
	b := &bridgeClient{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = b.stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "bridge-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting through the bridge: %v\nbridge stderr:\n%s", err, b.stderr.String())
	}
	b.cs = cs
	t.Cleanup(func() { _ = cs.Close() })
	return b
}

func (b *bridgeClient) tools(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := b.cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list through the bridge: %v\n%s", err, b.stderr.String())
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func (b *bridgeClient) call(t *testing.T, tool string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := b.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s through the bridge: %v\n%s", tool, err, b.stderr.String())
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	if res.IsError {
		return "ERROR: " + strings.Join(parts, "\n")
	}
	return strings.Join(parts, "\n")
}

// helperCount is the number of this test's helper server processes.
func (s *sandbox) helperCount() int {
	n := 0
	for pid := range marked(s.mark) {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
		if bytes.Contains(b, []byte(helperEnv+"=modern")) {
			n++
		}
	}
	return n
}

// TestBridgeClients: the MCP Inspector (stdio) and the go-sdk's client in
// both eras list and call tools through the bridge.
func TestBridgeClients(t *testing.T) {
	sb := newSandbox(t)
	sb.serve(t)
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	sb.waitRunning(t, "srv")

	for _, version := range []string{"2025-11-25", ""} {
		b := sb.bridge(t, version)
		if got := b.tools(t); !slices.Equal(got, []string{"srv__echo"}) {
			t.Errorf("%q: tools %v", version, got)
		}
		if got := b.call(t, "srv__echo", map[string]any{"message": "hi"}); got != "echo: hi" {
			t.Errorf("%q: call %q", version, got)
		}
		if ir := b.cs.InitializeResult(); version != "" && ir.ProtocolVersion != version || version == "" && ir.ProtocolVersion < "2026-07-28" {
			t.Errorf("negotiated %q for %q", ir.ProtocolVersion, version)
		}
	}

	inspector := testkit.NpmServer(t, "mcp-inspector")
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// The Inspector passes only a few variables to the command it
		// runs: the sandbox's go through -e.
		full := []string{"--cli", sbBridge, "bridge"} // as `clients connect` writes it
		for _, e := range sb.env {
			if k, _, _ := strings.Cut(e, "="); k == "SWITCHBOARD_RUNTIME_DIR" || k == markEnv || k == "GORACE" {
				full = append(full, "-e", e)
			}
		}
		cmd := exec.CommandContext(ctx, inspector, append(full, args...)...)
		cmd.Env = sb.with("HOME=" + t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("--method", "tools/list"); !strings.Contains(out, `"srv__echo"`) {
		t.Errorf("inspector tools/list:\n%s", out)
	}
	if out := run("--method", "tools/call", "--tool-name", "srv__echo", "--tool-arg", "message=from-inspector"); !strings.Contains(out, "echo: from-inspector") {
		t.Errorf("inspector tools/call:\n%s", out)
	}

	// A real server no one here wrote, through the real client.
	everything := testkit.NpmServer(t, "mcp-server-everything")
	sb.cli(t, "servers", "add", "everything", "--env", markEnv+"="+sb.mark, "--", everything)
	sb.waitServer(t, "everything", "tools listed", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools > 0 })
	if out := run("--method", "tools/call", "--tool-name", "everything__echo", "--tool-arg", "message=real"); !strings.Contains(out, "Echo: real") {
		t.Errorf("inspector tools/call everything__echo:\n%s", out)
	}
	if out := run("--method", "tools/call", "--tool-name", "everything__get-sum", "--tool-arg", "a=2", "b=3"); !strings.Contains(out, "5") {
		t.Errorf("inspector tools/call everything__get-sum:\n%s", out)
	}

	// `switchboard tools` shows the gateway's names.
	if out := sb.cli(t, "tools"); !regexp.MustCompile(`srv__echo\s+srv\s+echo`).MatchString(out) {
		t.Errorf("switchboard tools:\n%s", out)
	}
	if out := sb.cli(t, "tools", "srv"); !strings.Contains(out, "gateway: srv__echo") {
		t.Errorf("switchboard tools srv:\n%s", out)
	}
}

// TestBridgeShared: two bridges share one host and one server process;
// killing one, or closing its stdin, leaves the server running; a bridge
// exits at once when its stdin closes.
func TestBridgeShared(t *testing.T) {
	for _, p := range []bridgeProgram{bigBridge(), smallBridge()} {
		for _, mode := range []string{"handoff", "relay"} {
			t.Run(p.name+"/"+mode, func(t *testing.T) { bridgeShared(t, p, mode) })
		}
	}
}

// bridgeShared runs TestBridgeShared with bridges (the program p) that hand
// their stdin and stdout over to the host (handoff), or that relay them
// (relay).
func bridgeShared(t *testing.T, p bridgeProgram, mode string) {
	sb := newSandbox(t)
	h := sb.serve(t)
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	st := sb.waitRunning(t, "srv")
	env := sb.env
	if mode == "relay" {
		env = sb.with(bridgeRelayEnv + "=1")
	}

	b1 := sb.bridgeProg(t, p, env, "")
	b2 := sb.bridgeProg(t, p, env, "2025-11-25")
	if b1.call(t, "srv__echo", map[string]any{"message": "one"}) != "echo: one" || b2.call(t, "srv__echo", map[string]any{"message": "two"}) != "echo: two" {
		t.Fatal("the calls through two bridges failed")
	}
	if n := sb.helperCount(); n != 1 {
		t.Errorf("%d server processes for two bridges, want 1", n)
	}
	// status says who is connected (the name the clients gave, once).
	if out := sb.cli(t, "status"); !strings.Contains(out, "AI apps connected through the gateway: 2 (bridge-test)\n") {
		t.Errorf("status with two bridges:\n%s", out)
	}
	if got := sb.waitRunning(t, "srv"); got.PID != st.PID {
		t.Errorf("the server's pid changed: %d -> %d", st.PID, got.PID)
	}

	// Killing a bridge: the server and the other bridge go on.
	killed := b1.cmd.Process.Pid
	if err := b1.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the killed bridge is gone", func() (bool, string) { return !alive(killed, 0), "" })
	if b2.call(t, "srv__echo", map[string]any{"message": "still"}) != "echo: still" {
		t.Error("the other bridge stopped working")
	}
	if got := sb.waitRunning(t, "srv"); got.PID != st.PID {
		t.Errorf("killing a bridge restarted the server: %d -> %d", st.PID, got.PID)
	}

	// Closing a bridge's stdin ends it at once; the server keeps running.
	cmd := p.command()
	cmd.Env = env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errb syncBuffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the bridge answers initialize", func() (bool, string) { return strings.Contains(out.String(), `"serverInfo"`), errb.String() })
	start := time.Now()
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the bridge exited with %v: %s", err, errb.String())
		}
		t.Logf("the bridge exited %v after its stdin closed", time.Since(start).Round(time.Millisecond))
	case <-time.After(2 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the bridge did not exit within 2 s of its stdin closing")
	}
	if got := sb.waitRunning(t, "srv"); got.PID != st.PID {
		t.Errorf("a bridge's exit restarted the server: %d -> %d", st.PID, got.PID)
	}
	if n := sb.helperCount(); n != 1 {
		t.Errorf("%d server processes, want 1", n)
	}
	if handed := strings.Contains(h.stderr.String(), "handed over"); handed != (mode == "handoff") {
		t.Errorf("%s: the host's log says hand-over: %v", mode, handed)
	}
}

// TestBridgeStartsHost: with no host running, the bridge starts one on
// demand (detached: it outlives the bridge), and when none can start it
// says why on stderr.
//
// switchboard-bridge does it by running `switchboard bridge` (the
// switchboard next to it) in its place; without one it says so.
func TestBridgeStartsHost(t *testing.T) {
	for _, p := range []bridgeProgram{bigBridge(), smallBridge()} {
		t.Run(p.name, func(t *testing.T) { bridgeStartsHost(t, p) })
	}

	t.Run("switchboard-bridge alone", func(t *testing.T) {
		sb := newSandbox(t)
		alone := filepath.Join(t.TempDir(), "switchboard-bridge")
		b, err := os.ReadFile(sbBridge)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(alone, b, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(alone, "bridge")
		cmd.Env = sb.env
		cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 1 || stdout.Len() != 0 ||
			!strings.Contains(stderr.String(), "cannot start one: there is no switchboard next to it ("+filepath.Dir(alone)) {
			t.Errorf("switchboard-bridge without switchboard: %v, exit %d, stdout %q, stderr %q", err, code, stdout.String(), stderr.String())
		}
		if _, err := os.Stat(filepath.Join(sb.runtime, "host.pid")); err == nil {
			t.Error("a host runs")
		}
	})
}

func bridgeStartsHost(t *testing.T, p bridgeProgram) {
	sb := newSandbox(t)
	sb.run(t, "", sb.helperArgs("srv", "modern")...) // no host: written to the file
	b := sb.bridgeProg(t, p, sb.env, "")
	if got := b.tools(t); !slices.Equal(got, []string{"srv__echo"}) {
		t.Errorf("tools through a host started on demand: %v (stderr %q)", got, b.stderr.String())
	}
	if !strings.Contains(b.stderr.String(), "starting one") {
		t.Errorf("the bridge did not say it starts a host: %q", b.stderr.String())
	}
	st := sb.status(t)
	if st.Host == nil || !st.Host.OnDemand {
		t.Fatalf("no on-demand host: %+v", st.Host)
	}
	_ = b.cs.Close() // ends the bridge
	// The host outlives the bridge, and its server too.
	if got := sb.waitRunning(t, "srv"); got.PID == 0 {
		t.Error("the server stopped with the bridge")
	}
	sb.cli(t, "stop")
	testkit.Eventually(t, "the on-demand host stops", func() (bool, string) {
		_, err := os.Stat(filepath.Join(sb.runtime, "host.pid"))
		return errors.Is(err, os.ErrNotExist), ""
	})

	// A runtime directory that others may enter: the host refuses to
	// start, and the bridge says so.
	bad := newSandbox(t)
	if err := os.MkdirAll(bad.runtime, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bad.runtime, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := p.command()
	cmd.Env = bad.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "none could be started") || stdout.Len() != 0 {
		t.Errorf("a bridge that cannot start a host: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestBridgeUsage: flags and the gateway token.
func TestBridgeUsage(t *testing.T) {
	u := newUnit(t)
	if r := u.main("", "bridge", "--tools", "["); r.code != 2 || !strings.Contains(r.stderr, "malformed") {
		t.Errorf("a malformed pattern: %s", r)
	}
	if r := u.main("", "bridge", "extra"); r.code != 2 {
		t.Errorf("an extra argument: %s", r)
	}
	if r := u.main("", "--config", "/x.json", "bridge"); r.code != 2 || !strings.Contains(r.stderr, "SWITCHBOARD_CONFIG") {
		t.Errorf("--config: %s", r)
	}
	tok := strings.TrimSpace(u.ok(t, "", "gateway", "token"))
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(tok) {
		t.Fatalf("token %q", tok)
	}
	if again := strings.TrimSpace(u.ok(t, "", "gateway", "token")); again != tok {
		t.Errorf("the token changed without --new: %q -> %q", tok, again)
	}
	if renewed := strings.TrimSpace(u.ok(t, "", "gateway", "token", "--new")); renewed == tok || len(renewed) != 64 {
		t.Errorf("--new: %q", renewed)
	}
	if out := u.ok(t, "", "gateway", "help"); !strings.Contains(out, "switchboard bridge") {
		t.Errorf("help: %q", out)
	}
}

// TestBridgeConnectedEntry: with switchboard-bridge installed next to
// switchboard, `clients connect` writes an entry that runs it (with the
// same arguments as `switchboard bridge`), and that entry, run as the app
// runs it, reaches the running host.
func TestBridgeConnectedEntry(t *testing.T) {
	sb := newSandbox(t)
	sb.serve(t)
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	sb.waitRunning(t, "srv")
	sb.cli(t, "clients", "connect", "claude-desktop", "--servers", "srv")
	var list []clientStatus
	if err := json.Unmarshal([]byte(sb.cli(t, "clients", "list", "--json")), &list); err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(list, func(c clientStatus) bool { return c.ID == "claude-desktop" })
	if i < 0 {
		t.Fatalf("no claude-desktop in %+v", list)
	}
	st := list[i]
	if !st.Connected || st.Stale || st.Command != sbBridge || !slices.Equal(st.Args, []string{"bridge", "--servers", "srv"}) {
		t.Fatalf("the entry: %+v; want %s bridge --servers srv", st, sbBridge)
	}
	b := sb.bridgeProg(t, bridgeProgram{"entry", append([]string{st.Command}, st.Args...)}, sb.env, "")
	if got := b.tools(t); !slices.Equal(got, []string{"srv__echo"}) {
		t.Errorf("tools through the entry: %v (stderr %q)", got, b.stderr.String())
	}
}
