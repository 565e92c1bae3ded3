//go:build linux && cgo && !ci

package journey

import (
	"sync"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/switchboard-mcp/switchboard/ui/tray"
)

// trayRun is the app's tray over the host, its icon and menu kept by a
// host that records them instead of a desktop's panel (the panel's side,
// over D-Bus, is ui/tray's TestRealTray).
type trayRun struct {
	mu   sync.Mutex
	menu *fyne.Menu
}

func (r *trayRun) SetSystemTrayIcon(fyne.Resource) {}
func (r *trayRun) SetSystemTrayMenu(m *fyne.Menu) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.menu = m
}

// shown returns the menu the tray shows now.
func (r *trayRun) shown() *fyne.Menu {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.menu
}

// startTray runs the app's tray (with the app's actions) over the host.
func startTray(t *testing.T, h *hostRun) *trayRun {
	t.Helper()
	r := &trayRun{}
	tr := &tray.Tray{Host: r, Notify: func(*fyne.Notification) {}}
	tr.Run(theApp, h.live, tray.HostActions(h.live, theApp, tray.HostOptions{Open: func() {}}))
	t.Cleanup(tr.Close)
	return r
}

// menuLabels returns the labels of a menu and of its submenus, depth
// first.
func menuLabels(m *fyne.Menu) []string {
	if m == nil {
		return nil
	}
	var out []string
	for _, it := range m.Items {
		out = append(out, it.Label)
		out = append(out, menuLabels(it.ChildMenu)...)
	}
	return out
}
