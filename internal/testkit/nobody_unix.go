//go:build unix

package testkit

import (
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// Nobody returns the user nobody's uid and gid, for a check that needs a
// user other than root where the tests run as root (CI). Without that
// user the test skips (fails under CI=true).
func Nobody(t testing.TB) (uid, gid int) {
	t.Helper()
	u, err := user.Lookup("nobody")
	if err != nil {
		SkipOrFail(t, "no user nobody to run the check as: %v", err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// CopyTestBinary copies this test binary to dir/name, mode 0755, and
// returns its path: a child that runs as another user cannot run it where
// go test built it (that folder is private to root).
func CopyTestBinary(t testing.TB, dir, name string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	src, err := os.Open(self)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// RunAs makes cmd run as uid and gid.
func RunAs(cmd *exec.Cmd, uid, gid int) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}
