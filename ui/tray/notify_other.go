//go:build !(linux || freebsd || netbsd || openbsd)

package tray

import "fyne.io/fyne/v2"

// notify goes through Fyne, on its UI thread (queued until the driver
// runs).
func notify(a fyne.App, n *fyne.Notification) {
	fyne.Do(func() { a.SendNotification(n) })
}
