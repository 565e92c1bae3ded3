//go:build linux || freebsd || netbsd || openbsd

package tray

import (
	"fmt"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/systray"
	"github.com/godbus/dbus/v5"
)

// Systray is the tray on the freedesktop desktops without Fyne's driver:
// the StatusNotifierItem and com.canonical.dbusmenu exports of
// fyne.io/systray (the library Fyne's own tray uses), driven directly.
//
// Why not Fyne's tray: to learn that the desktop asked the app to quit,
// Fyne's driver creates a hidden window with a GL context as soon as the
// tray starts, and that loads the whole GL stack before any window shows
// (Mesa with llvmpipe: about 55 MB of libLLVM and swrast, a third of the
// process). With Systray the app starts Fyne's driver only when its window
// is first opened, so a tray whose window is never opened stays small.
//
// It implements [Host]: its methods may be called from any goroutine, and
// the menu's actions run on a goroutine of their own (never on Fyne's UI
// thread, which may not run yet); [HostActions]' actions are made for that.
type Systray struct {
	mu     sync.Mutex
	end    func()
	closed bool
}

// StartSystray exports the tray item on the session bus, titled title. It
// fails, starting nothing, when there is no session bus to export it on
// (the caller shows its window instead). A desktop without a tray host
// (no StatusNotifierWatcher) is no error: the item registers when one
// appears.
func StartSystray(title string) (*Systray, error) {
	// The shared connection: systray's own dbus.SessionBus() returns it.
	if _, err := dbus.SessionBus(); err != nil {
		return nil, fmt.Errorf("no D-Bus session bus to show a tray icon on: %w", err)
	}
	start, end := systray.RunWithExternalLoop(nil, nil)
	systray.SetTitle(title)
	start()
	return &Systray{end: end}, nil
}

// SetSystemTrayIcon sets the icon (PNG bytes, as [Icon] gives).
func (s *Systray) SetSystemTrayIcon(r fyne.Resource) {
	systray.SetIcon(r.Content())
}

// SetSystemTrayMenu replaces the menu with m, the way Fyne's driver does
// (labels, separators, submenus, disabled and checked items), without the
// Quit item Fyne adds: [BuildMenu] has its own.
func (s *Systray) SetSystemTrayMenu(m *fyne.Menu) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	systray.ResetMenu()
	addSystrayItems(m, nil)
}

func addSystrayItems(m *fyne.Menu, parent *systray.MenuItem) {
	if m == nil {
		return
	}
	for _, i := range m.Items {
		if i.IsSeparator {
			if parent != nil {
				parent.AddSeparator()
			} else {
				systray.AddSeparator()
			}
			continue
		}
		var item *systray.MenuItem
		switch {
		case parent != nil && i.Checked:
			item = parent.AddSubMenuItemCheckbox(i.Label, "", true)
		case parent != nil:
			item = parent.AddSubMenuItem(i.Label, "")
		case i.Checked:
			item = systray.AddMenuItemCheckbox(i.Label, "", true)
		default:
			item = systray.AddMenuItem(i.Label, "")
		}
		if i.Disabled {
			item.Disable()
		}
		if i.ChildMenu != nil {
			addSystrayItems(i.ChildMenu, item)
		}
		// ResetMenu closes ClickedCh, which ends this goroutine.
		go func(fn func()) {
			for range item.ClickedCh {
				if fn != nil {
					fn()
				}
			}
		}(i.Action)
	}
}

// Close removes the item from the session bus. It is safe to call more
// than once.
func (s *Systray) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	s.end()
}
