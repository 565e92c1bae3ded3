//go:build linux

package sandbox_test

// The sandbox proven on real processes: the test binary re-executed as
// the exec shim (as the app's own binary is) and as a go-sdk MCP server
// whose tools try what a confined server must not do; each try succeeds
// with the sandbox off, so a denial proves the sandbox, not a broken
// helper. Real npm servers run under the presets.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/engine/sandbox/sandboxtest"
	"github.com/switchboard-mcp/switchboard/engine/stdio"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

var testExe string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ShimArg {
		os.Exit(sandbox.ShimMain(os.Args[2:]))
	}
	sandboxtest.Main()
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	testExe = exe
	os.Exit(m.Run())
}

// needLandlock skips (fails under CI) unless the kernel has Landlock ABI 6
// (TCP rules and scoping).
func needLandlock(t *testing.T) sandbox.Support {
	t.Helper()
	s := sandbox.Probe()
	if s.ABI < 6 {
		testkit.SkipOrFail(t, "Landlock ABI 6 is needed, this kernel has %d (%s)", s.ABI, s.Detail)
	}
	return s
}

// connect starts spec through the transport and returns the session and
// the process.
func connect(t *testing.T, spec engine.Spec) (*mcp.ClientSession, *engine.Process) {
	t.Helper()
	var proc *engine.Process
	tr := &stdio.Transport{Spec: spec, Options: engine.StartOptions{Shim: testExe, SandboxTemp: t.TempDir()},
		Started: func(p *engine.Process) { proc = p }}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "sandbox-test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", spec.Name, err)
	}
	t.Cleanup(func() {
		cs.Close()
		if proc != nil {
			select {
			case <-proc.Stop():
			case <-time.After(15 * time.Second):
				t.Errorf("%s did not stop", spec.Name)
			}
		}
	})
	return cs, proc
}

// try runs one probe of the hostile server (sandboxtest.Serve: its tool
// "try") and returns its text: "ok", or "denied: ERROR". The tests' old
// names map to its probes: env is noenv (ok when unset), signal is kill
// (SIGTERM).
func try(t *testing.T, cs *mcp.ClientSession, probe string, args map[string]any) string {
	t.Helper()
	switch probe {
	case "env":
		probe = "noenv"
	case "signal":
		probe = "kill"
	}
	return call(t, cs, "try", map[string]any{"probe": probe, "arg": args["arg"]})
}

// call calls a tool and returns its text (an error result's text too).
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return "error: " + err.Error()
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	if res.IsError {
		return "error: " + b.String()
	}
	return b.String()
}

