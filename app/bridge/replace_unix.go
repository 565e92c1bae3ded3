//go:build unix

package bridge

import (
	"os"
	"syscall"
)

// canReplace: the bridge can run switchboard in its own place.
const canReplace = true

// replace runs exe in this process's place, with this process's
// environment and descriptors; it returns only if that fails.
func replace(exe string, argv []string) error {
	return syscall.Exec(exe, argv, os.Environ())
}
