//go:build linux

package cli

// Every AI app reaches the one host, whatever environment it starts the
// bridge with (issue 10). These tests do not isolate the rendezvous with
// SWITCHBOARD_RUNTIME_DIR, since that is exactly what an AI app would not
// pass on: the host and its clients meet where the user database says,
// as they do on a user's machine. So they take a machine-wide lock, and
// skip (fail under CI) when a host of the user's own already runs there.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// sdkDefaultEnvNames are the variables the TypeScript MCP SDK's
// getDefaultEnvironment() and the Python SDK's get_default_environment()
// pass to a stdio server on Unix: nothing else reaches the bridge.
var sdkDefaultEnvNames = []string{"HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"}

// only returns env's variables named in names.
func only(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if slices.Contains(names, k) {
			out = append(out, kv)
		}
	}
	return out
}

// newSessionSandbox is a sandbox (config, cache and HOME of its own) whose
// host runs at the user's real rendezvous, started as from a desktop
// session (XDG_RUNTIME_DIR set to a directory of the session's).
func newSessionSandbox(t *testing.T) *sandbox {
	t.Helper()
	lockRealRendezvous(t)
	sock, err := api.DefaultSocketPath()
	if err != nil {
		t.Fatal(err)
	}
	c, err := api.Dial(context.Background(), sock)
	if err == nil {
		c.Close()
		testkit.SkipOrFail(t, "a Switchboard host of yours already runs at %s: stop it to run this test", sock)
	}
	sb := newSandbox(t)
	var env []string
	for _, kv := range sb.env {
		if !strings.HasPrefix(kv, api.RuntimeDirEnv+"=") {
			env = append(env, kv)
		}
	}
	xdg := filepath.Join(sb.root, "xdg")
	if err := os.Mkdir(xdg, 0o700); err != nil {
		t.Fatal(err)
	}
	sb.env = append(env, "XDG_RUNTIME_DIR="+xdg, "TMPDIR="+sb.root)
	sb.runtime = filepath.Dir(sock)
	return sb
}

// lockRealRendezvous serializes the tests (of any package, in any
// process) that use the user's real rendezvous.
func lockRealRendezvous(t *testing.T) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(os.TempDir(), "switchboard-test-rendezvous-"+strconv.Itoa(os.Getuid())+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
}

