//go:build !(linux || freebsd || netbsd || openbsd)

package tray

import (
	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// notify goes through Fyne, on its UI thread (queued until the driver
// runs).
func notify(a fyne.App, n *fyne.Notification) {
	fyne.Do(func() { a.SendNotification(n) })
}

// notifyApproval is a plain notification here: Fyne's have no buttons.
func notifyApproval(a fyne.App, ap hostapi.Approval, _ Actions) {
	notify(a, ApprovalNotification(ap))
}
