//go:build !windows

package service

// DetachConsole does something on Windows only.
func DetachConsole() {}
