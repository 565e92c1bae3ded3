//go:build linux

package tray

import (
	"sync"
	"testing"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
)

// watcher is a fake org.kde.StatusNotifierWatcher: the part of a desktop's
// tray host that items register with.
type watcher struct {
	props      *prop.Properties
	mu         sync.Mutex
	items      []string
	registered chan string // the bus name of each item that registers
}

// RegisterStatusNotifierItem is called by an item; service is its bus name
// or (what fyne.io/systray sends) its object path, the sender's name then
// being the item's.
func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, service string) *dbus.Error {
	name := string(sender)
	w.mu.Lock()
	w.items = append(w.items, name+service)
	items := append([]string(nil), w.items...)
	w.mu.Unlock()
	w.props.SetMust("org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems", items)
	select {
	case w.registered <- name:
	default:
	}
	return nil
}

// RegisterStatusNotifierHost is called by a tray host; there is none here.
func (w *watcher) RegisterStatusNotifierHost(service string) *dbus.Error { return nil }

// startWatcherWith starts a watcher that says whether a tray host is
// registered with it (IsStatusNotifierHostRegistered) as host says.
func startWatcherWith(t *testing.T, addr string, host bool) <-chan string {
	t.Helper()
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatalf("connecting to the session bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	w := &watcher{registered: make(chan string, 4)}
	const iface, path = "org.kde.StatusNotifierWatcher", "/StatusNotifierWatcher"
	if err := conn.Export(w, path, iface); err != nil {
		t.Fatal(err)
	}
	w.props, err = prop.Export(conn, path, map[string]map[string]*prop.Prop{iface: {
		"RegisteredStatusNotifierItems":  {Value: []string{}, Emit: prop.EmitTrue},
		"IsStatusNotifierHostRegistered": {Value: host, Emit: prop.EmitTrue},
		"ProtocolVersion":                {Value: int32(0), Emit: prop.EmitTrue},
	}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName(iface, dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("claiming %s: reply %v, %v", iface, reply, err)
	}
	return w.registered
}
