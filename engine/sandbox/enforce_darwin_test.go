//go:build darwin

package sandbox_test

// The Seatbelt profile on real processes, for the first run on a Mac:
// this file is compiled and vetted on Linux (GOOS=darwin go vet) but has
// never run (docs/sandbox.md, "macOS"). The test binary is re-executed by
// engine.Start, under sandbox-exec, as a helper that tries one thing and
// prints "ok" or "error: ..."; each try succeeds unconfined, so a denial
// proves the profile, not a broken helper.

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const tryEnv = "SWITCHBOARD_SEATBELT_TEST_TRY"

var testExe string

func TestMain(m *testing.M) {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	testExe = exe
	if op := os.Getenv(tryEnv); op != "" {
		if err := try(op, os.Args[len(os.Args)-1]); err != nil {
			fmt.Println("error: " + err.Error())
		} else {
			fmt.Println("ok")
		}
		syscall.Exit(0)
	}
	os.Exit(m.Run())
}

// try does one thing a confined server must (or must not) be able to do.
func try(op, arg string) error {
	switch op {
	case "read":
		_, err := os.ReadFile(arg)
		return err
	case "write":
		return os.WriteFile(arg, []byte("written"), 0o600)
	case "unix": // connect to a named Unix socket (host.sock, an agent)
		c, err := net.DialTimeout("unix", arg, 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "unix-via-link": // the same, through a link planted in its own TMPDIR
		l := filepath.Join(os.TempDir(), "planted.sock")
		os.Remove(l)
		if err := os.Symlink(arg, l); err != nil {
			return err
		}
		c, err := net.DialTimeout("unix", l, 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "own-unix": // bind and connect a socket in its own TMPDIR
		p := filepath.Join(os.TempDir(), "own.sock")
		os.Remove(p)
		l, err := net.Listen("unix", p)
		if err != nil {
			return err
		}
		defer l.Close()
		c, err := net.DialTimeout("unix", p, 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	case "pair": // socketpair(2), as node and python use it
		fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
		if err == nil {
			syscall.Close(fds[0])
			syscall.Close(fds[1])
		}
		return err
	case "tcp":
		c, err := net.DialTimeout("tcp", arg, 5*time.Second)
		if err == nil {
			c.Close()
		}
		return err
	}
	return fmt.Errorf("unknown try %q", op)
}

// run starts the helper through engine.Start under pol and returns what
// it printed.
func run(t *testing.T, pol sandbox.Policy, home, op, arg string) string {
	t.Helper()
	tmp, err := os.MkdirTemp("/tmp", "sbx") // short: sun_path is 104 bytes on macOS
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	spec := engine.Spec{Name: "try", Command: testExe, Args: []string{"-test.run=^$", arg},
		Env:    map[string]engine.EnvValue{tryEnv: engine.Literal(op), "HOME": engine.Literal(home)},
		Stderr: engine.Stderr{Kind: engine.StderrCapture}, StdinGrace: time.Second, TermGrace: time.Second, Sandbox: pol}
	p, err := engine.Start(context.Background(), spec, engine.StartOptions{SandboxTemp: tmp})
	if err != nil {
		t.Fatalf("%s %s: %v", op, arg, err)
	}
	out, _ := io.ReadAll(p.Stdout())
	<-p.Stop()
	if pol.Enabled && (p.Sandbox() == nil || p.Sandbox().Mechanism != sandbox.MechanismSeatbelt) {
		t.Errorf("%s ran without Seatbelt: %+v", op, p.Sandbox())
	}
	if len(out) == 0 && p.Stderr() != nil {
		t.Logf("%s %s: stderr %q", op, arg, p.Stderr().Lines())
	}
	return strings.TrimSpace(string(out))
}

// TestSeatbeltEnforces: each try succeeds unconfined; under strict the
// credentials, writes outside, other Unix sockets (also through a link in
// its own TMPDIR) and TCP are denied,
// while its own socket in TMPDIR and socketpair work; a listed Unix
// socket is reachable, and the network preset reaches TCP but still no
// other Unix socket.
func TestSeatbeltEnforces(t *testing.T) {
	if _, err := os.Stat(sandbox.SeatbeltExec); err != nil {
		testkit.SkipOrFail(t, "%s: %v", sandbox.SeatbeltExec, err)
	}
	home := t.TempDir()
	secret := filepath.Join(home, ".ssh", "id_ed25519")
	if err := os.MkdirAll(filepath.Dir(secret), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	sockDir, err := os.MkdirTemp("/tmp", "host")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(sockDir)
	hostSock := filepath.Join(sockDir, "host.sock")
	ul, err := net.Listen("unix", hostSock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	tl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tl.Close()
	for _, l := range []net.Listener{ul, tl} {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
			}
		}()
	}
	outside := filepath.Join(t.TempDir(), "outside")

	strict := sandbox.Policy{Enabled: true, Preset: "strict", Net: sandbox.NetNone, Required: true}
	listed := strict
	listed.Unix = []string{hostSock}
	network := sandbox.Policy{Enabled: true, Preset: "network", Net: sandbox.NetOutbound, Required: true}
	for _, c := range []struct {
		pol     sandbox.Policy
		op, arg string
		want    string // the start of the helper's answer when confined
	}{
		{strict, "read", secret, "error"},
		{strict, "write", outside, "error"},
		{strict, "unix", hostSock, "error"},
		{strict, "unix-via-link", hostSock, "error"}, // Seatbelt matches the real path
		{strict, "tcp", tl.Addr().String(), "error"},
		{strict, "own-unix", "-", "ok"},
		{strict, "pair", "-", "ok"},
		{listed, "unix", hostSock, "ok"},
		{network, "tcp", tl.Addr().String(), "ok"},
		{network, "unix", hostSock, "error"},
		{network, "read", secret, "error"},
	} {
		name := fmt.Sprintf("%s %s %s", c.pol.Preset, c.op, c.arg)
		if got := run(t, sandbox.Policy{}, home, c.op, c.arg); got != "ok" {
			t.Errorf("%s unconfined = %q, want ok (the helper is broken)", name, got)
			continue
		}
		if c.op == "write" {
			os.Remove(c.arg)
		}
		if got := run(t, c.pol, home, c.op, c.arg); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s = %q, want %s", name, got, c.want)
		}
	}
}
