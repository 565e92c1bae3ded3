//go:build linux || freebsd || netbsd || openbsd

package tray

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

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
	shape  string          // the menu shown's (systrayShape)
	shown  []*systrayEntry // its items
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

// Visible reports whether the desktop shows the item: a
// StatusNotifierWatcher is on the session bus and (when it says) a tray
// host is registered with it. Stock GNOME has no watcher (the
// AppIndicator extension brings one): the item is exported but nothing
// draws it. The item registers by itself when a watcher appears later.
func (s *Systray) Visible() bool { return TrayHostPresent() }

// TrayHostPresent reports whether the session bus has a tray host that
// shows StatusNotifierItems (see [Systray.Visible]).
func TrayHostPresent() bool {
	conn, err := dbus.SessionBus()
	if err != nil {
		return false
	}
	return trayHostOn(conn)
}

func trayHostOn(conn *dbus.Conn) bool {
	const watcher = "org.kde.StatusNotifierWatcher"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var owned bool
	if err := conn.BusObject().CallWithContext(ctx, "org.freedesktop.DBus.NameHasOwner", 0, watcher).Store(&owned); err != nil || !owned {
		return false
	}
	var v dbus.Variant
	err := conn.Object(watcher, "/StatusNotifierWatcher").CallWithContext(ctx, "org.freedesktop.DBus.Properties.Get", 0,
		watcher, "IsStatusNotifierHostRegistered").Store(&v)
	if err != nil {
		return true // a watcher that does not say: take it that it has a host
	}
	host, ok := v.Value().(bool)
	return !ok || host
}

// SetSystemTrayTooltip sets the tooltip: the item's ToolTip property
// (its title), announced with NewToolTip, which panels that do not follow
// PropertiesChanged wait for.
func (s *Systray) SetSystemTrayTooltip(tip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	systray.SetTooltip(tip)
	if conn, err := dbus.SessionBus(); err == nil {
		_ = conn.Emit("/StatusNotifierItem", "org.kde.StatusNotifierItem.NewToolTip")
	}
}

// SetSystemTrayMenu shows m, the way Fyne's driver does (labels,
// separators, submenus, disabled and checked items), without the Quit item
// Fyne adds: [BuildMenu] has its own.
//
// When m has the shape of the menu shown (see [systrayShape]), the items
// shown are updated in place: their ids stay, and a panel sees one
// LayoutUpdated per changed label or enabled state (fyne.io/systray emits
// one for each, and has no way to batch them), each time a whole menu.
// Otherwise the menu is rebuilt: fyne.io/systray then removes every item
// (a signal each), and adds the new ones with fresh ids.
//
// A click runs the action of the item as it is when the click arrives:
// the label shown then, and nothing while it is disabled.
func (s *Systray) SetSystemTrayMenu(m *fyne.Menu) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	shape := systrayShape(m)
	if shape == s.shape {
		updateSystrayItems(s.shown, m)
		return
	}
	s.shape = shape
	systray.ResetMenu()
	var last *systrayEntry
	s.shown = s.addSystrayItems(m, nil, &last)
	// fyne.io/systray announces a separator or a removal, but not an item
	// added: announce the menu once it is whole, or a panel that read it
	// at the last separator keeps it without the items below.
	if last != nil {
		last.item.SetTitle(last.label)
	}
}

// systrayEntry is an item of the menu shown, and what it shows. The
// fields but item are guarded by Systray.mu.
type systrayEntry struct {
	sep      bool              // a separator (no item)
	item     *systray.MenuItem // its item, unless a separator
	label    string
	disabled bool
	action   func()
	children []*systrayEntry // its submenu's
}

// systrayShape is what must match for a menu to be updated in place: the
// separators, items and submenus (with their titles), in order. A checked item is part of it:
// fyne.io/systray makes an item a checkbox (or not) when it adds it, and
// the driver, as Fyne's, makes only a checked item one.
func systrayShape(m *fyne.Menu) string {
	var b strings.Builder
	var walk func(*fyne.Menu)
	walk = func(m *fyne.Menu) {
		if m == nil {
			return
		}
		for _, i := range m.Items {
			switch {
			case i.IsSeparator:
				b.WriteByte('-')
			case i.Checked:
				b.WriteByte('x')
			default:
				b.WriteByte('i')
			}
			if i.ChildMenu != nil {
				// The submenu's title (a server's name) too: a click in
				// flight on a reused id must not reach another server.
				b.WriteString(strconv.Quote(i.ChildMenu.Label))
				b.WriteByte('(')
				walk(i.ChildMenu)
				b.WriteByte(')')
			}
		}
	}
	walk(m)
	return b.String()
}

// updateSystrayItems shows m, of the shape of the entries shown, in them:
// it swaps each item's action and changes only the label and enabled
// state that differ (each change is a signal). A submenu is updated before
// its item's label: a panel that reads the new label reads its submenu.
func updateSystrayItems(shown []*systrayEntry, m *fyne.Menu) {
	if m == nil {
		return
	}
	for k, i := range m.Items {
		e := shown[k]
		if e.sep {
			continue
		}
		if i.ChildMenu != nil {
			updateSystrayItems(e.children, i.ChildMenu)
		}
		e.action = i.Action
		if i.Label != e.label {
			e.label = i.Label
			e.item.SetTitle(i.Label)
		}
		if i.Disabled != e.disabled {
			e.disabled = i.Disabled
			if i.Disabled {
				e.item.Disable()
			} else {
				e.item.Enable()
			}
		}
	}
}

// addSystrayItems adds m's items (to parent's submenu, or to the menu)
// and returns their entries; *last is set to the last item added.
func (s *Systray) addSystrayItems(m *fyne.Menu, parent *systray.MenuItem, last **systrayEntry) []*systrayEntry {
	if m == nil {
		return nil
	}
	entries := make([]*systrayEntry, 0, len(m.Items))
	for _, i := range m.Items {
		if i.IsSeparator {
			if parent != nil {
				parent.AddSeparator()
			} else {
				systray.AddSeparator()
			}
			entries = append(entries, &systrayEntry{sep: true})
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
		e := &systrayEntry{item: item, label: i.Label, disabled: i.Disabled, action: i.Action}
		entries = append(entries, e)
		*last = e
		if i.ChildMenu != nil {
			e.children = s.addSystrayItems(i.ChildMenu, item, last)
		}
		// ResetMenu closes ClickedCh, which ends this goroutine.
		go s.clicks(e)
	}
	return entries
}

// clicks runs e's action on each click on its item, as e is at the click.
func (s *Systray) clicks(e *systrayEntry) {
	for range e.item.ClickedCh {
		s.mu.Lock()
		fn := e.action
		if e.disabled {
			fn = nil
		}
		s.mu.Unlock()
		if fn != nil {
			fn()
		}
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
