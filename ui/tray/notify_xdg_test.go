//go:build linux

package tray

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"github.com/godbus/dbus/v5"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/ui/appicon"
)

// A notification reaches the desktop's notification daemon signed
// "Switchboard" (not the app id Fyne sends), with the app's icon as a
// file the daemon can read, and the desktop-entry hint.
func TestNotifySignedSwitchboard(t *testing.T) {
	bus := testkit.SessionBus(t)
	daemon := testkit.StartNotifications(t, bus)
	conn, err := dbus.Connect(bus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)

	const id = "io.github.switchboard-mcp.switchboard"
	for range 2 { // the second finds the icon written by the first
		if err := sendXDGNotification(conn, id, fyne.NewNotification(`Server "a" failed`, "It exited: boom.")); err != nil {
			t.Fatal(err)
		}
	}
	calls := daemon.Calls()
	if len(calls) != 2 {
		t.Fatalf("%d notifications received, want 2", len(calls))
	}
	n := calls[0]
	t.Logf("received: app %q, icon %q, summary %q, body %q, hints %v, timeout %d", n.AppName, n.Icon, n.Summary, n.Body, n.Hints, n.Timeout)
	if n.AppName != "Switchboard" || n.Summary != `Server "a" failed` || n.Body != "It exited: boom." || n.Timeout != -1 {
		t.Fatalf("received %+v", n)
	}
	if got, _ := n.Hints["desktop-entry"].Value().(string); got != id {
		t.Fatalf("desktop-entry hint %v", n.Hints["desktop-entry"])
	}
	if want := filepath.Join(cache, "switchboard", "switchboard-64.png"); n.Icon != want || calls[1].Icon != want {
		t.Fatalf("icon %q, then %q; want %q", n.Icon, calls[1].Icon, want)
	}
	b, err := os.ReadFile(n.Icon)
	if err != nil || !bytes.Equal(b, appicon.Small.Content()) {
		t.Fatalf("the icon file: %v (%d bytes, want the app icon's %d)", err, len(b), len(appicon.Small.Content()))
	}
	// An icon made stale (another version's) is written again.
	if err := os.WriteFile(n.Icon, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := sendXDGNotification(conn, id, fyne.NewNotification("t", "b")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(n.Icon); !bytes.Equal(b, appicon.Small.Content()) {
		t.Fatal("a stale icon file was not replaced")
	}
}

// With no notification daemon on the bus, the error names the service.
func TestNotifyWithoutDaemon(t *testing.T) {
	conn, err := dbus.Connect(testkit.SessionBus(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	err = sendXDGNotification(conn, "x", fyne.NewNotification("t", "b"))
	if err == nil || !strings.Contains(err.Error(), "org.freedesktop.Notifications") {
		t.Fatalf("err %v", err)
	}
}

// The tray icon shows only where a StatusNotifierWatcher is on the bus
// and says that a tray host is registered with it.
func TestTrayHostPresent(t *testing.T) {
	conn := func(bus string) *dbus.Conn {
		c, err := dbus.Connect(bus)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	bare := testkit.SessionBus(t) // stock GNOME: no watcher
	if trayHostOn(conn(bare)) {
		t.Fatal("a tray host found on a bus without a StatusNotifierWatcher")
	}
	withHost := testkit.SessionBus(t)
	startWatcherWith(t, withHost, true)
	if !trayHostOn(conn(withHost)) {
		t.Fatal("no tray host found where the watcher has one")
	}
	noHost := testkit.SessionBus(t)
	startWatcherWith(t, noHost, false)
	if trayHostOn(conn(noHost)) {
		t.Fatal("a tray host found where the watcher says it has none")
	}
}

// A waiting call's notification has Allow once and Deny buttons (the
// daemon has actions): a click answers that call, once; a click on the
// notification opens the Approvals place. Without Decide it is the plain
// notification.
func TestApprovalNotificationButtons(t *testing.T) {
	bus := testkit.SessionBus(t)
	daemon := testkit.StartNotifications(t, bus)
	conn, err := dbus.Connect(bus)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	decided := make(chan string, 4)
	opened := make(chan struct{}, 4)
	actions := Actions{
		Decide:        func(id, decision string) { decided <- id + " " + decision },
		OpenApprovals: func() { opened <- struct{}{} },
	}
	next := func(what string) string {
		t.Helper()
		select {
		case d := <-decided:
			return d
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no decision", what)
			return ""
		}
	}
	ap := func(id string) hostapi.Approval {
		return hostapi.Approval{ID: id, App: "claude-ai", Server: "fs", Tool: "write_file", Why: "the tool says it is destructive"}
	}

	if err := sendApprovalXDG(conn, "x", ap("7"), actions); err != nil {
		t.Fatal(err)
	}
	calls := daemon.Calls()
	if len(calls) != 1 || !slices.Equal(calls[0].Actions, approvalKeys) || calls[0].Summary != "claude-ai asks to run write_file" ||
		!strings.Contains(calls[0].Body, "Allow it once or deny it here") {
		t.Fatalf("the notification: %+v", calls)
	}
	if err := daemon.Invoke(1, "allow"); err != nil {
		t.Fatal(err)
	}
	if d := next("Allow once"); d != "7 "+hostapi.DecideOnce {
		t.Fatalf("Allow once decided %q", d)
	}

	if err := sendApprovalXDG(conn, "x", ap("8"), actions); err != nil {
		t.Fatal(err)
	}
	if err := daemon.Invoke(2, "deny"); err != nil {
		t.Fatal(err)
	}
	if d := next("Deny"); d != "8 "+hostapi.DecideDeny {
		t.Fatalf("Deny decided %q", d)
	}
	// A second click on a notification already answered does nothing; the
	// signals come in order, so the click on the next one's body is seen
	// after it.
	if err := sendApprovalXDG(conn, "x", ap("9"), actions); err != nil {
		t.Fatal(err)
	}
	if err := daemon.Invoke(2, "allow"); err != nil {
		t.Fatal(err)
	}
	if err := daemon.Invoke(3, "default"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("a click on the notification did not open the Approvals place")
	}
	select {
	case d := <-decided:
		t.Fatalf("a notification answered twice, or a click on its body decided: %q", d)
	default:
	}

	// No Decide: the plain notification, without buttons.
	if err := sendApprovalXDG(conn, "x", ap("10"), Actions{}); err != nil {
		t.Fatal(err)
	}
	if calls := daemon.Calls(); len(calls) != 4 || len(calls[3].Actions) != 0 || !strings.Contains(calls[3].Body, "Open Switchboard to allow or deny it") {
		t.Fatalf("the notification without Decide: %+v", calls[len(calls)-1])
	}
}
