//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestE2E drives a running `switchboard serve` through the CLI: a real npm
// server is added, runs and answers a call; hand edits of the file (saved
// by rename, and in place in two chunks) start, restart and keep exactly
// the servers they should; a broken file keeps the last good config; the
// file and runtime commands work; `stop` leaves no process behind.
func TestE2E(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	everything := testkit.NpmServer(t, "mcp-server-everything")
	filesystem := testkit.NpmServer(t, "mcp-server-filesystem")
	sb := newSandbox(t)
	h := sb.serve(t)
	path := sb.configPath()

	// Add a real server through the host.
	if out := sb.cli(t, "servers", "add", "everything", "--env", markEnv+"="+sb.mark, "--", everything); !strings.Contains(out, "added everything") {
		t.Fatalf("servers add printed %q", out)
	}
	ev := sb.waitRunning(t, "everything")
	if ev.Era != "legacy" || ev.Resolved != everything {
		t.Errorf("everything: era %q, resolved %q", ev.Era, ev.Resolved)
	}
	sb.waitServer(t, "everything", "tools listed", func(s hostapi.ServerStatus) bool { return s.Tools > 0 })
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the host's config file: %v %v", fi, err)
	}
	if out := sb.cli(t, "call", "everything", "echo", `{"message":"hi"}`); strings.TrimSpace(out) != "Echo: hi" {
		t.Fatalf("call everything echo printed %q", out)
	}
	// A misspelled tool: the server's error, then which tool was meant.
	if r := sb.run(t, "", "call", "everything", "ecoh", "{}"); r.code != 1 ||
		!strings.Contains(r.stderr, `everything has no tool "ecoh" (did you mean "echo"?): 'switchboard tools everything' lists its tools`) {
		t.Fatalf("call everything ecoh: %s", r)
	}
	if out := sb.cli(t, "tools", "everything"); !strings.Contains(out, "echo\n") || !strings.Contains(out, "input: ") {
		t.Fatalf("tools everything printed:\n%s", out)
	}
	// The gateway's whole mapping: its resource templates too.
	if out := sb.cli(t, "tools"); !regexp.MustCompile(`(?m)^RESOURCE TEMPLATE\s+SERVER\s*\n(.*\n)*\s+demo://resource/dynamic/text/\{resourceId\}\s+everything\s*$`).MatchString(out) {
		t.Fatalf("tools printed no resource templates:\n%s", out)
	}
	human := sb.cli(t, "status")
	if strings.Contains(human, "AI apps connected") {
		t.Errorf("status counts AI apps with none connected (its own API connection is not one):\n%s", human)
	}
	for _, want := range []string{fmt.Sprintf("host pid %d", h.pid()), "everything", "running", fmt.Sprint(ev.PID), "legacy", everything} {
		if !strings.Contains(human, want) {
			t.Errorf("status lacks %q:\n%s", want, human)
		}
	}

	// Rename-save: a second server starts, the first keeps its pid.
	dir1, dir2 := filepath.Join(sb.root, "files1"), filepath.Join(sb.root, "files2")
	for _, d := range []string{dir1, dir2} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cfg := readConfig(t, path)
	cfg["editorNote"] = "kept" // an unknown key
	servers(cfg)["files"] = map[string]any{"command": filesystem, "args": []string{dir1}, "env": map[string]string{markEnv: sb.mark}}
	writeRename(t, path, mustJSON(t, cfg))
	files := sb.waitRunning(t, "files")
	if st := sb.status(t); mustServer(t, st, "everything").PID != ev.PID {
		t.Fatalf("adding files restarted everything: pid %d -> %d", ev.PID, mustServer(t, st, "everything").PID)
	}

	// In place, in two chunks: change files' args; only files restarts.
	cfg = readConfig(t, path)
	servers(cfg)["files"].(map[string]any)["args"] = []string{dir1, dir2}
	writeInPlace(t, path, mustJSON(t, cfg), 300*time.Millisecond)
	files2 := sb.waitServer(t, "files", "restarted with a new pid", func(s hostapi.ServerStatus) bool {
		return s.State == "running" && s.PID != 0 && s.PID != files.PID && slices.Equal(s.Args, []string{dir1, dir2})
	})
	st := sb.waitStatus(t, "the config in force again", func(st statusOut) bool { return st.Host.Config.OK })
	if mustServer(t, st, "everything").PID != ev.PID {
		t.Fatalf("changing files restarted everything")
	}
	if alive(files.PID, 0) {
		t.Fatalf("the old files server (pid %d) still runs", files.PID)
	}

	// Rename-save the other way: everything's args change, files keeps its pid.
	cfg = readConfig(t, path)
	servers(cfg)["everything"].(map[string]any)["args"] = []string{"stdio"}
	writeRename(t, path, mustJSON(t, cfg))
	ev2 := sb.waitServer(t, "everything", "restarted with a new pid", func(s hostapi.ServerStatus) bool {
		return s.State == "running" && s.PID != 0 && s.PID != ev.PID
	})
	if got := mustServer(t, sb.status(t), "files").PID; got != files2.PID {
		t.Fatalf("changing everything restarted files: pid %d -> %d", files2.PID, got)
	}
	good := readConfig(t, path)
	if good["editorNote"] != "kept" {
		t.Errorf("the unknown key is gone: %v", good)
	}

	// A broken file: reported, the last good config stays in force.
	writeRename(t, path, []byte("{\n  \"version\": 1,\n  \"mcpServers\": {\n    \"everything\": {\"command\": \n"))
	st = sb.waitStatus(t, "the broken file reported", func(st statusOut) bool { return !st.Host.Config.OK })
	if st.Host.Config.Error == "" || !strings.Contains(st.Host.Config.Error, path) {
		t.Errorf("the config error does not name the file: %q", st.Host.Config.Error)
	}
	if mustServer(t, st, "everything").PID != ev2.PID || mustServer(t, st, "files").PID != files2.PID {
		t.Fatalf("a broken file changed the running servers: %+v", st.Servers)
	}
	if human := sb.cli(t, "status"); !strings.Contains(human, "the config file cannot be used") || !strings.Contains(human, "last good config") {
		t.Errorf("status does not report the broken file:\n%s", human)
	}
	if b, _ := os.ReadFile(sb.logPath()); !strings.Contains(string(b), "the last good config stays in force") {
		t.Errorf("host.log does not report the broken file")
	}
	// Repaired: in force again, nothing restarted.
	writeRename(t, path, mustJSON(t, good))
	st = sb.waitStatus(t, "the repaired file in force", func(st statusOut) bool { return st.Host.Config.OK })
	if mustServer(t, st, "everything").PID != ev2.PID || mustServer(t, st, "files").PID != files2.PID {
		t.Fatalf("repairing the file restarted servers: %+v", st.Servers)
	}

	// disable, enable (persisted in the file).
	if out := sb.cli(t, "servers", "disable", "files"); !strings.Contains(out, "disabled files") {
		t.Fatalf("servers disable printed %q", out)
	}
	sb.waitServer(t, "files", "disabled", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateDisabled && s.PID == 0 })
	testkit.Eventually(t, "the disabled server's process gone", func() (bool, string) { return !alive(files2.PID, 0), "alive" })
	if servers(readConfig(t, path))["files"].(map[string]any)["disabled"] != true {
		t.Fatal("disable is not in the file")
	}
	sb.cli(t, "servers", "enable", "files")
	files3 := sb.waitRunning(t, "files")
	if d := servers(readConfig(t, path))["files"].(map[string]any)["disabled"]; d == true {
		t.Fatal("enable left disabled: true in the file")
	}

	// servers stop NAME: stopped, and it stays stopped across a reload
	// that changes it; servers start brings it back.
	if out := sb.cli(t, "servers", "stop", "everything"); !strings.Contains(out, "stop: everything") {
		t.Fatalf("servers stop printed %q", out)
	}
	st = sb.status(t) // servers stop waits for the ladder
	if s := mustServer(t, st, "everything"); s.State != "stopped" || !s.UserStopped || s.PID != 0 {
		t.Fatalf("everything after servers stop: %+v", s)
	}
	if alive(ev2.PID, 0) {
		t.Fatalf("everything (pid %d) runs after servers stop returned", ev2.PID)
	}
	cfg = readConfig(t, path)
	servers(cfg)["everything"].(map[string]any)["env"].(map[string]any)["EXTRA"] = "1"
	servers(cfg)["files"].(map[string]any)["args"] = []string{dir2}
	writeRename(t, path, mustJSON(t, cfg))
	// files restarting shows that the reload was applied.
	sb.waitServer(t, "files", "restarted by the reload", func(s hostapi.ServerStatus) bool {
		return s.State == "running" && s.PID != 0 && s.PID != files3.PID
	})
	if s := mustServer(t, sb.status(t), "everything"); s.State != "stopped" || s.PID != 0 {
		t.Fatalf("the user-stopped server after a reload: %+v", s)
	}
	sb.cli(t, "servers", "start", "everything")
	ev3 := sb.waitRunning(t, "everything")

	// remove (persisted).
	filesNow := mustServer(t, sb.status(t), "files")
	if out := sb.cli(t, "servers", "remove", "files"); !strings.Contains(out, "removed files") {
		t.Fatalf("servers remove printed %q", out)
	}
	sb.waitStatus(t, "files gone", func(st statusOut) bool { _, ok := st.server("files"); return !ok })
	testkit.Eventually(t, "the removed server's process gone", func() (bool, string) { return !alive(filesNow.PID, 0), "alive" })
	if _, ok := servers(readConfig(t, path))["files"]; ok {
		t.Fatal("remove left files in the file")
	}

	// stop: the host stops every server and exits.
	out := sb.cli(t, "stop")
	if !strings.Contains(out, fmt.Sprintf("stopped the host (pid %d)", h.pid())) {
		t.Fatalf("stop printed %q", out)
	}
	if code := h.wait(t, wait); code != 0 {
		t.Fatalf("the host exited with %d", code)
	}
	if alive(ev3.PID, 0) {
		t.Fatalf("everything (pid %d) outlived the host", ev3.PID)
	}
	if left := marked(sb.mark); len(left) > 0 {
		t.Fatalf("processes left after stop: %v", left)
	}
	if r := sb.run(t, "", "status"); r.code != 0 || !strings.Contains(r.stdout, "no host is running") {
		t.Fatalf("status after stop: %s", r)
	}
	if r := sb.run(t, "", "call", "everything", "echo", "{}"); r.code != 1 || !strings.Contains(r.stderr, "needs a running host") {
		t.Fatalf("call without a host: %s", r)
	}
}

