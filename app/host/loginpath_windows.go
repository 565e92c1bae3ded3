//go:build windows

package host

import (
	"os/exec"
	"time"
)

// LoginPath does not run a shell on Windows.
func ownGroup(*exec.Cmd)               {}
func waitGroupGone(int, time.Duration) {}
