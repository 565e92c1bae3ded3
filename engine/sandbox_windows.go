//go:build windows

package engine

import (
	"fmt"
	"os"
)

// ownedPrivateDir refuses dir unless it is a directory (not a link).
// Never reached yet: Windows has no sandbox enforcement (sandbox.Probe).
func ownedPrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%q is not a directory: remove it", dir)
	}
	return nil
}