func mustServer(t *testing.T, st statusOut, name string) hostapi.ServerStatus {
	t.Helper()
	s, ok := st.server(name)
	if !ok {
		b, _ := json.Marshal(st.Servers)
		t.Fatalf("server %s is not in the status: %s", name, b)
	}
	return s
}

// helperArgs are the CLI arguments that add this test binary as a helper
// server of role; flags are more flags of servers add.
func (s *sandbox) helperArgs(name, role string, flags ...string) []string {
	args := []string{"servers", "add", name, "--env", helperEnv + "=" + role, "--env", markEnv + "=" + s.mark,
		"--env", "GORACE=atexit_sleep_ms=0"}
	args = append(args, flags...)
	return append(args, "--", testExe)
}

// shortLadders edits the config (with no host running) so that every
// server's stop ladder takes 300 ms per step instead of 2 s.
func (s *sandbox) shortLadders(t *testing.T) {
	t.Helper()
	cfg := readConfig(t, s.configPath())
	for _, e := range servers(cfg) {
		e.(map[string]any)["stdinGrace"] = 300
		e.(map[string]any)["termGrace"] = 300
	}
	writeRename(t, s.configPath(), mustJSON(t, cfg))
}

// TestE2EKilledHost: a SIGKILLed host's server dies with it (Pdeathsig),
// its grandchild (which ignores EOF and SIGTERM) survives, and the next
// host sweeps it. A second `serve` while one runs is refused with the pid
// and socket of the running one, and kills nothing.
func TestE2EKilledHost(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	gcFile := filepath.Join(sb.root, "grandchild")
	// Added with no host: the CLI writes the file itself.
	if out := sb.cli(t, sb.helperArgs("forker", "forker", "--env", gcFileEnv+"="+gcFile)...); !strings.Contains(out, "added forker") {
		t.Fatalf("servers add printed %q", out)
	}
	sb.shortLadders(t)
	h := sb.serve(t)
	srv := sb.waitRunning(t, "forker")
	var gcPID int
	var gcStart uint64
	testkit.Eventually(t, "the grandchild reports its pid", func() (bool, string) {
		b, err := os.ReadFile(gcFile)
		if err != nil {
			return false, err.Error()
		}
		_, err = fmt.Sscan(string(b), &gcPID, &gcStart)
		return err == nil && gcPID > 0, string(b)
	})

	if !alive(gcPID, gcStart) {
		t.Fatalf("the grandchild %d does not run", gcPID)
	}

	// A second serve is refused and touches nothing.
	r := sb.run(t, "", "serve")
	if r.code == 0 {
		t.Fatalf("a second serve succeeded: %s", r)
	}
	for _, want := range []string{"already running", fmt.Sprintf("pid %d", h.pid()), "socket " + sb.socket()} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the second serve's message lacks %q: %s", want, r)
		}
	}
	if !alive(srv.PID, 0) || !alive(gcPID, gcStart) || h.exited() {
		t.Fatal("a refused second serve killed something")
	}
	if s := mustServer(t, sb.status(t), "forker"); s.PID != srv.PID {
		t.Fatalf("the server changed: pid %d -> %d", srv.PID, s.PID)
	}

	// SIGKILL the host.
	if err := h.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := h.wait(t, wait); code != 128+int(syscall.SIGKILL) {
		t.Fatalf("the host exited with %d", code)
	}
	testkit.Eventually(t, "the server dies with its host (Pdeathsig)", func() (bool, string) {
		return !alive(srv.PID, 0), "alive"
	})

	if !alive(gcPID, gcStart) {
		t.Fatalf("the grandchild %d died with the host: the sweep has nothing to prove", gcPID)
	}

	// The next host sweeps the survivor.
	h2 := sb.serve(t)
	st := sb.status(t)
	if st.Host.Swept < 1 {
		t.Fatalf("host.info swept = %d, want >= 1", st.Host.Swept)
	}
	testkit.Eventually(t, "the grandchild swept", func() (bool, string) { return !alive(gcPID, gcStart), "alive" })
	if b, _ := os.ReadFile(sb.logPath()); !strings.Contains(string(b), "killed processes left behind by an earlier host") {
		t.Errorf("host.log does not mention the sweep")
	}
	srv2 := sb.waitRunning(t, "forker")
	if srv2.PID == srv.PID {
		t.Fatal("the same server pid after a restart of the host")
	}
	sb.cli(t, "stop")
	if code := h2.wait(t, wait); code != 0 {
		t.Fatalf("the second host exited with %d", code)
	}
	// The new server's own grandchild is gone with it (group kill).
	testkit.Eventually(t, "nothing of the test left", func() (bool, string) {
		left := marked(sb.mark)
		return len(left) == 0, fmt.Sprint(left)
	})

}