// hostsRunning returns the pids of `switchboard serve` processes of the
// test's binary.
func hostsRunning() []int {
	var pids []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if args := strings.Split(string(b), "\x00"); len(args) > 1 && args[0] == sbBin && args[1] == "serve" {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestBridgeStrippedEnv: real clients started as AI apps start them (the
// SDKs' default environment, an empty one, another session's variables)
// reach the running host and share its one server process; no second
// host is ever started, and a second `serve` is refused whatever its
// environment, naming the running host's pid and socket.
func TestBridgeStrippedEnv(t *testing.T) {
	sb := newSessionSandbox(t)
	h := sb.serve(t)
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	st := sb.waitRunning(t, "srv")
	sock := filepath.Join(sb.runtime, api.SocketName)
	if got := sb.status(t); got.Host == nil || got.Host.Socket != sock || got.Host.PID != h.pid() {
		t.Fatalf("the host is not at the user's rendezvous %s: %+v", sock, got.Host)
	}

	envs := []struct {
		name string
		env  []string
	}{
		{"empty (env -i)", []string{}},
		{"TS and Python SDK default", only(sb.env, sdkDefaultEnvNames...)},
		{"another session's XDG_RUNTIME_DIR and TMPDIR", append(only(sb.env, sdkDefaultEnvNames...),
			"XDG_RUNTIME_DIR="+t.TempDir(), "TMPDIR="+t.TempDir())},
		{"another HOME", []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}},
	}
	for _, prog := range []bridgeProgram{smallBridge(), bigBridge()} {
		for _, c := range envs {
			t.Run("go-sdk/"+prog.name+"/"+c.name, func(t *testing.T) {
				b := sb.bridgeProg(t, prog, c.env, "")
				if got := b.tools(t); !slices.Equal(got, []string{"srv__echo"}) {
					t.Errorf("tools %v, want the running host's [srv__echo]", got)
				}
				if got := b.call(t, "srv__echo", map[string]any{"message": "hi"}); got != "echo: hi" {
					t.Errorf("call: %q", got)
				}
			})
		}
	}

	// The official TypeScript SDK's client, with StdioClientTransport's
	// default environment, as Claude Desktop starts a server.
	t.Run("ts-sdk", func(t *testing.T) {
		testkit.NpmServer(t, "mcp-inspector") // node and the npm packages, or skip/fail
		script, err := filepath.Abs("../../engine/stdio/testdata/npm/ts-sdk-client.mjs")
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// As `clients connect` writes the entry: switchboard-bridge bridge.
		cmd := exec.CommandContext(ctx, "node", script, "srv__echo", `{"message":"from-ts"}`, "--", sbBridge, "bridge")
		cmd.Env = sb.env // the app's own (session) environment; the SDK strips it
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ts-sdk client: %v\n%s", err, out)
		}
		var r struct {
			Tools []string
			Text  string
		}
		if err := json.Unmarshal(out, &r); err != nil {
			t.Fatalf("ts-sdk client printed %q: %v", out, err)
		}
		if !slices.Equal(r.Tools, []string{"srv__echo"}) || r.Text != "echo: from-ts" {
			t.Errorf("ts-sdk client got tools %v and %q", r.Tools, r.Text)
		}
	})

	// The MCP Inspector's CLI, with no -e: the bridge gets what the
	// Inspector passes by default.
	t.Run("inspector", func(t *testing.T) {
		inspector := testkit.NpmServer(t, "mcp-inspector")
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, inspector, "--cli", sbBin, "bridge", "--method", "tools/call", "--tool-name", "srv__echo", "--tool-arg", "message=from-inspector")
		cmd.Env = sb.env
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "echo: from-inspector") {
			t.Errorf("inspector: %v\n%s", err, out)
		}
	})

	// Afterwards: one host, one server process, the same pid.
	if got := hostsRunning(); !slices.Equal(got, []int{h.pid()}) {
		t.Errorf("hosts running: %v, want only %d", got, h.pid())
	}
	if n := sb.helperCount(); n != 1 {
		t.Errorf("%d server processes, want 1", n)
	}
	if got := sb.waitRunning(t, "srv"); got.PID != st.PID || got.Restarts != 0 {
		t.Errorf("the server changed: pid %d -> %d, %d restarts", st.PID, got.PID, got.Restarts)
	}

	// A second host is refused whatever its environment.
	for _, c := range envs {
		r := runEnv(t, append(c.env, "GORACE=atexit_sleep_ms=0"), "", "serve")
		if r.code == 0 || !strings.Contains(r.stderr, "already running") ||
			!strings.Contains(r.stderr, "pid "+strconv.Itoa(h.pid())) || !strings.Contains(r.stderr, sock) {
			t.Errorf("serve with %s: %s", c.name, r)
		}
	}
	if got := hostsRunning(); !slices.Equal(got, []int{h.pid()}) {
		t.Errorf("hosts running after the refused ones: %v, want only %d", got, h.pid())
	}
}

