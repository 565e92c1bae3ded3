//go:build unix

package engine

import (
	"fmt"
	"os"
	"syscall"
)

// ownedPrivateDir refuses dir unless it is a directory (not a link) of
// this user's with no access for others.
func ownedPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%q is not a directory of this user's: remove it", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}