// TestE2ELockAndSocket: the single-instance lock, SWITCHBOARD_RUNTIME_DIR,
// and the refusal of a --config other than the running host's.
func TestE2ELockAndSocket(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	h := sb.serve(t)

	// The runtime directory holds the lock, the pid file and the socket.
	fi, err := os.Stat(sb.runtime)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir: %v %v", fi, err)
	}
	if fi, err := os.Stat(sb.socket()); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("no socket at %s: %v", sb.socket(), err)
	}
	if b, err := os.ReadFile(filepath.Join(sb.runtime, "host.pid")); err != nil || string(b) != fmt.Sprintf("%d\n%s\n", h.pid(), sb.socket()) {
		t.Fatalf("host.pid: %q %v", b, err)
	}
	st := sb.status(t)
	if st.Host == nil || st.Host.PID != h.pid() || st.Host.Socket != sb.socket() || st.Host.ConfigPath != sb.configPath() {
		t.Fatalf("host.info: %+v", st.Host)
	}

	// A second serve with the same runtime directory is refused, even
	// with another config.
	other := filepath.Join(sb.root, "other.json")
	r := sb.run(t, "", "--config", other, "serve")
	if r.code == 0 || !strings.Contains(r.stderr, "already running") || !strings.Contains(r.stderr, fmt.Sprintf("pid %d", h.pid())) {
		t.Fatalf("second serve: %s", r)
	}

	// Another runtime directory is another world: no host there, and a
	// host may run there beside the first.
	run2 := filepath.Join(sb.root, "run2")
	env2 := sb.with("SWITCHBOARD_RUNTIME_DIR="+run2, "XDG_CONFIG_HOME="+filepath.Join(sb.root, "cfg2"))
	if r := runEnv(t, env2, "", "status"); r.code != 0 || !strings.Contains(r.stdout, "no host is running") {
		t.Fatalf("status with another runtime dir: %s", r)
	}
	h2 := startServe(t, env2)
	h2.waitReady(t)
	if _, err := os.Stat(filepath.Join(run2, "host.sock")); err != nil {
		t.Fatalf("the second host's socket: %v", err)
	}
	if out := runEnv(t, env2, "", "status", "--json"); out.code != 0 || !strings.Contains(out.stdout, fmt.Sprintf(`"pid": %d`, h2.pid())) {
		t.Fatalf("status of the second host: %s", out)
	}
	if r := runEnv(t, env2, "", "stop"); r.code != 0 {
		t.Fatalf("stop of the second host: %s", r)
	}
	h2.wait(t, wait)
	if h.exited() {
		t.Fatal("stopping the second host stopped the first")
	}

	// --config (or SWITCHBOARD_CONFIG) other than the host's is refused.
	for _, r := range []result{
		sb.run(t, "", "--config", other, "status"),
		sb.run(t, "", "servers", "add", "x", "--config="+other, "--", "/bin/cat"),
		runEnv(t, sb.with("SWITCHBOARD_CONFIG="+other), "", "status"),
	} {
		want := fmt.Sprintf("the running host (pid %d) uses the config %s, not %s", h.pid(), sb.configPath(), other)
		if r.code != 1 || !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "switchboard stop") {
			t.Errorf("a --config other than the host's: %s", r)
		}
	}
	if _, err := os.Stat(other); err == nil {
		t.Fatal("a refused command wrote the other config")
	}
	// The host's own file, named explicitly, is fine.
	if r := sb.run(t, "", "status", "--config", sb.configPath()); r.code != 0 {
		t.Fatalf("--config naming the host's own file: %s", r)
	}
	sb.cli(t, "stop")
	if code := h.wait(t, wait); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// The lock is free again; the pid file is gone, the socket too.
	if _, err := os.Stat(filepath.Join(sb.runtime, "host.pid")); err == nil {
		t.Error("host.pid left after the host stopped")
	}
}

