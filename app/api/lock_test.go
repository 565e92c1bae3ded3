package api_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
)

// runHelper runs the test binary as a helper to completion and returns what
// it reported.
func runHelper(t *testing.T, cmd *exec.Cmd) helperResult {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper: %v\n%s", err, stderr.String())
	}
	var r helperResult
	if err := json.Unmarshal(bytes.TrimSpace(out), &r); err != nil {
		t.Fatalf("helper printed %q: %v\n%s", out, err, stderr.String())
	}
	return r
}

func helperCmd(t *testing.T, exe, role string, env ...string) *exec.Cmd {
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{helperEnv + "=" + role}, env...)...)
	return cmd
}

func testExe(t *testing.T) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}

func TestInstanceLockAdmitsOneHost(t *testing.T) {
	dir := filepath.Join(tempDir(t), "run")
	lock, err := api.AcquireInstanceLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	sock := testSocket(t, dir)
	ln, err := lock.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	b, err := os.ReadFile(filepath.Join(dir, api.PIDName))
	if want := strconv.Itoa(os.Getpid()) + "\n" + sock + "\n"; err != nil || string(b) != want {
		t.Errorf("%s = %q, %v; want %q", api.PIDName, b, err, want)
	}

	// A second process (flock is per open file description) is refused
	// and told who holds the lock.
	r := runHelper(t, helperCmd(t, testExe(t), "lock", dirEnv+"="+dir))
	if r.Acquired || r.PID != os.Getpid() || r.Socket != sock {
		t.Fatalf("second acquisition = %+v; want AlreadyRunningError with pid %d and socket %s", r, os.Getpid(), sock)
	}
	want := "a Switchboard host is already running (pid " + strconv.Itoa(os.Getpid()) + ", socket " + sock + "): use it, or stop it before starting another"
	if r.Err != want {
		t.Errorf("message = %q\nwant      %q", r.Err, want)
	}

	if err := lock.Release(); err != nil {
		t.Fatal(err)
	}
	if err := lock.Release(); err != nil { // twice is fine
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, api.PIDName)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s is still there after Release: %v", api.PIDName, err)
	}
	if _, err := lock.Listen(sock); err == nil {
		t.Error("Listen after Release succeeded")
	}
	r = runHelper(t, helperCmd(t, testExe(t), "lock", dirEnv+"="+dir))
	if !r.Acquired {
		t.Fatalf("acquisition after Release = %+v", r)
	}
}

func TestAlreadyRunningErrorText(t *testing.T) {
	for _, c := range []struct {
		e    api.AlreadyRunningError
		want string
	}{
		{api.AlreadyRunningError{PID: 42, Socket: "/s"}, "a Switchboard host is already running (pid 42, socket /s): use it, or stop it before starting another"},
		{api.AlreadyRunningError{PID: 42}, "a Switchboard host is already running (pid 42): use it, or stop it before starting another"},
		{api.AlreadyRunningError{}, "a Switchboard host is already running: use it, or stop it before starting another"},
	} {
		if got := c.e.Error(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}
