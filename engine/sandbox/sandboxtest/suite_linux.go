//go:build linux

package sandboxtest

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/serverspec"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// fixture is what the suite's probes aim at: a fake home with the user's
// credentials and caches, Switchboard's state, a read-only and a writable
// folder, sockets of every kind and processes outside the sandbox.
type fixture struct {
	home, state, ro, work, payload string
	unixSock, unixDgram, abstract  string
	tcp, tcpOther, udp             string
	sleepPID                       string
	protected                      []string
}

// expect is a probe's outcome under a preset: deny, allow, or skip (the
// mode does not decide it: raw sockets under outbound).
type expect int

const (
	deny expect = iota
	allow
	skip
)

// probe is one line of the suite.
type probe struct {
	name, probe, arg string
	// base: the unconfined run must succeed (false for the positive
	// probes whose unconfined result is the same, and for the ones that
	// need root).
	base bool
	root bool // needs root (CAP_NET_RAW, CAP_SYS_ADMIN) unconfined
	// baseLeaks: unconfined, the probe must fail (it sees what the test
	// left open for it); confined, it must pass.
	baseLeaks bool
	user      bool // checked for a user only (root's children lose their /proc/self: runtime.go procRead)
	presets   map[string]expect
	// reset prepares the probe's target before each run.
	reset func(t *testing.T)
}

var presets = []string{"strict", "files", "network", "allow"}

func all(e expect) map[string]expect {
	return map[string]expect{"strict": e, "files": e, "network": e, "allow": e}
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{home: t.TempDir(), state: t.TempDir(), ro: t.TempDir(), work: t.TempDir()}
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{".ssh/id_ed25519", ".npmrc", ".pypirc", ".netrc", ".cargo/credentials.toml", ".docker/config.json",
		".aws/credentials", ".config/gh/hosts.yml", ".local/share/keyrings/login.keyring", ".npm/_npx/abc/node_modules/pkg/index.js",
		".cache/uv/archive-v0/x/pkg.py"} {
		write(filepath.Join(f.home, p), "secret "+p)
	}
	write(filepath.Join(f.state, "activity.db"), "state")
	f.protected = serverspec.Protected(f.home, f.state)
	// The payload lives in ~/.local/bin, as a uv or pipx tool would: its
	// grant must be its own file, not ~/.local.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f.payload = filepath.Join(f.home, ".local", "bin", "hostile")
	copyFile(t, exe, f.payload)
	write(filepath.Join(f.work, "file"), "work")

	// Sockets, outside the sandbox: a named one in a folder the server
	// may even write (its access to the file is not what closes it), an
	// abstract one, a datagram one, TCP listeners and a UDP receiver.
	sockDir := t.TempDir()
	f.unixSock = filepath.Join(sockDir, "host.sock")
	f.unixDgram = filepath.Join(sockDir, "dgram.sock")
	f.abstract = fmt.Sprintf("switchboard-suite-%d", os.Getpid())
	for _, addr := range []string{f.unixSock, "@" + f.abstract} {
		l, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go acceptAll(l)
	}
	dg, err := net.ListenPacket("unixgram", f.unixDgram)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dg.Close() })
	for _, p := range []*string{&f.tcp, &f.tcpOther} {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go acceptAll(l)
		*p = l.Addr().String()
	}
	u, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	f.udp = u.LocalAddr().String()
	sleep := exec.Command("sleep", "600")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sleep.Process.Kill(); sleep.Wait() })
	f.sleepPID = strconv.Itoa(sleep.Process.Pid)
	// A descriptor of a secret without close-on-exec, as an AI app or a
	// terminal leaves them: every child of this process inherits it unless
	// the shim closes it.
	fd, err := syscall.Open(filepath.Join(f.home, ".ssh/id_ed25519"), syscall.O_RDONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	return f
}

