//go:build windows

package service

import "golang.org/x/sys/windows"

var procFreeConsole = windows.NewLazySystemDLL("kernel32.dll").NewProc("FreeConsole")

// DetachConsole lets go of the console that Windows gave a console program
// that the logon task started, so that its window closes: a service host
// logs to its file and needs none. (A GUI-subsystem binary has none to
// begin with.)
func DetachConsole() { _, _, _ = procFreeConsole.Call() }
