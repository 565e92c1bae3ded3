//go:build !windows

package engine

// systemDirectory is Windows-only; resolution for Windows on another OS
// (tests) uses SystemRoot.
func systemDirectory() string { return "" }
