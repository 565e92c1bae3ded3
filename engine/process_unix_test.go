//go:build unix

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestNoShell: the arguments reach the server as they are, one each.
func TestNoShell(t *testing.T) {
	t.Parallel()
	args := []string{"; rm -rf ~", "$(id)", "a b", "*", "`id`", "'q'", `"dq"`, "", "x > /tmp/y", "\\", "~"}
	s := startServer(t, helperSpec("argv", args...), StartOptions{})
	var got []string
	if err := json.Unmarshal([]byte(s.line(t)), &got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, args) {
		t.Errorf("the server got %q\nwant %q", got, args)
	}
	if la := s.Launch(); la.Path != testExe || la.Args[0] != testExe {
		t.Errorf("Launch = %+v", la)
	}
}

type envReport struct {
	Env []string `json:"env"`
	Cwd string   `json:"cwd"`
}

func childEnv(t *testing.T, spec Spec, opts StartOptions) envReport {
	t.Helper()
	s := startServer(t, spec, opts)
	var r envReport
	if err := json.Unmarshal([]byte(s.line(t)), &r); err != nil {
		t.Fatal(err)
	}
	slices.Sort(r.Env)
	return r
}

// TestChildEnvironment: a real child sees only the allowlist, the spec's
// env and the named extras.
func TestChildEnvironment(t *testing.T) {
	t.Parallel()
	host := []string{
		"HOME=/home/ada", "LOGNAME=ada", "PATH=/usr/bin:/bin", "SHELL=/bin/bash", "TERM=() { :; }; echo pwned",
		"USER=ada", "LD_PRELOAD=/tmp/evil.so", "AWS_SECRET_ACCESS_KEY=hunter2", "HTTPS_PROXY=http://proxy:3128",
		"NO_PROXY=localhost", helperEnv + "=argv", // the host's own value must not leak either
	}
	cwd := t.TempDir()
	spec := helperSpec("env")
	spec.Cwd = cwd
	spec.InheritEnv = []string{"HTTPS_PROXY"}
	spec.Env["API_KEY"] = EnvValue{{Text: "Bearer "}, {Secret: "key"}}
	spec.Env["HOME"] = Literal("/srv/home")
	r := childEnv(t, spec, StartOptions{HostEnv: host, Secrets: fakeSecrets{"key": "k-123"}})
	// Every server gets its token (checked below).
	r.Env = slices.DeleteFunc(r.Env, func(kv string) bool { return strings.HasPrefix(kv, TokenEnv+"=") })
	want := []string{"API_KEY=Bearer k-123", "HOME=/srv/home", "HTTPS_PROXY=http://proxy:3128", "LOGNAME=ada",
		"PATH=/usr/bin:/bin", "SHELL=/bin/bash", "USER=ada", helperEnv + "=env"}
	slices.Sort(want)
	if !reflect.DeepEqual(r.Env, want) {
		t.Errorf("the server's environment:\n got %q\nwant %q", r.Env, want)
	}
	if real, _ := filepath.EvalSymlinks(cwd); r.Cwd != cwd && r.Cwd != real {
		t.Errorf("cwd = %q, want %q", r.Cwd, cwd)
	}

	t.Run("Path replaces PATH", func(t *testing.T) {
		t.Parallel()
		r := childEnv(t, helperSpec("env"), StartOptions{HostEnv: host, Path: "/opt/node/bin:/usr/bin"})
		if !slices.Contains(r.Env, "PATH=/opt/node/bin:/usr/bin") || slices.Contains(r.Env, "PATH=/usr/bin:/bin") {
			t.Errorf("env = %q", r.Env)
		}
	})
	t.Run("token", func(t *testing.T) {
		t.Parallel()
		r := childEnv(t, helperSpec("env"), StartOptions{HostEnv: host})
		var tokens []string
		for _, kv := range r.Env {
			if v, ok := strings.CutPrefix(kv, TokenEnv+"="); ok {
				tokens = append(tokens, v)
			}
		}
		if len(tokens) != 1 || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(tokens[0]) {
			t.Errorf("tokens %q, want one random token", tokens)
		}
		if len(r.Env) != 7 { // HOME LOGNAME PATH SHELL USER, the helper's role, the token
			t.Errorf("env = %q", r.Env)
		}
	})
}

