//go:build unix

package config

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// readOnlyDirEnv names, in the child that TestUpdateReadOnlyDirectory
// runs as nobody, the directory to try Update in.
const readOnlyDirEnv = "SWITCHBOARD_TEST_READONLY_DIR"

// TestUpdateReadOnlyDirectory: a config file in a directory its user may
// not write in is not changed, and the error says so and names the
// remedy. Root may write anywhere, and CI runs as root: there the check
// runs in a child process as the user nobody, in a directory of root's.
func TestUpdateReadOnlyDirectory(t *testing.T) {
	content := `{"version": 1, "mcpServers": {}}`
	if dir := os.Getenv(readOnlyDirEnv); dir != "" {
		checkReadOnlyDir(t, dir, content) // the child, as nobody
		return
	}
	if os.Geteuid() != 0 {
		ro := t.TempDir()
		writeFile(t, filepath.Join(ro, "config.json"), content)
		if err := os.Chmod(ro, 0o500); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(ro, 0o700) })
		checkReadOnlyDir(t, ro, content)
		return
	}

	u, err := user.Lookup("nobody")
	if err != nil {
		testkit.SkipOrFail(t, "no user nobody to run the check as: %v", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// A directory of root's that nobody may enter and read but not
	// write (t.TempDir's parent is private to root), with a copy of the
	// test binary (the go build directory is private too).
	shared, err := os.MkdirTemp("", "sbconfig-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	if err := os.Chmod(shared, 0o755); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(shared, "ro")
	if err := os.Mkdir(ro, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(ro, "config.json")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(shared, "config.test")
	copyExe(t, exe)

	cmd := exec.Command(exe, "-test.run=^TestUpdateReadOnlyDirectory$", "-test.v", "-test.count=1")
	cmd.Dir = shared
	cmd.Env = append(os.Environ(), readOnlyDirEnv+"="+ro, "HOME="+shared, "TMPDIR="+shared, "GOCOVERDIR=")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestUpdateReadOnlyDirectory") {
		t.Fatalf("the check as nobody (uid %d): %v\n%s", uid, err, out)
	}
	if got, _ := os.ReadFile(path); string(got) != content {
		t.Errorf("the file was changed: %s", got)
	}
	if ents, _ := os.ReadDir(ro); len(ents) != 1 {
		t.Errorf("files beside the config: %v", ents)
	}
}

// checkReadOnlyDir runs Update on dir/config.json, which its user may
// read but not replace: the error names the file, the directory and the
// remedy, and the file is not changed.
func checkReadOnlyDir(t *testing.T, dir, content string) {
	t.Helper()
	path := filepath.Join(dir, "config.json")
	err := Update(path, func(f *File) error { f.SetServer("x", &Server{Command: "y"}); return nil })
	want := path + " cannot be changed: you may not write in its directory " + dir + " ("
	if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "make the directory writable for you") {
		t.Errorf("a read-only directory (uid %d): err = %v, want it to begin %q and name the remedy", os.Geteuid(), err, want)
	}
	if got, _ := os.ReadFile(path); string(got) != content {
		t.Errorf("the file was changed: %s", got)
	}
}

// copyExe copies the running test binary to path, executable by all.
func copyExe(t *testing.T, path string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
