//go:build linux

package host

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// fakeShell writes a login shell whose profile forks a sleeper (writing
// its pid to the file sleeperPid) and then hangs, or, with answer, prints
// the PATH between the markers after forking.
func fakeShell(t *testing.T, answer bool) (shell, sleeperPid string) {
	t.Helper()
	dir := t.TempDir()
	sleeperPid = filepath.Join(dir, "sleeper.pid")
	tail := "exec sleep 300"
	if answer {
		tail = `printf '\n` + pathStart + `\n/fake/login/bin\n` + pathEnd + `\n'`
	}
	script := "#!/bin/sh\n" +
		"sleep 300 &\n" +
		"echo $! > " + sleeperPid + "\n" +
		tail + "\n"
	shell = filepath.Join(dir, "fakesh")
	if err := os.WriteFile(shell, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	return shell, sleeperPid
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	var pid int
	testkit.Eventually(t, "the sleeper's pid", func() (bool, string) {
		b, err := os.ReadFile(path)
		if err != nil {
			return false, err.Error()
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0, string(b)
	})

	return pid
}

// TestLoginPathTimeoutKillsGroup: a login shell that does not answer in
// time is killed with everything its profile started (its process group),
// and LoginPath returns only once they are gone.
func TestLoginPathTimeoutKillsGroup(t *testing.T) {
	shell, pidFile := fakeShell(t, false)
	t.Setenv("SHELL", shell)
	own := os.Getenv("PATH")
	p, err := LoginPath(context.Background(), time.Second)
	if err == nil || !strings.Contains(err.Error(), "did not answer") || p != own {
		t.Fatalf("LoginPath = %q, %v; want the own PATH and a timeout", p, err)
	}
	sleeper := readPid(t, pidFile)
	t.Cleanup(func() {
		if !testkit.Gone(sleeper) {
			p, _ := os.FindProcess(sleeper)
			p.Kill()
		}
	})
	if !testkit.Gone(sleeper) {
		t.Fatalf("the sleeper %d that the login shell's profile forked survived the timeout", sleeper)
	}
}

// TestLoginPathAnswer: a shell that answers gives its PATH.
func TestLoginPathAnswer(t *testing.T) {
	shell, pidFile := fakeShell(t, true)
	t.Setenv("SHELL", shell)
	p, err := LoginPath(context.Background(), wait)
	if err != nil || p != "/fake/login/bin" {
		t.Fatalf("LoginPath = %q, %v", p, err)
	}
	sleeper := readPid(t, pidFile)
	if pr, err := os.FindProcess(sleeper); err == nil {
		pr.Kill()
	}
}
