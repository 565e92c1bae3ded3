package tray

import (
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