// TestChildEnvironmentHost: with the host's own environment (HostEnv nil),
// nothing but the allowlist passes. Not parallel: it sets the process's
// environment.
func TestChildEnvironmentHost(t *testing.T) {
	t.Setenv("SWITCHBOARD_TEST_SECRET", "must-not-pass")
	t.Setenv("HOME", "/home/test")
	r := childEnv(t, helperSpec("env"), StartOptions{})
	for _, kv := range r.Env {
		k, _, _ := strings.Cut(kv, "=")
		if !slices.Contains(Allowlist("linux"), k) && k != helperEnv && k != TokenEnv {
			t.Errorf("%q reached the server", kv)
		}
	}
	if !slices.Contains(r.Env, "HOME=/home/test") {
		t.Errorf("HOME did not pass: %q", r.Env)
	}
}

// TestStartErrors: nothing is started when the command is missing or a
// secret cannot be read.
func TestStartErrors(t *testing.T) {
	t.Parallel()
	t.Run("not found", func(t *testing.T) {
		t.Parallel()
		_, err := Start(context.Background(), Spec{Name: "x", Command: "switchboard-no-such-server"}, StartOptions{Path: t.TempDir()})
		var nf *NotFoundError
		if !errors.As(err, &nf) || nf.Command != "switchboard-no-such-server" {
			t.Errorf("err = %v (%T), want *NotFoundError", err, err)
		}
		_, err = Start(context.Background(), Spec{Name: "x", Command: filepath.Join(t.TempDir(), "gone")}, StartOptions{})
		if !errors.As(err, &nf) {
			t.Errorf("absolute: err = %v (%T), want *NotFoundError", err, err)
		}
	})
	t.Run("secret", func(t *testing.T) {
		t.Parallel()
		marker := filepath.Join(t.TempDir(), "started")
		spec := helperSpec("marker", marker)
		spec.Env["TOKEN"] = SecretRef("locked")
		p, err := Start(context.Background(), spec, StartOptions{Secrets: fakeSecrets{}})
		var se *SecretError
		if !errors.As(err, &se) || se.Var != "TOKEN" || se.Secret != "locked" || p != nil {
			t.Fatalf("Start = %v, %v; want nil and a *SecretError for TOKEN", p, err)
		}
		// The control: with the secret, the marker appears.
		spec2 := helperSpec("marker", marker)
		spec2.Env["TOKEN"] = SecretRef("locked")
		s := startServer(t, spec2, StartOptions{Secrets: fakeSecrets{"locked": "v"}})
		s.waitExited(t, doneTimeout)
		s.stop(t)
		if _, err := os.Stat(marker); err != nil {
			t.Fatalf("the control run left no marker: %v", err)
		}
		// Again without the secret: no new marker.
		os.Remove(marker)
		if _, err := Start(context.Background(), spec, StartOptions{Secrets: fakeSecrets{}}); !errors.As(err, &se) {
			t.Fatalf("err = %v", err)
		}
		// Start returned: a server it spawned would be its child now.
		for _, c := range testkit.Children() {
			if strings.Contains(c, marker) {
				t.Errorf("a server was started although its secret failed: %s", c)
			}
		}
		if _, err := os.Stat(marker); err == nil {
			t.Error("a server was started although its secret failed")
		}
	})
	t.Run("invalid spec", func(t *testing.T) {
		t.Parallel()
		_, err := Start(context.Background(), Spec{Command: "npx -y x"}, StartOptions{})
		var se *SpecError
		if !errors.As(err, &se) || se.Key != "command" {
			t.Errorf("err = %v, want a *SpecError for command", err)
		}
	})
}

// TestStopExitsOnEOF: a server that exits when stdin closes is neither
// signalled nor waited for.
func TestStopExitsOnEOF(t *testing.T) {
	t.Parallel()
	spec := helperSpec("eof")
	spec.StdinGrace, spec.TermGrace = time.Second, time.Second
	s := startServer(t, spec, StartOptions{})
	s.line(t)
	d := s.stop(t)
	if st := s.ExitStatus(); st != (ExitStatus{Exited: true, Code: 0}) {
		t.Errorf("status %v, want exit status 0 (no signal)", st)
	}
	if d >= spec.StdinGrace {
		t.Errorf("the ladder took %v, want well under the stdin grace of %v", d, spec.StdinGrace)
	}
	s.assertGone(t)
}

