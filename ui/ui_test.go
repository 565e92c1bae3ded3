package ui

import (
	"errors"
	"fmt"
	"path/filepath"
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
