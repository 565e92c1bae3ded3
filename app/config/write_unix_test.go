//go:build unix

package config

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

	uid, gid := testkit.Nobody(t)
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
	exe := testkit.CopyTestBinary(t, shared, "config.test")

	cmd := exec.Command(exe, "-test.run=^TestUpdateReadOnlyDirectory$", "-test.v", "-test.count=1")
	cmd.Dir = shared
	cmd.Env = append(os.Environ(), readOnlyDirEnv+"="+ro, "HOME="+shared, "TMPDIR="+shared, "GOCOVERDIR=")
	testkit.RunAs(cmd, uid, gid)
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
