//go:build linux

package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/engine/sandbox/sandboxtest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// hostileEntry is the hostile program (sandboxtest) as an MCP server
// under sandbox.
func hostileEntry(sandbox any) map[string]any {
	return map[string]any{
		"command": testExe,
		"env":     map[string]string{sandboxtest.RoleEnv: "serve", "GORACE": "atexit_sleep_ms=0"},
		"sandbox": sandbox,
	}
}

// try calls the hostile server's tool and returns its verdict.
func (th *testHost) try(t *testing.T, server, probe, arg string) string {
	t.Helper()
	var res json.RawMessage
	args, _ := json.Marshal(map[string]string{"probe": probe, "arg": arg})
	th.must(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: server, Tool: "try", Arguments: args}, &res)
	var out struct {
		Content []struct{ Text string } `json:"content"`
	}
	if err := json.Unmarshal(res, &out); err != nil || len(out.Content) == 0 {
		t.Fatalf("%s %s: %s (%v)", probe, arg, res, err)
	}
	return out.Content[0].Text
}

// TestHostileServer: a server under strict, run by a real host, tries the
// doors issue 25 found open: the host's API socket (to rewrite its own
// entry to "off"), the gateway, the D-Bus session bus of a real keyring,
// the runtime folder in its environment. Each door works for an
// unconfined process first.
func TestHostileServer(t *testing.T) {
	if s := sandbox.Probe(); s.ABI < 6 || s.NetNone == "" {
		testkit.SkipOrFail(t, "Landlock ABI 6 and seccomp are needed: %s", s)
	}
	home := t.TempDir()
	bus := testkit.GnomeKeyring(t, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")})
	busPath, ok := strings.CutPrefix(strings.Split(bus, ",")[0], "unix:path=")
	if !ok {
		t.Fatalf("the bus address %q is not a path", bus)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	e := hostileEntry("strict")
	e["inheritEnv"] = []string{"DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"}
	temps := t.TempDir()
	th := runHostWith(t, nil, map[string]any{"hostile": e, "victim": hostileEntry("strict")}, func(o *Options) { o.SandboxTemp = temps })
	th.waitRunning(t, "hostile")
	th.waitRunning(t, "victim")
	gw := api.GatewayPathFor(th.opts.SocketPath)
	// Another sandboxed server's temp folder, and the host's own config.
	victimFile := filepath.Join(temps, "victim", "secret.txt")
	if err := os.WriteFile(victimFile, []byte("the victim's"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{{"read", victimFile}, {"read", th.opts.ConfigPath}, {"list", filepath.Dir(th.opts.ConfigPath)}} {
		if got := sandboxtest.Try(p[0], p[1]); got != "ok" {
			t.Fatalf("%s %s unconfined = %q, want ok (the probe is broken)", p[0], p[1], got)
		}
		if got := th.try(t, "hostile", p[0], p[1]); got == "ok" {
			t.Errorf("%s %s from the strict server: it worked, want it denied", p[0], p[1])
		}
	}

	// Unconfined, each door opens (this test process is a peer the host
	// admits).
	for _, p := range [][2]string{{"hostapi", th.opts.SocketPath}, {"gateway", gw}, {"dbus", busPath}} {
		if got := sandboxtest.Try(p[0], p[1]); got != "ok" {
			t.Fatalf("%s %s unconfined = %q, want ok (the probe is broken)", p[0], p[1], got)
		}
	}
	for _, p := range [][2]string{{"hostapi", th.opts.SocketPath}, {"hostapi-child", th.opts.SocketPath}, {"gateway", gw}, {"dbus", busPath}} {
		if got := th.try(t, "hostile", p[0], p[1]); got == "ok" {
			t.Errorf("%s %s from the strict server: it worked, want it denied", p[0], p[1])
		}
	}
	for _, v := range []string{"XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "SWITCHBOARD_RUNTIME_DIR", sandbox.PolicyEnv} {
		if got := th.try(t, "hostile", "noenv", v); got != "ok" {
			t.Errorf("the strict server's environment: %s", got)
		}
	}
	if got := th.try(t, "hostile", "tmpdir-not-under", th.opts.RuntimeDir); got != "ok" {
		t.Errorf("the strict server learns the runtime folder: %s", got)
	}
	if got := th.try(t, "hostile", "fds", ""); got != "ok" {
		t.Errorf("the strict server: %s", got)
	}
	if st := th.statusOf(t, "hostile"); st.Sandbox == nil || st.Sandbox.Unconfined {
		t.Errorf("after the tries: %+v", st.Sandbox)
	}
}

// TestHostRefusesSandboxedPeers: with the sandbox's seccomp part off (so a
// sandboxed server can open Unix sockets again), the host itself refuses
// the server, a child of it, and an orphan of it that was reparented to
// the host, on the API socket and the gateway, and logs the refusal with
// the server's name; an unconfined server of the same host is admitted.
func TestHostRefusesSandboxedPeers(t *testing.T) {
	if s := sandbox.Probe(); s.ABI < 6 {
		testkit.SkipOrFail(t, "Landlock ABI 6 is needed: %s", s)
	}
	sandbox.WithoutSeccompForTest(t)
	e := hostileEntry("strict")
	e["sandboxRequired"] = false // without seccomp a required sandbox does not start
	th := runHost(t, nil, map[string]any{"hostile": e, "free": hostileEntry("off")})
	st := th.waitRunning(t, "hostile")
	if st.Sandbox == nil || st.Sandbox.Unconfined || !strings.Contains(strings.Join(st.Sandbox.NotEnforced, ";"), "Unix sockets") {
		t.Fatalf("the server is not confined by Landlock alone: %+v", st.Sandbox)
	}
	th.waitRunning(t, "free")
	gw := api.GatewayPathFor(th.opts.SocketPath)
	// The door is open without seccomp: the socket connects.
	if got := th.try(t, "hostile", "unix", th.opts.SocketPath); got != "ok" {
		t.Fatalf("without seccomp the server cannot even connect (%s): this test would prove nothing", got)
	}
	for _, p := range [][2]string{{"hostapi", th.opts.SocketPath}, {"hostapi-child", th.opts.SocketPath}, {"hostapi-orphan", th.opts.SocketPath}, {"gateway", gw}} {
		got := th.try(t, "hostile", p[0], p[1])
		if got == "ok" {
			t.Errorf("%s from the sandboxed server: admitted, want refused", p[0])
		} else if p[0] != "gateway" && !strings.Contains(got, "sandboxed server") {
			t.Errorf("%s: %s, want the host's refusal", p[0], got)
		}
	}
	for _, p := range [][2]string{{"hostapi", th.opts.SocketPath}, {"hostapi-child", th.opts.SocketPath}, {"hostapi-orphan", th.opts.SocketPath}, {"gateway", gw}} {
		if got := th.try(t, "free", p[0], p[1]); got != "ok" {
			t.Errorf("%s from an unconfined server = %q, want admitted", p[0], got)
		}
	}
	if log := th.log(t); !strings.Contains(log, "refused a connection from a sandboxed server") || !strings.Contains(log, "hostile") {
		t.Errorf("the refusal is not logged with the server's name:\n%s", log)
	}
}
