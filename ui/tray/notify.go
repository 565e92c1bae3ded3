package tray

import (
	"fmt"

	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// AppName is the name a desktop notification is signed with.
const AppName = "Switchboard"

// Notify sends a desktop notification from the app, from any goroutine,
// without waiting for it to be shown. It is signed "Switchboard" with the
// app's icon: on the freedesktop platforms through a Notify call of its
// own (Fyne's sends the app id, io.github.switchboard-mcp.switchboard, as
// the app's name, and has no way to be told another), elsewhere through
// Fyne, which signs with the app's name and icon there.
func Notify(a fyne.App, n *fyne.Notification) {
	notify(a, n)
}

// NotifyApproval notifies a call that waits for the user, without waiting
// for the notification to be shown. Where the desktop's notifications have
// buttons (freedesktop's "actions" capability) it has Allow once and Deny,
// which answer through actions.Decide, and a click on its body opens the
// window's Approvals place; elsewhere it says to open Switchboard.
func NotifyApproval(a fyne.App, ap hostapi.Approval, actions Actions) {
	notifyApproval(a, ap, actions)
}

// approvalKeys are the notification's buttons: the action keys and their
// labels, as org.freedesktop.Notifications.Notify takes them ("default"
// is a click on the notification itself).
var approvalKeys = []string{"allow", "Allow once", "deny", "Deny", "default", "Open Switchboard"}

// onApprovalAction carries out a notification's action key for ap.
func onApprovalAction(ap hostapi.Approval, actions Actions, key string) {
	switch key {
	case "allow", "deny":
		if actions.Decide == nil {
			return
		}
		d := hostapi.DecideOnce
		if key == "deny" {
			d = hostapi.DecideDeny
		}
		actions.Decide(ap.ID, d)
	case "default":
		if open := actions.OpenApprovals; open != nil {
			open()
		} else if actions.Open != nil {
			actions.Open()
		}
	}
}

// approvalWithButtons is the notification of a waiting call whose
// buttons answer it.
func approvalWithButtons(ap hostapi.Approval) *fyne.Notification {
	n := ApprovalNotification(ap)
	n.Content = fmt.Sprintf("%s's tool %s waits for your approval (%s). Allow it once or deny it here, or open Switchboard to see its arguments.", ap.Server, ap.Tool, ap.Why)
	return n
}