// TestE2EOnDemandIdle: a host started on demand exits after its idle
// timeout with no client, stopping its servers; a connected client (a
// `logs -f`) keeps it alive.
func TestE2EOnDemandIdle(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	sb.cli(t, sb.helperArgs("idle", "modern")...)
	const idle = 2 * time.Second
	env := sb.with(IdleTimeoutEnv + "=" + idle.String())
	h := startServe(t, env, "--on-demand")
	h.waitReady(t)

	// A client of this process holds the host while the follower (a
	// process, slower to start) connects; then the follower alone keeps
	// the host alive.
	guard, err := api.Dial(context.Background(), sb.socket())
	if err != nil {
		t.Fatal(err)
	}
	logs := startFollower(t, sb, "idle")
	srv := sb.waitRunning(t, "idle")
	testkit.Eventually(t, "logs -f prints the server's stderr", func() (bool, string) {
		out := logs.stdout.String()
		return strings.Contains(out, "cli helper: serving"), out
	})

	guard.Close()
	time.Sleep(idle + time.Second)
	if h.exited() {
		t.Fatalf("the host exited while a client followed its logs:\n%s", h.stderr.String())
	}
	if st := sb.status(t); !st.Host.OnDemand || st.Host.Clients < 2 {
		t.Fatalf("host.info: onDemand %v, clients %d (logs -f and status)", st.Host.OnDemand, st.Host.Clients)
	}
	// The follower goes: the host exits after the timeout, stopping its server.
	_ = logs.cmd.Process.Signal(syscall.SIGINT)
	<-logs.done
	start := time.Now()
	if code := h.wait(t, wait); code != 0 {
		t.Fatalf("the idle host exited with %d", code)
	}
	t.Logf("the host exited %v after its last client left (idle timeout %v)", time.Since(start).Round(10*time.Millisecond), idle)
	if !strings.Contains(h.stderr.String(), "no client for 2s") {
		t.Errorf("the host's log does not give the reason:\n%s", h.stderr.String())
	}
	if alive(srv.PID, 0) {
		t.Fatalf("the server (pid %d) outlived the idle host", srv.PID)
	}

	// Without --on-demand, the knob changes nothing: the host stays.
	h2 := startServe(t, env)
	h2.waitReady(t)
	time.Sleep(idle + time.Second)
	if h2.exited() {
		t.Fatalf("a host started without --on-demand exited when idle:\n%s", h2.stderr.String())
	}
	// A bad value is refused.
	if r := runEnv(t, sb.with(IdleTimeoutEnv+"=soon"), "", "serve", "--on-demand"); r.code != 1 || !strings.Contains(r.stderr, IdleTimeoutEnv) {
		t.Fatalf("a bad %s: %s", IdleTimeoutEnv, r)
	}
}