func acceptAll(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// roDir makes a fresh read-only target of a ro- probe: ro/NAME/file.
func (f *fixture) roDir(t *testing.T, name string) string {
	d := filepath.Join(f.ro, name)
	os.RemoveAll(d)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(d, "file"), []byte("read only"), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

func (f *fixture) probes(t *testing.T) []probe {
	h := func(p string) string { return filepath.Join(f.home, p) }
	net := func(none, network, allowed expect) map[string]expect {
		return map[string]expect{"strict": none, "files": none, "network": network, "allow": allowed}
	}
	ps := []probe{
		// Files: the user's, credentials, caches, Switchboard's state.
		{name: "read ~/.ssh", probe: "read", arg: h(".ssh/id_ed25519"), base: true, presets: all(deny)},
		{name: "list HOME", probe: "list", arg: f.home, base: true, presets: all(deny)},
		{name: "write outside", probe: "write", arg: h("planted.txt"), base: true, presets: all(deny)},
		{name: "read ~/.npmrc", probe: "read", arg: h(".npmrc"), base: true, presets: all(deny)},
		{name: "read ~/.pypirc", probe: "read", arg: h(".pypirc"), base: true, presets: all(deny)},
		{name: "read ~/.netrc", probe: "read", arg: h(".netrc"), base: true, presets: all(deny)},
		{name: "read ~/.cargo/credentials.toml", probe: "read", arg: h(".cargo/credentials.toml"), base: true, presets: all(deny)},
		{name: "read ~/.docker/config.json", probe: "read", arg: h(".docker/config.json"), base: true, presets: all(deny)},
		{name: "read ~/.aws", probe: "read", arg: h(".aws/credentials"), base: true, presets: all(deny)},
		{name: "read ~/.config/gh", probe: "read", arg: h(".config/gh/hosts.yml"), base: true, presets: all(deny)},
		{name: "read the keyring (its program in ~/.local/bin)", probe: "read", arg: h(".local/share/keyrings/login.keyring"), base: true, presets: all(deny)},
		{name: "list ~/.local", probe: "list", arg: h(".local"), base: true, presets: all(deny)},
		{name: "read activity.db", probe: "read", arg: filepath.Join(f.state, "activity.db"), base: true, presets: all(deny)},
		{name: "plant code in the npx cache", probe: "write", arg: h(".npm/_npx/abc/node_modules/pkg/index.js"), base: true, presets: all(deny)},
		{name: "plant code in the uv cache", probe: "write", arg: h(".cache/uv/archive-v0/x/pkg.py"), base: true, presets: all(deny)},
		{name: "write the granted folder", probe: "write", arg: filepath.Join(f.work, "file"), base: true,
			presets: map[string]expect{"strict": deny, "files": allow, "network": deny, "allow": deny}},
		{name: "read the read-only folder", probe: "read", arg: filepath.Join(f.ro, "read", "file"), base: true,
			presets: map[string]expect{"strict": deny, "files": allow, "network": deny, "allow": deny},
			reset:   func(t *testing.T) { f.roDir(t, "read") }},
		// Unix sockets, every kind.
		{name: "connect a named Unix socket", probe: "unix", arg: f.unixSock, base: true, presets: all(deny)},
		{name: "connect an abstract Unix socket", probe: "unix-abstract", arg: f.abstract, base: true, presets: all(deny)},
		{name: "send to a Unix datagram socket", probe: "unix-dgram", arg: f.unixDgram, base: true, presets: all(deny)},
		{name: "socketpair", probe: "socketpair", presets: all(allow)},
		// Network.
		{name: "TCP connect", probe: "tcp", arg: f.tcp, base: true, presets: net(deny, allow, allow)},
		{name: "TCP connect to a port not listed", probe: "tcp", arg: f.tcpOther, base: true, presets: net(deny, allow, deny)},
		{name: "TCP listen", probe: "listen", base: true, presets: all(deny)},
		{name: "UDP", probe: "udp", arg: f.udp, base: true, presets: net(deny, allow, allow)},
		{name: "raw socket", probe: "raw", base: true, root: true, presets: net(deny, skip, skip)},
		{name: "netlink socket", probe: "netlink", base: true, presets: net(deny, skip, skip)},
		{name: "io_uring", probe: "io_uring", base: true, presets: all(deny)},
		{name: "the kernel key ring", probe: "keyctl", base: true, presets: all(deny)},
		// Other processes.
		{name: "signal a process outside", probe: "signal", arg: f.sleepPID, base: true, presets: all(deny)},
		{name: "ptrace a process outside", probe: "ptrace", arg: f.sleepPID, base: true, presets: all(deny)},
		{name: "read another process's environ", probe: "proc-environ", arg: f.sleepPID, base: true, presets: all(deny)},
		{name: "open another process's memory", probe: "proc-mem", arg: f.sleepPID, base: true, presets: all(deny)},
		{name: "TIOCSTI on a terminal", probe: "tiocsti", base: true, root: true, presets: all(deny)},
		// What a server needs.
		{name: "its own /proc/self", probe: "proc-self", presets: all(allow)},
		{name: "a child's own /proc/self", probe: "proc-child", user: true, presets: all(allow)},
		{name: "its temp folder", probe: "tmp", presets: all(allow)},
		{name: "no inherited descriptor", probe: "fds", baseLeaks: true, presets: all(allow)},
		{name: "no policy in its environment", probe: "noenv", arg: sandbox.PolicyEnv, presets: all(allow)},
		{name: "no carried environment in its environment", probe: "noenv", arg: sandbox.CarryEnv, presets: all(allow)},
	}
	// A read-only folder stays read-only (files: it is in the read list).
	for _, p := range []string{"ro-write", "ro-create", "ro-rename", "ro-unlink", "ro-truncate", "ro-chmod", "ro-mkdir", "ro-symlink", "ro-fifo"} {
		p := p
		ps = append(ps, probe{name: "read-only folder: " + strings.TrimPrefix(p, "ro-"), probe: p, arg: filepath.Join(f.ro, p), base: true, presets: all(deny),
			reset: func(t *testing.T) { f.roDir(t, p) }})
	}
	return ps
}

// policy is preset's policy with the runtime's needs, as the engine
// builds it.
func (f *fixture) policy(t *testing.T, preset, temp string) sandbox.Policy {
	p := sandbox.Policy{Enabled: true, Preset: preset, Net: sandbox.NetNone, Required: true}
	switch preset {
	case "files":
		p.Read, p.Write = []string{f.ro}, []string{f.work}
	case "network":
		p.Net = sandbox.NetOutbound
	case "allow":
		p.Preset, p.Net, p.NetAllow = "", sandbox.NetAllow, []string{f.tcp}
	}
	read, write := sandbox.Runtime{Exe: f.payload, Home: f.home, Path: "/usr/bin:/bin", Temp: temp, Net: p.Net, Protected: f.protected}.Needs()
	p.Read = append(p.Read, read...)
	p.Write = append(p.Write, write...)
	return p
}

// env is the payload's environment: a home, a PATH, and the probe role.
func (f *fixture) env(temp string) []string {
	return []string{"HOME=" + f.home, "PATH=/usr/bin:/bin", "TMPDIR=" + temp, RoleEnv + "=probe"}
}

// runProbe runs the payload: through shim with p (encoded for s), or
// unconfined when shim is "".
func (f *fixture) runProbe(t *testing.T, shim string, p sandbox.Policy, s sandbox.Support, temp, probe, arg string) string {
	t.Helper()
	var cmd *exec.Cmd
	if shim == "" {
		cmd = exec.Command(f.payload, probe, arg)
		cmd.Env = f.env(temp)
	} else {
		// As the engine starts it: TMPDIR (one of the loader's variables,
		// sandbox.LoaderVar) comes carried, so the "tmp" probe fails if the
		// shim does not set it again.
		cmd = exec.Command(shim, sandbox.ShimArg, f.payload, f.payload, probe, arg)
		var env []string
		for _, kv := range f.env(temp) {
			if !strings.HasPrefix(kv, "TMPDIR=") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, sandbox.PolicyEnv+"="+sandbox.EncodePolicy(p, s), string(sandbox.EncodeCarried([]string{"TMPDIR=" + temp})))
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", probe, arg, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Run is the behavioural suite through shim (a program implementing
// `__sandbox-exec`): every probe unconfined first, then under every
// preset. It needs Landlock ABI 6 and seccomp; without them it skips, and
// fails under CI.
func Run(t *testing.T, shim string) {
	s := sandbox.Probe()
	if s.ABI < 6 || s.NetNone == "" {
		testkit.SkipOrFail(t, "the sandbox suite needs Landlock ABI 6 and seccomp; this kernel: %s", s)
		return
	}
	f := newFixture(t)
	root := os.Geteuid() == 0
	probes := f.probes(t)
	temp := t.TempDir()
	t.Run("unconfined", func(t *testing.T) {
		for _, p := range probes {
			if p.baseLeaks {
				if got := f.runProbe(t, "", sandbox.Policy{}, s, temp, p.probe, p.arg); got == "ok" {
					t.Errorf("%s: unconfined = ok, want it to see the descriptor the test leaves open (the probe is broken)", p.name)
				}
				continue
			}
			if !p.base || p.root && !root {
				continue
			}
			if p.reset != nil {
				p.reset(t)
			}
			if got := f.runProbe(t, "", sandbox.Policy{}, s, temp, p.probe, p.arg); got != "ok" {
				t.Errorf("%s: unconfined = %q, want ok (the probe is broken, so its denial would prove nothing)", p.name, got)
			}
		}
	})
	for _, preset := range presets {
		t.Run(preset, func(t *testing.T) {
			temp := t.TempDir()
			pol := f.policy(t, preset, temp)
			for _, p := range probes {
				want := p.presets[preset]
				if want == skip || p.root && !root || p.user && root {
					continue
				}
				if p.reset != nil {
					p.reset(t)
				}
				got := f.runProbe(t, shim, pol, s, temp, p.probe, p.arg)
				switch {
				case want == allow && got != "ok":
					t.Errorf("%s under %s = %q, want ok", p.name, preset, got)
				case want == deny && got == "ok":
					t.Errorf("%s under %s: it worked, want it denied", p.name, preset)
				case want == deny && !strings.HasPrefix(got, "denied: "):
					t.Errorf("%s under %s = %q", p.name, preset, got)
				}
			}
		})
	}
	// Landlock alone (the seccomp part off): its scoping still closes
	// abstract sockets and signals to processes outside.
	t.Run("landlock-only", func(t *testing.T) {
		temp := t.TempDir()
		ll := s
		ll.NetNone = ""
		pol := f.policy(t, "network", temp)
		for _, p := range []struct{ probe, arg string }{{"unix-abstract", f.abstract}, {"signal", f.sleepPID}} {
			if got := f.runProbe(t, shim, pol, ll, temp, p.probe, p.arg); got == "ok" {
				t.Errorf("%s without seccomp: it worked, want Landlock to deny it", p.probe)
			}
		}
	})
}
