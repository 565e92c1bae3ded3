//go:build linux || freebsd || netbsd || openbsd

package tray

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"github.com/godbus/dbus/v5"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
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
	_, err := notifyXDG(conn, desktopID, n, nil)
	return err
}

const (
	notifyService = "org.freedesktop.Notifications"
	notifyPath    = dbus.ObjectPath("/org/freedesktop/Notifications")
)

// notifyXDG makes the Notify call, with actions (key, label pairs) if
// any, and returns the notification's id.
func notifyXDG(conn *dbus.Conn, desktopID string, n *fyne.Notification, actions []string) (uint32, error) {
	icon := notificationIcon()
	hints := map[string]dbus.Variant{}
	if desktopID != "" {
		hints["desktop-entry"] = dbus.MakeVariant(desktopID)
	}
	if actions == nil {
		actions = []string{}
	}
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	var id uint32
	err := conn.Object(notifyService, notifyPath).CallWithContext(ctx, notifyService+".Notify", 0,
		AppName, uint32(0), icon, n.Title, n.Content, actions, hints, int32(-1)).Store(&id)
	if err != nil {
		return 0, fmt.Errorf("the desktop's notification service (org.freedesktop.Notifications): %w", err)
	}
	return id, nil
}

// notifyApproval sends a waiting call's notification, with Allow once and
// Deny buttons when the daemon has actions, off the caller's goroutine.
func notifyApproval(a fyne.App, ap hostapi.Approval, actions Actions) {
	if os.Getenv("FLATPAK_ID") != "" {
		go a.SendNotification(ApprovalNotification(ap))
		return
	}
	id := a.UniqueID()
	go func() {
		conn, err := dbus.SessionBus()
		if err == nil {
			err = sendApprovalXDG(conn, id, ap, actions)
		}
		if err != nil {
			slog.Warn("could not show a desktop notification", "title", ApprovalNotification(ap).Title, "err", err)
		}
	}()
}

// sendApprovalXDG notifies ap through conn's notification daemon: with
// buttons that answer it if the daemon has the "actions" capability
// (GNOME, KDE, most daemons), else the plain notification.
func sendApprovalXDG(conn *dbus.Conn, desktopID string, ap hostapi.Approval, actions Actions) error {
	if actions.Decide == nil || !hasActions(conn) {
		_, err := notifyXDG(conn, desktopID, ApprovalNotification(ap), nil)
		return err
	}
	l, err := listenActions(conn)
	if err != nil {
		return err
	}
	// Registered before the call: an action can come once the daemon
	// shows the notification, possibly before the call's answer is read.
	l.mu.Lock()
	l.pending = append(l.pending, func(key string) { onApprovalAction(ap, actions, key) })
	l.mu.Unlock()
	nid, err := notifyXDG(conn, desktopID, approvalWithButtons(ap), approvalKeys)
	l.mu.Lock()
	f := l.pending[len(l.pending)-1]
	l.pending = l.pending[:len(l.pending)-1]
	if err == nil {
		l.handlers[nid] = f
		early := l.early[nid]
		delete(l.early, nid)
		l.mu.Unlock()
		if early != "" {
			f(early)
		}
		return nil
	}
	l.mu.Unlock()
	return err
}

// hasActions asks the daemon whether its notifications show buttons.
func hasActions(conn *dbus.Conn) bool {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	var caps []string
	if conn.Object(notifyService, notifyPath).CallWithContext(ctx, notifyService+".GetCapabilities", 0).Store(&caps) != nil {
		return false
	}
	return slices.Contains(caps, "actions")
}

// actionListener routes a connection's ActionInvoked signals to the
// notification they name, once each; NotificationClosed forgets it.
type actionListener struct {
	mu       sync.Mutex
	handlers map[uint32]func(key string)
	pending  []func(string)    // Notify calls under way
	early    map[uint32]string // actions of an id not yet registered
}

var (
	listenersMu sync.Mutex
	listeners   = map[*dbus.Conn]*actionListener{}
)

// listenActions returns conn's listener, started the first time.
func listenActions(conn *dbus.Conn) (*actionListener, error) {
	listenersMu.Lock()
	defer listenersMu.Unlock()
	if l := listeners[conn]; l != nil {
		return l, nil
	}
	for _, member := range []string{"ActionInvoked", "NotificationClosed"} {
		if err := conn.AddMatchSignal(dbus.WithMatchObjectPath(notifyPath), dbus.WithMatchInterface(notifyService), dbus.WithMatchMember(member)); err != nil {
			return nil, fmt.Errorf("listening to the notifications' buttons: %w", err)
		}
	}
	l := &actionListener{handlers: map[uint32]func(string){}, early: map[uint32]string{}}
	ch := make(chan *dbus.Signal, 16)
	conn.Signal(ch)
	go func() {
		for sig := range ch {
			l.signal(sig)
		}
	}()
	listeners[conn] = l
	return l, nil
}

func (l *actionListener) signal(sig *dbus.Signal) {
	if sig.Path != notifyPath || len(sig.Body) == 0 {
		return
	}
	id, ok := sig.Body[0].(uint32)
	if !ok {
		return
	}
	l.mu.Lock()
	switch sig.Name {
	case notifyService + ".ActionInvoked":
		var key string
		if len(sig.Body) > 1 {
			key, _ = sig.Body[1].(string)
		}
		f := l.handlers[id]
		if f == nil {
			if len(l.pending) > 0 && len(l.early) < 64 {
				l.early[id] = key // its Notify's answer is on its way
			}
			l.mu.Unlock()
			return
		}
		delete(l.handlers, id) // one answer per notification
		l.mu.Unlock()
		f(key)
		return
	case notifyService + ".NotificationClosed":
		delete(l.handlers, id)
	}
	l.mu.Unlock()
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
