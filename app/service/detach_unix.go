//go:build unix

package service

import "syscall"

// detached puts the host in a session (and process group) of its own.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
