//go:build linux

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/service"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestE2EDefectsFoundByUse: one host, the defects of issue 12 that need
// one, each a subtest.
func TestE2EDefectsFoundByUse(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	// The host's login shell adds a directory to PATH that the CLI's own
	// environment (another HOME, so another profile) does not have.
	hostOnly := filepath.Join(sb.root, "hostonly")
	if err := os.MkdirAll(hostOnly, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(hostOnly, "sb-host-only-cmd"), []byte("#!/bin/sh\nexec cat\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sb.home, ".profile"), []byte("PATH=\"$PATH:"+hostOnly+"\"; export PATH\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sb.cli(t, sb.helperArgs("srv", "modern")...)
	sb.cli(t, sb.helperArgs("discarded", "modern", "--stderr", "discard")...)
	sb.cli(t, sb.helperArgs("inherited", "modern", "--stderr", "inherit")...)
	filed := filepath.Join(sb.root, "filed.log")
	sb.cli(t, sb.helperArgs("filed", "modern", "--stderr", "file:"+filed)...)
	sb.cli(t, "servers", "add", "ghost", "--", "sb-no-such-command")
	sb.cli(t, "servers", "add", "hostonly", "--", "sb-host-only-cmd")
	// npx in a PATH of its own that lacks it: a launcher the host knows.
	sb.cli(t, "servers", "add", "nonode", "--env", "PATH="+filepath.Join(sb.root, "empty"), "--", "npx", "-y", "some-server")
	h := sb.serve(t)
	h.waitReady(t)
	first := sb.waitRunning(t, "srv")
	sb.waitServer(t, "ghost", "failed on its command", func(s hostapi.ServerStatus) bool { return s.LastError != "" })

	// Another HOME for the CLI: its own login shell does not see hostOnly.
	otherHome := filepath.Join(sb.root, "otherhome")
	if err := os.MkdirAll(otherHome, 0o700); err != nil {
		t.Fatal(err)
	}
	cliEnv := sb.with("HOME=" + otherHome)

	t.Run("status says a command not found once", func(t *testing.T) {
		out := sb.cli(t, "status")
		n := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "ghost: ") && strings.Contains(l, "not found") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("status says ghost's command is not found %d times, want once:\n%s", n, out)
		}
		// With what to do, from the host's install remedy (as data).
		sb.waitServer(t, "nonode", "failed on its command", func(s hostapi.ServerStatus) bool { return s.LastError != "" })
		out = sb.cli(t, "status")
		for _, want := range []string{
			"ghost: to fix: install sb-no-such-command, or add the directory that has sb-no-such-command to the host's PATH ('switchboard doctor' shows it; ",
			"nonode: to fix: install Node.js (it provides npx: https://nodejs.org/en/download), or add the directory that has npx to the entry's env.PATH (it replaces the host's PATH for this server)\n",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("status lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("logs of a server whose stderr is not captured say where it goes", func(t *testing.T) {
		for _, tc := range []struct{ name, want string }{
			{"discarded", `"discard"`},
			{"inherited", `"inherit"`},
			{"filed", filed},
		} {
			r := sb.run(t, "", "logs", tc.name)
			if r.code != 0 || !strings.Contains(r.stderr, "not captured") || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("logs %s: want a note that its stderr is not captured, naming %s: %s", tc.name, tc.want, r)
			}
		}
		// Never started (its command not found): no line, and it says so.
		if r := sb.run(t, "", "logs", "ghost"); r.code != 0 || r.stdout != "" ||
			r.stderr != "ghost has written nothing to its stderr yet; 'switchboard status' shows its state and last error\n" {
			t.Errorf("logs of a server that never started: %s", r)
		}
		r := sb.run(t, "", "logs", "srv")
		if r.code != 0 || strings.Contains(r.stderr, "not captured") || !strings.Contains(r.stdout, "cli helper: serving") {
			t.Errorf("logs srv (captured): %s", r)
		}
		// Each line after the local time it was read, the run's marker too.
		stamped := regexp.MustCompile(`^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) (.*)$`)
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		for _, l := range lines {
			m := stamped.FindStringSubmatch(l)
			if m == nil {
				t.Errorf("logs srv: line %q does not begin with a local time", l)
				continue
			}
			at, err := time.ParseInLocation("2006-01-02 15:04:05.000", m[1], time.Local)
			if err != nil || at.After(time.Now()) || time.Since(at) > time.Hour {
				t.Errorf("logs srv: line %q: a time that is not this test's (%v)", l, err)
			}
		}
		if m := stamped.FindStringSubmatch(lines[0]); m == nil || !strings.HasPrefix(m[2], "--- started, pid ") {
			t.Errorf("logs srv: the first line is not the run's marker: %q", lines[0])
		}
	})

	t.Run("following logs shows the started marker", func(t *testing.T) {
		f := startFollower(t, sb, "srv")
		testkit.Eventually(t, "the follower prints the kept lines", func() (bool, string) {
			out := f.stdout.String()
			return strings.Contains(out, fmt.Sprintf("--- started, pid %d ---", first.PID)), out
		})

		sb.cli(t, "servers", "restart", "srv")
		second := sb.waitServer(t, "srv", "running again", func(s hostapi.ServerStatus) bool {
			return s.State == "running" && s.PID != 0 && s.PID != first.PID
		})
		marker := fmt.Sprintf("--- started, pid %d ---", second.PID)
		testkit.Eventually(t, "the follower prints "+marker, func() (bool, string) {
			out := f.stdout.String()
			return strings.Contains(out, marker), out
		})

		out := f.stdout.String()
		if i, j := strings.Index(out, marker), strings.LastIndex(out, "cli helper: serving"); i > j {
			t.Errorf("the marker came after the new process's lines:\n%s", out)
		}
	})

	t.Run("doctor resolves with the host's PATH and says so", func(t *testing.T) {
		r := runEnv(t, cliEnv, "", "doctor")
		if !strings.Contains(r.stdout, "ok    server hostonly: sb-host-only-cmd resolves to "+filepath.Join(hostOnly, "sb-host-only-cmd")) {
			t.Errorf("doctor did not resolve with the host's PATH:\n%s", r.stdout)
		}
		if !strings.Contains(r.stdout, "the running host's (pid") {
			t.Errorf("doctor does not say it used the host's PATH:\n%s", r.stdout)
		}
		if !strings.Contains(r.stdout, "FIX   server ghost: ") {
			t.Errorf("doctor does not report ghost's missing command:\n%s", r.stdout)
		}
		if want := `FIX   server nonode: mcpServers.nonode.env.PATH: "npx" was not found in the PATH the entry sets (env.PATH): install Node.js (it provides npx: https://nodejs.org/en/download), or add`; !strings.Contains(r.stdout, want) {
			t.Errorf("doctor does not give nonode's remedy (%s):\n%s", want, r.stdout)
		}
	})
}

// TestDoctorWithoutHostSaysWhichPATH: with no host, doctor resolves with
// the login shell's PATH and says so; a login shell that does not answer
// gets a line that says what to do.
func TestDoctorWithoutHostSaysWhichPATH(t *testing.T) {
	u := newUnit(t)
	out := u.main("", "doctor").stdout
	if !strings.Contains(out, "no host runs: the login shell's, which a host started now would use") {
		t.Errorf("doctor does not say which PATH it used:\n%s", out)
	}
	slow := filepath.Join(u.dir, "slowshell")
	if err := os.WriteFile(slow, []byte("#!/bin/sh\nexec sleep 60\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHELL", slow)
	out = u.main("", "doctor").stdout
	var line string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "did not answer") {
			line = l
		}
	}
	if !strings.HasPrefix(line, "FIX ") || !strings.Contains(line, ".profile") {
		t.Errorf("the login shell's timeout gives no remedy: %q\n%s", line, out)
	}
}

// TestServicePrintWithoutServiceManager: packagers build where no service
// manager runs; 'service print' needs none.
func TestServicePrintWithoutServiceManager(t *testing.T) {
	u := newUnit(t)
	old := serviceSystem
	serviceSystem = func() (service.System, error) {
		return nil, fmt.Errorf("no systemd here")
	}
	t.Cleanup(func() { serviceSystem = old })
	out := u.ok(t, "", "service", "print")
	if !strings.Contains(out, "[Service]") || !strings.Contains(out, "serve --service") {
		t.Errorf("service print:\n%s", out)
	}
	if r := u.main("", "service", "status"); r.code != 1 || !strings.Contains(r.stderr, "no systemd here") {
		t.Errorf("service status needs the service manager: %s", r)
	}
}
