//go:build !(linux || freebsd || netbsd || openbsd)

package ui

// startSystray is nil here: the tray is Fyne's own (on macOS and Windows
// its hidden window costs no separate GL stack).
var startSystray func(title string) (trayHost, error)