// TestStopTerm: a server that ignores EOF gets SIGTERM after the stdin
// grace.
func TestStopTerm(t *testing.T) {
	t.Parallel()
	s := startServer(t, helperSpec("ignore-eof"), StartOptions{})
	s.line(t)
	d := s.stop(t)
	if st := s.ExitStatus(); st.Exited || st.Signal != "SIGTERM" {
		t.Errorf("status %v, want killed by SIGTERM", st)
	}
	if d < testStdinGrace || d > testStdinGrace+testTermGrace+5*time.Second {
		t.Errorf("the ladder took %v, want about the stdin grace %v", d, testStdinGrace)
	}
	s.assertGone(t)
}

// TestStopKill: a server that ignores EOF and SIGTERM is SIGKILLed.
func TestStopKill(t *testing.T) {
	t.Parallel()
	s := startServer(t, helperSpec("ignore-term"), StartOptions{})
	s.line(t)
	d := s.stop(t)
	if st := s.ExitStatus(); st.Signal != "SIGKILL" || st.String() != "killed by signal SIGKILL" {
		t.Errorf("status %v, want killed by SIGKILL", st)
	}
	if d < testStdinGrace+testTermGrace || d > testStdinGrace+testTermGrace+5*time.Second {
		t.Errorf("the ladder took %v, want about %v", d, testStdinGrace+testTermGrace)
	}
	s.assertGone(t)
}

// TestStopGrandchild: a grandchild that ignores EOF and SIGTERM (npx's
// server) ends with the server.
func TestStopGrandchild(t *testing.T) {
	t.Parallel()
	s := startServer(t, helperSpec("fork"), StartOptions{})
	ids := s.pids(t)
	if !isLive(ids.Child) {
		t.Fatalf("the grandchild %d is not running", ids.Child)
	}
	if st, _ := readProc(ids.Child); st.Pgrp != s.Pid() {
		t.Fatalf("the grandchild is in group %d, want %d", st.Pgrp, s.Pid())
	}
	d := s.stop(t)
	if st := s.ExitStatus(); st.Signal != "SIGTERM" {
		t.Errorf("leader status %v, want killed by SIGTERM", st)
	}
	if d < testStdinGrace+testTermGrace {
		t.Errorf("the ladder took %v: it cannot have waited out the grandchild", d)
	}
	s.assertGone(t, ids.Child)
}

// TestExitStatus: how the server ended, without a Stop.
func TestExitStatus(t *testing.T) {
	t.Parallel()
	t.Run("code", func(t *testing.T) {
		t.Parallel()
		spec := helperSpec("exit")
		spec.Env[codeEnv] = Literal("3")
		s := startServer(t, spec, StartOptions{})
		s.waitExited(t, doneTimeout)
		if st := s.ExitStatus(); st != (ExitStatus{Exited: true, Code: 3}) || st.String() != "exit status 3" {
			t.Errorf("status %+v (%s), want exit status 3", st, st)
		}
		if d := s.stop(t); d > time.Second {
			t.Errorf("stopping a server that had exited took %v", d)
		}
		s.assertGone(t)
	})
	t.Run("signal", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, helperSpec("ignore-term"), StartOptions{})
		s.line(t)
		if err := syscall.Kill(s.Pid(), syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		s.waitExited(t, doneTimeout)
		if st := s.ExitStatus(); st != (ExitStatus{Signal: "SIGKILL"}) || st.String() != "killed by signal SIGKILL" {
			t.Errorf("status %+v (%s), want killed by signal SIGKILL", st, st)
		}
		s.stop(t)
		s.assertGone(t)
	})
}

