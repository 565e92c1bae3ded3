//go:build linux && cgo

package cshim_test

// The C shim proven on real processes: this test binary links it, so run
// as `TEST __sandbox-exec PATH ...` it confines itself in the constructor
// and execve's PATH before Go starts; TestMain exits 99 if it ever sees
// __sandbox-exec (the C shim declined).

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/switchboard-mcp/switchboard/engine/sandbox/cshim"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/engine/sandbox/sandboxtest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const roleEnv = "SWITCHBOARD_CSHIM_TEST_ROLE"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ShimArg {
		fmt.Fprintln(os.Stderr, "the C shim declined")
		os.Exit(99)
	}
	sandboxtest.Main()
	switch os.Getenv(roleEnv) {
	case "read":
		if _, err := os.ReadFile(os.Args[1]); err != nil {
			fmt.Println("error:", err)
		} else {
			fmt.Println("ok")
		}
		os.Exit(0)
	case "udp":
		c, err := net.Dial("udp", "127.0.0.1:9")
		if err != nil {
			fmt.Println("error:", err)
		} else {
			c.Close()
			fmt.Println("ok")
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// run runs this binary through the C shim with policy p, as role with
// args, and returns its output.
func run(t *testing.T, p sandbox.Policy, s sandbox.Support, role string, args ...string) string {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append([]string{sandbox.ShimArg, exe, exe}, args...)...)
	cmd.Env = append(os.Environ(), roleEnv+"="+role, sandbox.PolicyEnv+"="+sandbox.EncodePolicy(p, s))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", role, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestCShim(t *testing.T) {
	s := sandbox.Probe()
	if s.ABI < 4 {
		testkit.SkipOrFail(t, "Landlock ABI 4 is needed, this kernel has %d (%s)", s.ABI, s.Detail)
	}
	exe, _ := os.Executable()
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "id_ed25519")
	if err := os.WriteFile(secret, []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	base := []string{"/usr", "/lib", "/lib64", "/etc/ld.so.cache", "/proc/self", "/sys/fs/cgroup", "/sys/kernel/mm", filepath.Dir(exe)}
	strict := sandbox.Policy{Enabled: true, Read: base, Write: []string{"/dev/null"}, Net: sandbox.NetNone}
	if got := run(t, strict, s, "read", secret); !strings.Contains(got, "permission denied") {
		t.Errorf("read outside the list = %q, want permission denied", got)
	}
	allowed := strict
	allowed.Read = append(append([]string(nil), base...), secretDir)
	if got := run(t, allowed, s, "read", secret); got != "ok" {
		t.Errorf("read inside the list = %q, want ok", got)
	}
	if got := run(t, strict, s, "udp"); !strings.Contains(got, "permission denied") {
		t.Errorf("UDP under net none = %q, want permission denied", got)
	}
	outbound := strict
	outbound.Net = sandbox.NetOutbound
	if got := run(t, outbound, s, "udp"); got != "ok" {
		t.Errorf("UDP under outbound = %q, want ok", got)
	}
}

// TestCShimSuite is the behavioural suite (sandboxtest.Run) through the C
// shim: this test binary links it, as switchboard and the packaged
// switchboard-sandbox do.
func TestCShimSuite(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sandboxtest.Run(t, exe)
}

// TestCShimSuiteAsUser runs TestCShimSuite again as an unprivileged user
// when the tests run as root (CI does): root and a user are confined
// differently (/proc: runtime.go procRead), and the probes that need a
// user (a child reading its own /proc/self) are checked only there. A copy
// of this binary runs as nobody with a temp folder of its own.
func TestCShimSuiteAsUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("already a user: TestCShimSuite is this run")
	}
	uid, gid := testkit.Nobody(t)
	dir, err := os.MkdirTemp("", "cshim-user")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := testkit.CopyTestBinary(t, dir, "cshim.test")
	tmp := filepath.Join(dir, "tmp")
	if err := os.Mkdir(tmp, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(tmp, uid, gid); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run", "^TestCShimSuite$", "-test.count", "1", "-test.v")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + tmp, "TMPDIR=" + tmp, "CI=" + os.Getenv("CI")}
	testkit.RunAs(cmd, uid, gid)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestCShimSuite") {
		t.Fatalf("the suite as uid %d: %v\n%s", uid, err, out)
	}
	if !strings.Contains(string(out), "PASS") || strings.Contains(string(out), "SKIP") {
		t.Errorf("the suite as a user skipped:\n%s", out)
	}
}

// TestCShimLoaderVariables: an entry's LD_PRELOAD or LD_AUDIT never acts
// in the C shim before it confines itself (this test binary is linked
// dynamically, as the switchboard binary is); the server still gets it.
func TestCShimLoaderVariables(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sandboxtest.LoaderVariables(t, exe)
}
