//go:build linux

package engine

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestSandboxLaunchKeepsSecretsOut: the shim's argv and its policy
// variable hold paths and ports, never the server's secrets; the policy
// cannot be confused with the server's args (they follow the path).
func TestSandboxLaunchKeepsSecretsOut(t *testing.T) {
	if !sandbox.Probe().Available() {
		testkit.SkipOrFail(t, "no Landlock: the shim is not used")
	}
	const secret = "s3cr3t-value-123"
	spec := Spec{Name: "x", Command: "/bin/cat", Args: []string{"--flag", sandbox.ShimArg},
		Sandbox: sandbox.Policy{Enabled: true, Net: sandbox.NetNone, Required: true}}
	launch := &Launch{Path: "/bin/cat", Args: []string{"cat", "--flag", sandbox.ShimArg}, Resolved: "/bin/cat"}
	env := []string{"HOME=/root", "TOKEN=" + secret, "TMPDIR=/elsewhere"}
	run, env, st, err := sandboxLaunch(&spec, launch, StartOptions{Shim: "/usr/bin/switchboard", SandboxTemp: t.TempDir()}, env, "/usr/bin")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/usr/bin/switchboard", sandbox.ShimArg, "/bin/cat", "cat", "--flag", sandbox.ShimArg}
	if strings.Join(run.Args, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("shim argv = %q, want %q", run.Args, want)
	}
	var pol string
	tmpdirs := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, sandbox.PolicyEnv+"="); ok {
			pol = v
		}
		if strings.HasPrefix(kv, "TMPDIR=") {
			tmpdirs++
			if kv == "TMPDIR=/elsewhere" {
				t.Errorf("TMPDIR not replaced by the private temp directory")
			}
		}
	}
	if pol == "" || strings.Contains(pol, secret) || strings.Contains(strings.Join(run.Args, " "), secret) {
		t.Errorf("policy %q (or argv) holds the secret, or is missing", pol)
	}
	if tmpdirs != 1 || st == nil || st.Mechanism != "landlock" {
		t.Errorf("TMPDIR set %d times, status %+v", tmpdirs, st)
	}
}

// TestSpecCheckSandbox: the spec's policy is validated with the file's keys.
func TestSpecCheckSandbox(t *testing.T) {
	s := Spec{Command: "/bin/cat", Sandbox: sandbox.Policy{Enabled: true, Read: []string{"rel"}, Write: []string{"/ok"}, Net: "sideways"}}
	err := s.Check()
	for _, w := range []string{"sandbox.read[0]", "sandbox.net"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("Check = %v, want a problem on %s", err, w)
		}
	}
	s = Spec{Command: "/bin/cat", Sandbox: sandbox.Policy{Enabled: true}}
	if err := s.Check(); err != nil || s.Sandbox.Net != sandbox.NetNone {
		t.Errorf("Check = %v, net %q (want none by default)", err, s.Sandbox.Net)
	}
}
