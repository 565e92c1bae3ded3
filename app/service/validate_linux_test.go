//go:build linux

package service

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// tool returns the path of an external checker, skips the test without it
// on a laptop, and fails it in CI (CI=true), where scripts/deps.sh
// installs it.
func tool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing in CI: scripts/deps.sh installs the Debian package %s", name, pkg)
	}
	t.Skipf("%s is not installed (Debian package %s)", name, pkg)
	return ""
}

func validateDesktop(t *testing.T, entry string) {
	t.Helper()
	bin := tool(t, "desktop-file-validate", "desktop-file-utils")
	p := filepath.Join(t.TempDir(), DesktopFile)
	if err := os.WriteFile(p, []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, p).CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("desktop-file-validate: %v\n%s\n%s", err, out, entry)
	}
}

// TestSystemdAnalyzeVerify checks the unit with systemd's own parser:
// `systemd-analyze verify --user` loads it as the user manager would
// (every key known, the ExecStart binary executable) and prints what it
// does not like; any output fails the test. A machine without systemd as
// PID 1 (containers, CI here) needs XDG_RUNTIME_DIR set for the --user
// manager to initialise; HOME is a temporary directory so that no unit of
// the user's interferes.
func TestSystemdAnalyzeVerify(t *testing.T) {
	bin := tool(t, "systemd-analyze", "systemd")
	dir := t.TempDir()
	exe := filepath.Join(dir, "bin dir", "switchboard")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{nil, {"--config", dir + `/100% "$x"\ y.json`}} {
		e := linuxEnv
		e.Executable, e.Args = exe, args
		unit := must(t)(e.SystemdUnit())
		p := filepath.Join(dir, Name+".service")
		if err := os.WriteFile(p, []byte(unit), 0o644); err != nil {
			t.Fatal(err)
		}
		rt := filepath.Join(dir, "run")
		os.MkdirAll(rt, 0o700)
		cmd := exec.Command(bin, "verify", "--user", p)
		cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+rt, "HOME="+filepath.Join(dir, "home"), "SYSTEMD_LOG_COLOR=0")
		out, err := cmd.CombinedOutput()
		if err != nil || len(bytes.TrimSpace(out)) > 0 {
			t.Errorf("systemd-analyze verify --user: %v\n%s\n%s", err, out, unit)
		}
	}
	// The check does catch mistakes.
	bad := filepath.Join(dir, "bad.service")
	os.WriteFile(bad, []byte("[Service]\nExecStart=/nonexistent/switchboard serve\nKillMode=sometimes\n"), 0o644)
	cmd := exec.Command(bin, "verify", "--user", bad)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"), "HOME="+filepath.Join(dir, "home"))
	if out, err := cmd.CombinedOutput(); err == nil && len(bytes.TrimSpace(out)) == 0 {
		t.Error("systemd-analyze verify passed a broken unit: the check checks nothing")
	}
}
