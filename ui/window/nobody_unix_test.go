//go:build unix

package window

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// asNobody runs the tests that run names (a -test.run pattern) in a copy
// of this test binary as the user nobody, with a HOME of its own: for a
// check that needs a user other than root, where the tests run as root
// (CI). It fails the test, with the child's output, when the child fails
// or its output lacks want (the --- PASS line of what must have run).
func asNobody(t *testing.T, run, want string) {
	t.Helper()
	uid, gid := testkit.Nobody(t)
	// Under /tmp: t.TempDir's parent, and the go build directory, are
	// private to root.
	dir, err := os.MkdirTemp("", "sbwindow-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	exe := testkit.CopyTestBinary(t, dir, "window.test")
	if err := os.Chown(dir, uid, gid); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run="+run, "-test.v", "-test.count=1")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "HOME="+dir, "TMPDIR="+dir, "XDG_RUNTIME_DIR=", "XDG_CONFIG_HOME=", "GOCOVERDIR=")
	testkit.RunAs(cmd, uid, gid)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), want) {
		t.Fatalf("as nobody (uid %d), %s: %v\n%s", uid, run, err, out)
	}
}
