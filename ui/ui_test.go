package ui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/ui/tray"
)

// fakeTray records what the app shows in a tray that is not Fyne's (the
// real one, tray.Systray, is tested over D-Bus in ui/tray).
type fakeTray struct {
	mu     sync.Mutex
	menu   *fyne.Menu
	closed bool
	hidden bool // the desktop shows no tray icon (Visible is false)
}

func (f *fakeTray) Visible() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.hidden
}

func (f *fakeTray) SetSystemTrayIcon(fyne.Resource) {}
func (f *fakeTray) SetSystemTrayMenu(m *fyne.Menu) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.menu = m
}
func (f *fakeTray) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
}

func (f *fakeTray) item(t *testing.T, label string) *fyne.MenuItem {
	t.Helper()
	var item *fyne.MenuItem
	testkit.Eventually(t, fmt.Sprintf("a %q item in the tray", label), func() bool {
		f.mu.Lock()
		m := f.menu
		f.mu.Unlock()
		if m != nil {
			for _, it := range m.Items {
				if it.Label == label {
					item = it
					return true
				}
			}
		}
		return false
	})
	return item
}

// startLazy runs the app with a fake tray and no host (the one it would
// start does not exist); it returns the tray and run's result channel.
func startLazy(t *testing.T, a fyne.App, o Options) (*fakeTray, <-chan error) {
	t.Helper()
	dir := t.TempDir()
	o.Socket = filepath.Join(dir, "api.sock")
	o.Exe = filepath.Join(dir, "no-switchboard")
	ft := &fakeTray{}
	done := make(chan error, 1)
	o.uiLock = &uiMu
	go func() { done <- run(a, o, func(string) (trayHost, error) { return ft, nil }) }()
	return ft, done
}

func waitRun(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not return")
	}
}

// titles lists the app's windows (Fyne's test app has one of its own,
// titled "").
func titles(a fyne.App) []string {
	var out []string
	for _, w := range a.Driver().AllWindows() {
		if w.Title() != "" {
			out = append(out, w.Title())
		}
	}
	return out
}

// With a tray of its own, the app runs Fyne's driver (and so creates any
// window) only once a window is needed: Open does it.
func TestTrayStartsFyneOnOpen(t *testing.T) {
	a := test.NewTempApp(t)
	ft, done := startLazy(t, a, Options{})
	open := ft.item(t, tray.LabelOpen)
	select {
	case <-done:
		t.Fatal("run returned before anything asked it to")
	case <-time.After(100 * time.Millisecond):
	}
	if w := titles(a); len(w) != 0 {
		t.Fatalf("windows before Open: %v", w)
	}
	open.Action()
	waitRun(t, done) // the test app's Run returns at once
	var main fyne.Window
	for _, w := range a.Driver().AllWindows() {
		if w.Title() == "Switchboard" && w.Content() != nil {
			main = w
		}
	}
	if main == nil {
		t.Fatalf("no main window after Open: %v", titles(a))
	}
	ft.mu.Lock()
	defer ft.mu.Unlock()
	if !ft.closed {
		t.Fatal("the tray was not closed when the app ended")
	}
}

// Quit before any window was needed ends the app without Fyne's driver.
func TestTrayQuitsWithoutFyne(t *testing.T) {
	a := test.NewTempApp(t)
	ft, done := startLazy(t, a, Options{})
	open := ft.item(t, tray.LabelOpen)
	ft.item(t, tray.LabelQuit).Action()
	waitRun(t, done)
	if w := titles(a); len(w) != 0 {
		t.Fatalf("windows created by Quit: %v", w)
	}
	// A click that comes after Quit (a panel's late event) starts nothing.
	open.Action()
	if w := titles(a); len(w) != 0 {
		t.Fatalf("windows created by Open after Quit: %v", w)
	}
}

// No tray (no session bus): the window shows at once.
// uiMu is the one lock of every test's UI work: a test's window goroutines
// may still run while the next test drives Fyne's test app, and Fyne's
// caches are shared by the whole process.
var uiMu sync.Mutex

