//go:build linux || freebsd || netbsd || openbsd

package tray

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"fyne.io/fyne/v2"
	"github.com/godbus/dbus/v5"
	"github.com/switchboard-mcp/switchboard/ui/appicon"
)

// notifyTimeout bounds a Notify call: a hung notification daemon must not
// keep goroutines waiting for ever.
const notifyTimeout = 10 * time.Second

// notify sends n through org.freedesktop.Notifications, off the caller's
// goroutine (a D-Bus call may wait for the daemon; it must not hold up
// the menu or the UI thread). In a Flatpak sandbox, where the portal is
// the way, it goes through Fyne instead.
func notify(a fyne.App, n *fyne.Notification) {
	if os.Getenv("FLATPAK_ID") != "" {
		go a.SendNotification(n)
		return
	}
	id := a.UniqueID()
	go func() {
		if err := SendXDGNotification(id, n); err != nil {
			slog.Warn("could not show a desktop notification", "title", n.Title, "err", err)
		}
	}()
}

// SendXDGNotification shows n through the session bus's notification
// daemon (org.freedesktop.Notifications.Notify), signed [AppName] with the
// app's icon (the path of a PNG written once to the user's cache
// directory, as Fyne does, so that it shows whether or not the packages'
// themed icon is installed), the daemon's default expiry, and a
// desktop-entry hint naming desktopID (the .desktop file the packages
// install, which GNOME Shell and KDE use to group and name the app's
// notifications).
func SendXDGNotification(desktopID string, n *fyne.Notification) error {
	conn, err := dbus.SessionBus() // shared: never closed
	if err != nil {
		return fmt.Errorf("no D-Bus session bus for notifications: %w", err)
	}
	return sendXDGNotification(conn, desktopID, n)
}

func sendXDGNotification(conn *dbus.Conn, desktopID string, n *fyne.Notification) error {
	icon := notificationIcon()
	hints := map[string]dbus.Variant{}
	if desktopID != "" {
		hints["desktop-entry"] = dbus.MakeVariant(desktopID)
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	obj := conn.Object("org.freedesktop.Notifications", "/org/freedesktop/Notifications")
	call := obj.CallWithContext(ctx, "org.freedesktop.Notifications.Notify", 0,
		AppName, uint32(0), icon, n.Title, n.Content, []string{}, hints, int32(-1))
	if call.Err != nil {
		return fmt.Errorf("the desktop's notification service (org.freedesktop.Notifications): %w", call.Err)
	}
	return nil
}

// notificationIcon returns the path of the app's icon as a file (the
// daemon reads it), written under the user's cache directory the first
// time; "" if it cannot be written (the notification goes without).
func notificationIcon() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	path := filepath.Join(dir, "switchboard", "switchboard-64.png")
	want := appicon.Small.Content()
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, want) {
		return path
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return ""
	}
	// Written aside and renamed: a daemon never reads half an icon.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".icon-*")
	if err != nil {
		return ""
	}
	_, err = tmp.Write(want)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return ""
	}
	return path
}
