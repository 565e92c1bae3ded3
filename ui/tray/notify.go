package tray

import "fyne.io/fyne/v2"

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
