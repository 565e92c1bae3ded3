package testkit

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
)

// The pieces of a Linux desktop that the UI's tests run against: a
// virtual X server, a private session bus, and the receiving side of the
// desktop's notifications.

// desktopWait bounds how long a desktop piece may take to start.
const desktopWait = 30 * time.Second

// Xvfb starts a virtual X server on a free display (-displayfd) and
// returns its DISPLAY value; it is killed when the test ends. Without
// Xvfb the test skips (fails under CI=true).
func Xvfb(t testing.TB) string {
	t.Helper()
	SkipShort(t, "a test on a virtual X server (Xvfb)")
	if _, err := exec.LookPath("Xvfb"); err != nil {
		SkipOrFail(t, "Xvfb is not installed (apt-get install xvfb)")
	}
	display, stop, err := StartXvfb("1024x768x24")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return display
}

// StartXvfb is [Xvfb] for a caller without a test (a TestMain): a screen
// of that size (WxHxDEPTH), its DISPLAY value and a function that stops
// it.
func StartXvfb(screen string) (display string, stop func(), err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp")
	cmd.ExtraFiles = []*os.File{w}
	var stderr SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		w.Close()
		r.Close()
		return "", nil, fmt.Errorf("starting Xvfb: %w", err)
	}
	w.Close()
	stop = func() { cmd.Process.Kill(); cmd.Wait() }
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		got <- strings.TrimSpace(line)
	}()
	select {
	case n := <-got:
		if n == "" {
			stop()
			return "", nil, fmt.Errorf("xvfb did not say its display: %s", stderr.String())
		}
		return ":" + n, stop, nil
	case <-time.After(desktopWait):
		stop()
		return "", nil, fmt.Errorf("xvfb did not start within %v: %s", desktopWait, stderr.String())
	}
}

// SessionBus starts a private session bus ([BusConfig]: nothing is
// D-Bus-activated, so no tray host or notification daemon of the machine
// answers on it) and returns its address; it is killed when the test
// ends. Without dbus-daemon the test skips (fails under CI=true).
func SessionBus(t testing.TB) string {
	t.Helper()
	daemon, err := exec.LookPath("dbus-daemon")
	if err != nil {
		SkipOrFail(t, "dbus-daemon is not installed (apt-get install dbus-daemon)")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "bus.conf")
	if err := os.WriteFile(cfg, BusConfig(dir), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(daemon, "--config-file="+cfg, "--nofork", "--print-address=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting dbus-daemon: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("reading dbus-daemon's address: %v (%s)", err, stderr.String())
	}
	return strings.TrimSpace(line)
}

// Notification is one org.freedesktop.Notifications.Notify call, as the
// daemon received it.
type Notification struct {
	AppName string
	ID      uint32 // replaces_id
	Icon    string // app_icon
	Summary string
	Body    string
	Actions []string
	Hints   map[string]dbus.Variant
	Timeout int32
}

// Notifications is the receiving side of org.freedesktop.Notifications
// on a test's bus: it records each Notify call, as a desktop's
// notification daemon would show it.
type Notifications struct {
	conn  *dbus.Conn
	mu    sync.Mutex
	calls []Notification
	next  uint32
}

// Invoke clicks the button key of notification id (the number Notify
// returned, from 1), as a person would: the ActionInvoked signal, then
// NotificationClosed, as GNOME Shell sends them.
func (n *Notifications) Invoke(id uint32, key string) error {
	const path = "/org/freedesktop/Notifications"
	if err := n.conn.Emit(path, "org.freedesktop.Notifications.ActionInvoked", id, key); err != nil {
		return err
	}
	return n.conn.Emit(path, "org.freedesktop.Notifications.NotificationClosed", id, uint32(2))
}

// Notify implements org.freedesktop.Notifications.Notify.
func (n *Notifications) Notify(appName string, replacesID uint32, icon, summary, body string,
	actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.calls = append(n.calls, Notification{appName, replacesID, icon, summary, body, actions, hints, timeout})
	n.next++
	return n.next, nil
}

// GetCapabilities implements the method of that name.
func (n *Notifications) GetCapabilities() ([]string, *dbus.Error) {
	return []string{"body", "actions"}, nil
}

// GetServerInformation implements the method of that name.
func (n *Notifications) GetServerInformation() (name, vendor, version, spec string, err *dbus.Error) {
	return "switchboard-test", "switchboard", "1", "1.2", nil
}

// CloseNotification implements the method of that name.
func (n *Notifications) CloseNotification(id uint32) *dbus.Error { return nil }

// Calls returns the notifications received so far.
func (n *Notifications) Calls() []Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]Notification(nil), n.calls...)
}

// StartNotifications serves org.freedesktop.Notifications on the bus at
// addr until the test ends.
func StartNotifications(t testing.TB, addr string) *Notifications {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connecting to the session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	n := &Notifications{conn: conn}
	const name, path = "org.freedesktop.Notifications", "/org/freedesktop/Notifications"
	if err := conn.Export(n, path, name); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(name, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("claiming %s: reply %v, %v", name, reply, err)
	}
	return n
}