// fakeHome makes a HOME with a private key in it.
func fakeHome(t *testing.T) (home, key string) {
	home = t.TempDir()
	key = filepath.Join(home, ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(key), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(key, []byte("-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return home, key
}

func probeSpec(t *testing.T, home string, pol sandbox.Policy) engine.Spec {
	return engine.Spec{Name: t.Name(), Command: testExe, Env: map[string]engine.EnvValue{
		sandboxtest.RoleEnv: engine.Literal("serve"), "HOME": engine.Literal(home)},
		Stderr: engine.Stderr{Kind: engine.StderrCapture}, StdinGrace: time.Second, TermGrace: time.Second, Sandbox: pol}
}

// TestSandboxDenies: each probe succeeds unconfined and is denied under
// the strict preset, with an error that says so.
func TestSandboxDenies(t *testing.T) {
	needLandlock(t)
	for _, mode := range []string{"off", "strict"} {
		t.Run(mode, func(t *testing.T) {
			home, key := fakeHome(t)
			outside := filepath.Join(t.TempDir(), "written")
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer ln.Close()
			go func() {
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					c.Close()
				}
			}()
			udp, err := net.ListenPacket("udp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer udp.Close()
			victim := exec.Command("sleep", "60")
			if err := victim.Start(); err != nil {
				t.Fatal(err)
			}
			victimDone := make(chan error, 1)
			go func() { victimDone <- victim.Wait() }()
			defer victim.Process.Kill()

			pol := sandbox.Policy{}
			if mode == "strict" {
				pol = sandbox.Policy{Enabled: true, Preset: "strict", Net: sandbox.NetNone, Required: true}
			}
			cs, proc := connect(t, probeSpec(t, home, pol))
			if mode == "strict" {
				st := proc.Sandbox()
				if st == nil || st.Mechanism != "landlock" || st.Unconfined || st.Net != "landlock+seccomp" {
					t.Fatalf("status = %+v, want landlock with seccomp for net none", st)
				}
			} else if proc.Sandbox() != nil {
				t.Fatalf("status = %+v without a sandbox", proc.Sandbox())
			}
			tries := []struct {
				tool, arg string
				denied    string // the error's words under the sandbox
			}{
				{"read", key, "permission denied"},
				{"list", home, "permission denied"},
				{"write", outside, "permission denied"},
				{"tcp", ln.Addr().String(), "permission denied"},
				{"listen", "", "permission denied"},
				{"udp", udp.LocalAddr().String(), "permission denied"},
				{"signal", fmt.Sprint(victim.Process.Pid), "operation not permitted"},
			}
			for _, tr := range tries {
				got := try(t, cs, tr.tool, map[string]any{"arg": tr.arg})
				if mode == "off" && got != "ok" {
					t.Errorf("%s %s unconfined = %q, want ok (the helper is broken)", tr.tool, tr.arg, got)
				}
				if mode == "strict" && !strings.Contains(got, tr.denied) {
					t.Errorf("%s %s under strict = %q, want an error with %q", tr.tool, tr.arg, got, tr.denied)
				}
			}
			// What the sandbox leaves: its private temp directory.
			if got := try(t, cs, "tmp", map[string]any{"arg": ""}); got != "ok" {
				t.Errorf("writing to TMPDIR = %q, want ok", got)
			}
			// The policy's variable is gone before the server runs.
			if got := try(t, cs, "env", map[string]any{"arg": sandbox.PolicyEnv}); got != "ok" {
				t.Errorf("the server sees %s: %q", sandbox.PolicyEnv, got)
			}
			if mode == "off" {
				if _, err := os.Stat(outside); err != nil {
					t.Errorf("the unconfined write left no file: %v", err)
				}
				buf := make([]byte, 64)
				udp.SetReadDeadline(time.Now().Add(5 * time.Second))
				if n, _, err := udp.ReadFrom(buf); err != nil || string(buf[:n]) != "udp probe" {
					t.Errorf("the unconfined UDP datagram did not arrive: %q %v", buf[:n], err)
				}
				select {
				case <-victimDone:
				case <-time.After(10 * time.Second):
					t.Errorf("the unconfined SIGTERM did not end the victim")
				}
			} else {
				if _, err := os.Stat(outside); err == nil {
					t.Errorf("the denied write created %s", outside)
				}
				select {
				case err := <-victimDone:
					t.Errorf("the victim ended under the sandbox: %v", err)
				default:
				}
			}
		})
	}
}

// TestSandboxWriteList: the files preset reads and writes its chosen
// directory and nothing beside it.
func TestSandboxWriteList(t *testing.T) {
	needLandlock(t)
	home, key := fakeHome(t)
	dir := t.TempDir()
	pol := sandbox.Policy{Enabled: true, Preset: "files", Write: []string{dir}, Net: sandbox.NetNone, Required: true}
	cs, _ := connect(t, probeSpec(t, home, pol))
	if got := try(t, cs, "write", map[string]any{"arg": filepath.Join(dir, "f")}); got != "ok" {
		t.Errorf("write in the chosen directory = %q", got)
	}
	if got := try(t, cs, "read", map[string]any{"arg": filepath.Join(dir, "f")}); got != "ok" {
		t.Errorf("read in the chosen directory = %q", got)
	}
	if got := try(t, cs, "read", map[string]any{"arg": key}); !strings.Contains(got, "permission denied") {
		t.Errorf("read of the key = %q, want permission denied", got)
	}
}

// TestSandboxNetAllow: TCP connect only to the listed port.
func TestSandboxNetAllow(t *testing.T) {
	needLandlock(t)
	home, _ := fakeHome(t)
	var lns []net.Listener
	for range 2 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
		lns = append(lns, ln)
	}
	pol := sandbox.Policy{Enabled: true, Net: sandbox.NetAllow, NetAllow: []string{lns[0].Addr().String()}, Required: true}
	cs, proc := connect(t, probeSpec(t, home, pol))
	if got := try(t, cs, "tcp", map[string]any{"arg": lns[0].Addr().String()}); got != "ok" {
		t.Errorf("connect to the allowed port = %q", got)
	}
	if got := try(t, cs, "tcp", map[string]any{"arg": lns[1].Addr().String()}); !strings.Contains(got, "permission denied") {
		t.Errorf("connect to another port = %q, want permission denied", got)
	}
	if st := proc.Sandbox(); !strings.Contains(strings.Join(st.NotEnforced, "\n"), "not hosts") {
		t.Errorf("status does not say hosts are not filtered: %+v", st)
	}
}

// TestSandboxUnavailable: a kernel without Landlock (the ABI forced to
// 0) refuses a server that requires the sandbox, with the remedy, and
// starts one that does not, unconfined, saying so.
func TestSandboxUnavailable(t *testing.T) {
	t.Setenv(sandbox.ABIEnv, "0")
	home, key := fakeHome(t)
	pol := sandbox.Policy{Enabled: true, Preset: "strict", Net: sandbox.NetNone, Required: true}
	_, err := engine.Start(context.Background(), probeSpec(t, home, pol), engine.StartOptions{Shim: testExe, SandboxTemp: t.TempDir()})
	var ue *sandbox.UnavailableError
	if !errors.As(err, &ue) {
		t.Fatalf("Start = %v, want an UnavailableError", err)
	}
	for _, w := range []string{"sandbox requested but not available on this kernel", "Landlock", `"sandboxRequired": false`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	pol.Required = false
	cs, proc := connect(t, probeSpec(t, home, pol))
	st := proc.Sandbox()
	if st == nil || !st.Unconfined || len(st.NotEnforced) == 0 {
		t.Fatalf("status = %+v, want unconfined with what is not enforced", st)
	}
	if got := try(t, cs, "read", map[string]any{"arg": key}); got != "ok" {
		t.Errorf("unconfined read = %q, want ok", got)
	}
}

func toolText(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	return call(t, cs, tool, args)
}

// TestSandboxServerFilesystem: the real server-filesystem under files,
// given /etc and HOME as directories too: its own checks allow them, the
// sandbox does not; unconfined it lists them (the proof).
func TestSandboxServerFilesystem(t *testing.T) {
	needLandlock(t)
	bin := testkit.NpmServer(t, "mcp-server-filesystem")
	home, _ := fakeHome(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"off", "files"} {
		t.Run(mode, func(t *testing.T) {
			spec := engine.Spec{Name: t.Name(), Command: bin, Args: []string{dir, "/etc", home},
				Env:    map[string]engine.EnvValue{"HOME": engine.Literal(home)},
				Stderr: engine.Stderr{Kind: engine.StderrCapture}, StdinGrace: time.Second, TermGrace: time.Second}
			if mode == "files" {
				spec.Sandbox = sandbox.Policy{Enabled: true, Preset: "files", Write: []string{dir}, Net: sandbox.NetNone, Required: true}
			}
			cs, _ := connect(t, spec)
			if got := toolText(t, cs, "read_text_file", map[string]any{"path": filepath.Join(dir, "hello.txt")}); got != "hello" {
				t.Errorf("read in the chosen directory = %q", got)
			}
			if got := toolText(t, cs, "write_file", map[string]any{"path": filepath.Join(dir, "new.txt"), "content": "new " + mode}); strings.HasPrefix(got, "error") {
				t.Errorf("write in the chosen directory = %q", got)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "new.txt")); string(b) != "new "+mode {
				t.Errorf("new.txt = %q", b)
			}
			for _, d := range []string{"/etc", home} {
				got := toolText(t, cs, "list_directory", map[string]any{"path": d})
				denied := strings.HasPrefix(got, "error") && strings.Contains(strings.ToLower(got), "eacces") ||
					strings.Contains(strings.ToLower(got), "permission denied")
				if mode == "off" && strings.HasPrefix(got, "error") {
					t.Errorf("unconfined list %s = %q", d, got)
				}
				if mode == "files" && !denied {
					t.Errorf("list %s under files = %q, want permission denied", d, got)
				}
			}
		})
	}
}

// TestSandboxServerEverything: the real server-everything works under
// strict.
func TestSandboxServerEverything(t *testing.T) {
	needLandlock(t)
	bin := testkit.NpmServer(t, "mcp-server-everything")
	home, _ := fakeHome(t)
	spec := engine.Spec{Name: t.Name(), Command: bin, Args: []string{"stdio"},
		Env:    map[string]engine.EnvValue{"HOME": engine.Literal(home)},
		Stderr: engine.Stderr{Kind: engine.StderrCapture}, StdinGrace: time.Second, TermGrace: time.Second,
		Sandbox: sandbox.Policy{Enabled: true, Preset: "strict", Net: sandbox.NetNone, Required: true}}
	cs, _ := connect(t, spec)
	if got := call(t, cs, "echo", map[string]any{"message": "confined"}); !strings.Contains(got, "confined") {
		t.Errorf("echo = %q", got)
	}
	if got := call(t, cs, "get-sum", map[string]any{"a": 2, "b": 3}); !strings.Contains(got, "5") {
		t.Errorf("get-sum = %q", got)
	}
}

// TestSandboxNpx: npx itself (a #!/usr/bin/env node script, its npm
// install, its cache in HOME) runs a package under strict: here the
// package installed in the working directory, so no registry is needed.
func TestSandboxNpx(t *testing.T) {
	needLandlock(t)
	bin := testkit.NpmServer(t, "mcp-server-everything")
	if _, err := exec.LookPath("npx"); err != nil {
		testkit.SkipOrFail(t, "npx is not installed: %v", err)
	}
	home, _ := fakeHome(t)
	dir := filepath.Dir(filepath.Dir(filepath.Dir(bin))) // engine/stdio/testdata/npm
	spec := engine.Spec{Name: t.Name(), Command: "npx", Args: []string{"--no-install", "mcp-server-everything", "stdio"}, Cwd: dir,
		Env:    map[string]engine.EnvValue{"HOME": engine.Literal(home)},
		Stderr: engine.Stderr{Kind: engine.StderrCapture}, StdinGrace: time.Second, TermGrace: time.Second,
		Sandbox: sandbox.Policy{Enabled: true, Preset: "strict", Net: sandbox.NetNone, Required: true}}
	cs, _ := connect(t, spec)
	if got := call(t, cs, "echo", map[string]any{"message": "via npx"}); !strings.Contains(got, "via npx") {
		t.Errorf("echo = %q", got)
	}
}

// TestSandboxSuite is the behavioural suite (sandboxtest.Run) through the
// Go shim: this test binary, as the build without cgo runs it.
func TestSandboxSuite(t *testing.T) { sandboxtest.Run(t, testExe) }

// TestSandboxLoaderVariables: an entry's LD_PRELOAD or LD_AUDIT never
// acts in the Go shim (this test binary, linked dynamically) before it
// confines itself; the server still gets it.
func TestSandboxLoaderVariables(t *testing.T) { sandboxtest.LoaderVariables(t, testExe) }