// TestStopTwice: Stop is idempotent, concurrent calls included.
func TestStopTwice(t *testing.T) {
	t.Parallel()
	s := startServer(t, helperSpec("ignore-eof"), StartOptions{})
	s.line(t)
	var wg sync.WaitGroup
	chans := make([]<-chan struct{}, 5)
	for i := range chans {
		wg.Go(func() { chans[i] = s.Stop() })
	}
	wg.Wait()
	for _, c := range chans {
		if c != s.Done() {
			t.Error("Stop returned a channel other than Done")
		}
	}
	s.stop(t)
	select {
	case <-s.Stop():
	case <-time.After(time.Second):
		t.Error("Stop after Done did not return a closed channel")
	}
	s.assertGone(t)
}

// TestStopParallel: stopping 20 servers that ignore EOF and SIGTERM at
// once takes about one ladder, not twenty.
func TestStopParallel(t *testing.T) {
	t.Parallel()
	const n = 20
	servers := make([]*server, n)
	for i := range servers {
		servers[i] = startServer(t, helperSpec("ignore-term"), StartOptions{})
	}
	for _, s := range servers {
		s.line(t) // SIGTERM is ignored now
	}
	t0 := time.Now()
	for _, s := range servers {
		s.Stop()
	}
	for _, s := range servers {
		s.stop(t)
	}
	d := time.Since(t0)
	one := testStdinGrace + testTermGrace
	if d > n/2*one { // serially it would take at least n ladders
		t.Errorf("stopping %d servers took %v; one ladder is %v", n, d, one)
	}
	t.Logf("stopped %d servers in %v (one ladder: %v)", n, d, one)
	for _, s := range servers {
		if st := s.ExitStatus(); st.Signal != "SIGKILL" {
			t.Errorf("pid %d: status %v", s.Pid(), st)
		}
		s.assertGone(t)
	}
}

// TestStopStoppedServer: a server stopped by SIGSTOP still ends at the
// SIGTERM step: SIGCONT follows SIGTERM, so its handler runs.
func TestStopStoppedServer(t *testing.T) {
	t.Parallel()
	s := startServer(t, helperSpec("ignore-eof"), StartOptions{})
	s.line(t)
	if err := syscall.Kill(s.Pid(), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the server stopped (state T)", func() bool { st, _ := readProc(s.Pid()); return st.State == 'T' })
	s.stop(t)
	if st := s.ExitStatus(); st.Signal != "SIGTERM" {
		t.Errorf("status %v, want killed by SIGTERM (not SIGKILL: SIGCONT must wake it)", st)
	}
	s.assertGone(t)
}

// TestStartFailureLeaksNothing: a failed Start leaves no file descriptor
// open. Not parallel: it counts this process's descriptors.
func TestStartFailureLeaksNothing(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage")
	if err := os.WriteFile(garbage, []byte("\x00\x01not a program"), 0o755); err != nil {
		t.Fatal(err)
	}
	fds := func() int {
		ents, err := os.ReadDir("/dev/fd")
		if err != nil {
			t.Skip("no /dev/fd")
		}
		return len(ents)
	}
	before := fds()
	fileSpec := helperSpec("eof")
	fileSpec.Stderr = Stderr{Kind: StderrFile, Path: dir} // a directory: cannot be opened
	secretSpec := helperSpec("eof")
	secretSpec.Env["K"] = SecretRef("none")
	for _, c := range []struct {
		name string
		spec Spec
	}{
		{"exec format", Spec{Command: garbage, Stderr: Stderr{Kind: StderrCapture}}},
		{"exec format, file", Spec{Command: garbage, Stderr: Stderr{Kind: StderrFile, Path: filepath.Join(dir, "log")}}},
		{"not found", Spec{Command: filepath.Join(dir, "missing")}},
		{"stderr file", fileSpec},
		{"secret", secretSpec},
	} {
		for range 3 {
			if p, err := Start(context.Background(), c.spec, StartOptions{Secrets: fakeSecrets{}}); err == nil {
				<-p.Stop()
				t.Fatalf("%s: Start succeeded", c.name)
			} else if c.name == "exec format" && !strings.Contains(err.Error(), garbage) {
				t.Errorf("%s: %v does not name the program", c.name, err)
			}
		}
	}
	if after := fds(); after != before {
		t.Errorf("%d descriptors open before the failed starts, %d after", before, after)
	}
}
