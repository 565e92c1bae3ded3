//go:build darwin && !cgo

package api

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// darwinUserTempDir is confstr(_CS_DARWIN_USER_TEMP_DIR), asked of
// getconf(1) in a build without cgo: the per-user temporary directory
// (/var/folders/xx/…/T/) that launchd normally puts in $TMPDIR, computed
// from the user whatever the environment says.
func darwinUserTempDir() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "/usr/bin/getconf", "DARWIN_USER_TEMP_DIR").Output()
	d := strings.TrimSpace(string(out))
	if err != nil || !strings.HasPrefix(d, "/") {
		return "", fmt.Errorf("getconf DARWIN_USER_TEMP_DIR failed (%v): set %s to a private directory", err, RuntimeDirEnv)
	}
	return d, nil
}