func TestNoTrayShowsWindow(t *testing.T) {
	a := test.NewTempApp(t)
	dir := t.TempDir()
	o := Options{Socket: filepath.Join(dir, "api.sock"), Exe: filepath.Join(dir, "no-switchboard")}
	o.uiLock = &uiMu
	err := run(a, o, func(string) (trayHost, error) { return nil, errors.New("no D-Bus session bus") })
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range a.Driver().AllWindows() {
		found = found || w.Title() == "Switchboard" && w.Content() != nil
	}
	if !found {
		t.Fatalf("no window shown without a tray: %v", titles(a))
	}
}

// notes records the notifications the app sends.
type notes struct {
	mu   sync.Mutex
	sent []*fyne.Notification
}

func (n *notes) notify(x *fyne.Notification) {
	n.mu.Lock()
	n.sent = append(n.sent, x)
	n.mu.Unlock()
}

func (n *notes) get() []*fyne.Notification {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]*fyne.Notification(nil), n.sent...)
}

// runNoTrayHost runs the app in the background (as the login item does)
// with a tray the desktop does not show, until it returns (the test app's
// Run returns at once).
func runNoTrayHost(t *testing.T, hint string, n *notes) fyne.App {
	t.Helper()
	a := test.NewTempApp(t)
	dir := t.TempDir()
	o := Options{Socket: filepath.Join(dir, "api.sock"), Exe: filepath.Join(dir, "no-switchboard"),
		hintFile: hint, notify: n.notify}
	o.uiLock = &uiMu
	ft := &fakeTray{hidden: true}
	if err := run(a, o, func(string) (trayHost, error) { return ft, nil }); err != nil {
		t.Fatal(err)
	}
	return a
}

// A desktop with a session bus but no tray host (stock GNOME): the window
// shows, and the first time only, a notification says how to get the icon.
func TestNoTrayHostShowsWindowAndHintOnce(t *testing.T) {
	t.Setenv("XDG_CURRENT_DESKTOP", "ubuntu:GNOME")
	hint := filepath.Join(t.TempDir(), "state", "switchboard", "tray-hint-shown")
	var n notes
	for run := 1; run <= 2; run++ {
		a := runNoTrayHost(t, hint, &n)
		found := false
		for _, w := range a.Driver().AllWindows() {
			found = found || w.Title() == "Switchboard" && w.Content() != nil
		}
		if !found {
			t.Fatalf("run %d: no window shown without a tray host: %v", run, titles(a))
		}
		sent := n.get()
		if len(sent) != 1 {
			t.Fatalf("run %d: %d notifications, want the one of the first run", run, len(sent))
		}
		if want := tray.NoTrayNotification("GNOME"); *sent[0] != *want {
			t.Fatalf("run %d: the notification %+v, want %+v", run, sent[0], want)
		}
	}
	if b, err := os.ReadFile(hint); err != nil || !strings.Contains(string(b), "Delete this file to see it again") {
		t.Fatalf("the hint's state file: %v %q", err, b)
	}
}

// A hint that cannot be remembered is not shown (it would be at every
// login); the window still is.
func TestNoTrayHostHintUnremembered(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var n notes
	a := runNoTrayHost(t, filepath.Join(blocker, "switchboard", "tray-hint-shown"), &n)
	if len(titles(a)) == 0 {
		t.Fatal("no window")
	}
	if got := n.get(); len(got) != 0 {
		t.Fatalf("a hint that cannot be remembered was shown: %+v", got[0])
	}
}

func TestCloseAction(t *testing.T) {
	for _, visible := range []bool{true, false} {
		var calls []string
		closeAction(func() bool { return visible },
			func() { calls = append(calls, "hide") }, func() { calls = append(calls, "quit") })()
		want := "quit"
		if visible {
			want = "hide"
		}
		if len(calls) != 1 || calls[0] != want {
			t.Errorf("tray shown %v: %q, want %s", visible, calls, want)
		}
	}
}

func TestTrayHintFile(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		env  func(string) string
		want string
	}{
		{env("XDG_STATE_HOME", "/s", "HOME", "/h"), "/s/switchboard/tray-hint-shown"},
		{env("XDG_STATE_HOME", "relative", "HOME", "/h"), "/h/.local/state/switchboard/tray-hint-shown"},
		{env("HOME", "/h"), "/h/.local/state/switchboard/tray-hint-shown"},
		{env(), ""},
	} {
		if got := trayHintFile(c.env); got != filepath.FromSlash(c.want) {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
}
