//go:build linux

package engine

import (
	"slices"
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
	run, env, st, _, err := sandboxLaunch(&spec, launch, StartOptions{Shim: "/usr/bin/switchboard", SandboxTemp: t.TempDir()}, env, "/usr/bin")
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
		// TMPDIR is one of the loader's variables: carried to the shim.
		if v, ok := strings.CutPrefix(kv, sandbox.CarryEnv+"="); ok {
			for _, l := range strings.Split(v, "\n") {
				if strings.HasPrefix(l, "TMPDIR=") {
					tmpdirs++
					if l == "TMPDIR=/elsewhere" {
						t.Errorf("TMPDIR not replaced by the private temp directory")
					}
				}
			}
		}
		if strings.HasPrefix(kv, "TMPDIR=") {
			t.Errorf("the shim's own environment has %s: it is carried", kv)
		}
	}
	if pol == "" || strings.Contains(pol, secret) || strings.Contains(strings.Join(run.Args, " "), secret) {
		t.Errorf("policy %q (or argv) holds the secret, or is missing", pol)
	}
	if tmpdirs != 1 || st == nil || st.Mechanism != "landlock" {
		t.Errorf("TMPDIR set %d times, status %+v", tmpdirs, st)
	}
}

// TestSandboxLaunchCarriesLoaderVariables: the shim starts without any
// variable the dynamic loader or glibc acts on (an entry's LD_PRELOAD would
// run its library in a dynamically linked shim before it confines
// itself); they are carried in sandbox.CarryEnv, escaped, in memory the
// caller zeroes; an entry's own CarryEnv is dropped; the rest stays.
func TestSandboxLaunchCarriesLoaderVariables(t *testing.T) {
	if !sandbox.Probe().Available() {
		testkit.SkipOrFail(t, "no Landlock: the shim is not used")
	}
	spec := Spec{Name: "x", Command: "/bin/cat", Sandbox: sandbox.Policy{Enabled: true, Net: sandbox.NetNone, Required: true}}
	launch := &Launch{Path: "/bin/cat", Args: []string{"cat"}, Resolved: "/bin/cat"}
	loader := []string{"LD_PRELOAD=/x/evil.so", "LD_LIBRARY_PATH=/x", "LD_AUDIT=/x/a.so", "LD_FUTURE_THING=1", "GCONV_PATH=/x",
		"GLIBC_TUNABLES=glibc.malloc.check=3", "MALLOC_ARENA_MAX=2", "LOCPATH=/x", "TZDIR=/x", "RES_OPTIONS=debug", "HOSTALIASES=/x", "NLSPATH=/x%N\nline 2"}
	kept := []string{"HOME=/root", "LDAP_URI=ldap://x", "MY_LD_PRELOAD=1", "PATH=/usr/bin"}
	env := append(append(append([]string(nil), kept...), loader...), sandbox.CarryEnv+"=LD_PRELOAD=/smuggled.so")
	_, env, _, carried, err := sandboxLaunch(&spec, launch, StartOptions{Shim: "/usr/bin/switchboard", SandboxTemp: t.TempDir()}, env, "/usr/bin")
	if err != nil {
		t.Fatal(err)
	}
	var carrier string
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		switch {
		case k == sandbox.CarryEnv:
			if carrier != "" {
				t.Errorf("%s twice", k)
			}
			carrier = v
		case sandbox.LoaderVar(k):
			t.Errorf("the shim's own environment has %s", kv)
		}
	}
	for _, kv := range kept {
		if !slices.Contains(env, kv) {
			t.Errorf("%s was removed", kv)
		}
	}
	for _, kv := range loader {
		esc := strings.NewReplacer("%", "%25", "\n", "%0A").Replace(kv)
		if !slices.Contains(strings.Split(carrier, "\n"), esc) {
			t.Errorf("%q is not carried as %q: %q", kv, esc, carrier)
		}
	}
	if strings.Contains(carrier, "smuggled") || !strings.Contains(carrier, "TMPDIR=") {
		t.Errorf("carried %q: want the engine's TMPDIR, not the entry's own %s", carrier, sandbox.CarryEnv)
	}
	clear(carried)
	for _, kv := range env {
		if strings.Trim(kv, "\x00") == "" {
			return // the entry shares the memory the caller zeroes
		}
	}
	t.Errorf("zeroing the carried memory left the entry in env: %q", carrier)
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
