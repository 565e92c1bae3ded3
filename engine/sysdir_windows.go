//go:build windows

package engine

import "golang.org/x/sys/windows"

// systemDirectory returns the system directory (System32) as Windows
// reports it.
func systemDirectory() string {
	d, err := windows.GetSystemDirectory()
	if err != nil {
		return ""
	}
	return d
}