// TestOnDemandHostStrippedEnv: a bridge started with an empty environment
// when no host runs starts one that runs like a session's: the config and
// log under the user's home from the user database, HOME USER LOGNAME
// SHELL given to it from there, and status and doctor say so.
func TestOnDemandHostStrippedEnv(t *testing.T) {
	lockRealRendezvous(t)
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(u.HomeDir, ".config", "switchboard", "config.json")
	if b, err := os.ReadFile(cfg); err == nil {
		// A leftover of this test killed mid-run names its helper role;
		// anything else is the user's own config.
		if !strings.Contains(string(b), helperEnv) {
			testkit.SkipOrFail(t, "%s exists: an on-demand host would run your own servers", cfg)
		}
		os.Remove(cfg)
	}
	sock, err := api.DefaultSocketPath()
	if err != nil {
		t.Fatal(err)
	}
	if c, err := api.Dial(context.Background(), sock); err == nil {
		c.Close()
		testkit.SkipOrFail(t, "a Switchboard host of yours already runs at %s: stop it to run this test", sock)
	}
	empty := []string{"GORACE=atexit_sleep_ms=0"}
	// The user's config (which did not exist) gets one server, this test
	// binary as a go-sdk server; it is removed at the end.
	mark := "ondemand-" + strconv.Itoa(os.Getpid())
	madeDir := false
	if _, err := os.Stat(filepath.Dir(cfg)); err != nil {
		madeDir = true
	}
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	entry := map[string]any{"mcpServers": map[string]any{"srv": map[string]any{
		"command": testExe, "env": map[string]string{helperEnv: "modern", markEnv: mark, "GORACE": "atexit_sleep_ms=0"}}}}
	if err := os.WriteFile(cfg, mustJSON(t, entry), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		r := runEnv(t, empty, "", "stop")
		if r.code != 0 {
			t.Errorf("stop: %s", r)
		}
		os.Remove(cfg)
		if madeDir {
			os.Remove(filepath.Dir(cfg))
		}
		if left := marked(mark); len(left) > 0 {
			t.Errorf("server processes left: %v", left)
			for pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})

	// The small bridge, as the apps' entries name it: with no host it runs
	// `switchboard bridge` in its place, which starts one.
	b := (&sandbox{}).bridgeProg(t, smallBridge(), empty, "")
	if got := b.call(t, "srv__echo", map[string]any{"message": "on demand"}); got != "echo: on demand" {
		t.Errorf("call through the on-demand host: %q", got)
	}
	r := runEnv(t, empty, "", "status", "--json")
	var st statusOut
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || st.Host == nil {
		t.Fatalf("status --json: %v\n%s", err, r)
	}
	hi := st.Host
	if !hi.OnDemand || hi.Socket != sock || hi.ConfigPath != cfg {
		t.Errorf("the on-demand host: %+v", hi)
	}
	for _, k := range []string{"HOME", "USER", "LOGNAME", "SHELL"} {
		if !slices.Contains(hi.UserEnvFilled, k) {
			t.Errorf("the host did not take %s from the user database: %v", k, hi.UserEnvFilled)
		}
	}
	// The server got HOME USER LOGNAME SHELL, from the user database.
	if len(st.Servers) != 1 || st.Servers[0].PID == 0 {
		t.Fatalf("servers: %+v", st.Servers)
	}
	senv := testkit.Environ(t, st.Servers[0].PID)
	for _, kv := range []string{"HOME=" + u.HomeDir, "USER=" + u.Username, "LOGNAME=" + u.Username} {
		if !slices.Contains(senv, kv) {
			t.Errorf("the server's environment lacks %s: %q", kv, senv)
		}
	}
	if !slices.ContainsFunc(senv, func(kv string) bool { return strings.HasPrefix(kv, "SHELL=/") }) {
		t.Errorf("the server's environment has no SHELL: %q", senv)
	}
	if want := filepath.Join(u.HomeDir, ".cache", "switchboard", "host.log"); hi.LogPath != want {
		t.Errorf("host.log at %q, want %q", hi.LogPath, want)
	}
	if got := hostsRunning(); len(got) != 1 || got[0] != hi.PID {
		t.Errorf("hosts running: %v, want only %d", got, hi.PID)
	}
	text := runEnv(t, empty, "", "status").stdout
	if !strings.Contains(text, "host socket "+sock+", started on demand (by the tray or an AI app's bridge)") || !strings.Contains(text, "HOME, USER, LOGNAME and SHELL, taken from the user database") {
		t.Errorf("status does not say how the host was started:\n%s", text)
	}
	doc := runEnv(t, empty, "", "doctor").stdout
	if !strings.Contains(doc, "socket "+sock) || !strings.Contains(doc, "started on demand") {
		t.Errorf("doctor does not say how the host was started:\n%s", doc)
	}
}
