//go:build !((linux || freebsd || netbsd || openbsd) && cgo && !ci && !wayland)

package ui

import "fyne.io/fyne/v2"

// minimise does nothing here: the window stays as shown (macOS and
// Windows have Fyne's tray, and this is for a desktop without a tray
// host; a Wayland build has no way to ask).
func minimise(fyne.App, string) {}