// follower is a `switchboard logs -f NAME` process.
type follower struct {
	cmd    *exec.Cmd
	stdout *syncBuffer
	done   chan struct{}
}

func startFollower(t *testing.T, sb *sandbox, name string) *follower {
	t.Helper()
	f := &follower{cmd: exec.Command(sbBin, "logs", "-f", name), stdout: &syncBuffer{}, done: make(chan struct{})}
	f.cmd.Env = sb.env
	f.cmd.Stdout = f.stdout
	f.cmd.Stderr = f.stdout
	if err := f.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = f.cmd.Wait(); close(f.done) }()
	t.Cleanup(func() {
		_ = f.cmd.Process.Kill()
		<-f.done
	})
	return f
}

// TestE2ESigterm: SIGTERM makes the host stop every server (here one that
// ignores EOF and SIGTERM, so that its ladder runs to SIGKILL, and one with
// such a grandchild) before it exits.
func TestE2ESigterm(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	sb.cli(t, sb.helperArgs("stubborn", "modern", "--env", stayEnv+"=term")...)
	sb.cli(t, "servers", "set", "stubborn", "--env", "X=1") // servers set keeps the rest
	cfg := readConfig(t, sb.configPath())
	e := servers(cfg)["stubborn"].(map[string]any)
	if e["command"] != testExe || e["env"].(map[string]any)[stayEnv] != "term" || e["env"].(map[string]any)["X"] != "1" {
		t.Fatalf("servers set lost fields: %v", e)
	}
	// A forker's grandchild ignores EOF and SIGTERM, and unlike a direct
	// child it is not killed by Pdeathsig when the host exits: only the
	// ladder's group SIGKILL ends it.
	gcFile := filepath.Join(sb.root, "grandchild")
	sb.cli(t, sb.helperArgs("forker", "forker", "--env", gcFileEnv+"="+gcFile)...)
	sb.shortLadders(t)
	h := sb.serve(t)
	a, b := sb.waitRunning(t, "stubborn"), sb.waitRunning(t, "forker")
	testkit.Eventually(t, "the grandchild reports its pid", func() (bool, string) {
		_, err := os.Stat(gcFile)
		return err == nil, fmt.Sprint(err)
	})

	if err := h.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := h.wait(t, wait); code != 0 {
		t.Fatalf("the host exited with %d after SIGTERM", code)
	}
	// Checked the moment the host is gone: it waited for every ladder.
	if left := marked(sb.mark); len(left) > 0 {
		t.Fatalf("processes left when the host exited: %v (servers %d, %d)", left, a.PID, b.PID)
	}
	if !strings.Contains(h.stderr.String(), "signal terminated") || !strings.Contains(h.stderr.String(), "every server stopped") {
		t.Errorf("the host's log:\n%s", h.stderr.String())
	}
}
