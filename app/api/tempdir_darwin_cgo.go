//go:build darwin && cgo

package api

/*
#include <limits.h>
#include <unistd.h>
*/
import "C"

import "fmt"

// darwinUserTempDir is confstr(_CS_DARWIN_USER_TEMP_DIR): the per-user
// temporary directory (/var/folders/xx/…/T/) that launchd normally puts in
// $TMPDIR, computed from the user whatever the environment says.
func darwinUserTempDir() (string, error) {
	var buf [C.PATH_MAX]C.char
	n := C.confstr(C._CS_DARWIN_USER_TEMP_DIR, &buf[0], C.size_t(len(buf)))
	if n == 0 || int(n) > len(buf) {
		return "", fmt.Errorf("confstr(_CS_DARWIN_USER_TEMP_DIR) failed: set %s to a private directory", RuntimeDirEnv)
	}
	return C.GoString(&buf[0]), nil
}
