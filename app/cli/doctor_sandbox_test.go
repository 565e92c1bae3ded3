//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	sbx "github.com/switchboard-mcp/switchboard/engine/sandbox"
)

// TestDoctorSandbox: doctor says what this machine can enforce; where the
// sandbox is not available (the Landlock ABI forced to 0) an entry that
// requires one is a thing to fix, with the remedy.
func TestDoctorSandbox(t *testing.T) {
	u := newUnit(t)
	if err := os.MkdirAll(filepath.Dir(u.configPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers": {"locked": {"command": "/bin/cat", "sandbox": "strict"},
		"loose": {"command": "/bin/cat", "sandbox": "network", "sandboxRequired": false}}}`
	if err := os.WriteFile(u.configPath(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	if s := sbx.Probe(); s.Available() {
		out := u.main("", "doctor").stdout
		if !strings.Contains(out, "ok    sandbox: landlock ABI ") {
			t.Errorf("doctor does not report Landlock:\n%s", out)
		}
	} else if runtime.GOOS == "linux" && os.Getenv("CI") == "true" {
		t.Errorf("no Landlock under CI: %s", s)
	}
	// Without seccomp a required sandbox does not start: a thing to fix.
	if sbx.Probe().Available() {
		noSeccomp := func() string {
			sbx.WithoutSeccompForTest(t)
			return u.main("", "doctor").stdout
		}()
		if !strings.Contains(noSeccomp, "FIX   sandbox: no seccomp filter here") || !strings.Contains(noSeccomp, "locked require a sandbox") {
			t.Errorf("doctor without seccomp:\n%s", noSeccomp)
		}
	}
	t.Setenv(sbx.ABIEnv, "0")
	out := u.main("", "doctor").stdout
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "sandbox:") && strings.Contains(l, "locked") {
			line = l
		}
	}
	if !strings.HasPrefix(line, "FIX ") || !strings.Contains(line, `"sandboxRequired": false`) || strings.Contains(line, "loose") {
		t.Errorf("the unavailable sandbox line = %q\n%s", line, out)
	}
	if !strings.Contains(out, "loose run unconfined here") {
		t.Errorf("doctor does not say loose runs unconfined:\n%s", out)
	}
}

// TestSandboxStatusLine: status says how a server is confined, what is
// not enforced, or that it runs unconfined.
func TestSandboxStatusLine(t *testing.T) {
	cases := []struct {
		sb   *hostapi.SandboxStatus
		want string
	}{
		{nil, ""},
		{&hostapi.SandboxStatus{Unavailable: true}, ""},
		{&hostapi.SandboxStatus{Preset: "strict", Mechanism: "landlock", ABI: 7, Net: "landlock+seccomp"}, "sandbox strict: landlock ABI 7, network by landlock+seccomp"},
		{&hostapi.SandboxStatus{Mechanism: "landlock", ABI: 7, Net: "landlock", NotEnforced: []string{"hosts: ports only"}}, "sandbox (custom): landlock ABI 7, network by landlock; not enforced: hosts: ports only"},
		{&hostapi.SandboxStatus{Preset: "strict", Mechanism: "seatbelt", Net: "seatbelt"}, "sandbox strict: seatbelt, network by seatbelt"},
		{&hostapi.SandboxStatus{Preset: "files", Unconfined: true, NotEnforced: []string{"everything: no Landlock"}}, `sandbox files NOT enforced, running unconfined ("sandboxRequired": false): everything: no Landlock`},
	}
	for _, c := range cases {
		if got := sandboxLine(c.sb); got != c.want {
			t.Errorf("sandboxLine(%+v) = %q, want %q", c.sb, got, c.want)
		}
	}
}
