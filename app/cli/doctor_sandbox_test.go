//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

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
