// Package ui is Switchboard's tray app and window (Fyne). It is a client of
// the host's local API through app/client: it connects to the running
// host, or starts one on demand, and never owns a server itself.
package ui

import (
	"context"
	"log/slog"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/ui/tray"
	"github.com/switchboard-mcp/switchboard/ui/window"
)

// AppID is the Fyne application id; it matches FyneApp.toml.
const AppID = "io.github.switchboard-mcp.switchboard"

// Options configure [Run].
type Options struct {
	Socket string       // the host's API endpoint
	Exe    string       // the switchboard executable that starts a host ("" = this one)
	Logger *slog.Logger // connection changes; nil discards
	// ShowWindow opens the window at start (as when the desktop has no tray).
	ShowWindow bool
}

// Run runs the tray app until the user quits it.
func Run(o Options) error {
	a := app.NewWithID(AppID)
	return RunApp(a, o)
}

// RunApp runs the tray app on a given Fyne app (tests give Fyne's test
// app); it returns when the app quits.
func RunApp(a fyne.App, o Options) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live := client.New(client.Options{
		Socket: o.Socket,
		Logger: o.Logger,
		StartHost: func(ctx context.Context) error {
			return client.StartHost(ctx, o.Exe, o.Socket)
		},
	})
	go live.Run(ctx)

	// The window is created only when first opened; closing it hides it.
	var win *window.Window
	ensure := func() *window.Window {
		if win == nil {
			ch, _ := live.Watch()
			win = window.New(a, live, window.Options{Changed: ch})
		}
		return win
	}
	open := func() { fyne.Do(func() { ensure().Show() }) }
	actions := tray.HostActions(live, a, tray.HostOptions{
		Open:     open,
		ShowLogs: func(name string) { fyne.Do(func() { ensure().ShowLogs(name) }) },
		Detach:   cancel,
	})
	t := &tray.Tray{}
	t.Run(a, live, actions)
	defer t.Close()
	if _, ok := a.(desktop.App); !ok || o.ShowWindow {
		// No tray on this desktop: the window is the app.
		ensure().Show()
	}
	a.Run()
	return nil
}
