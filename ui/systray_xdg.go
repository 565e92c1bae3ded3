//go:build linux || freebsd || netbsd || openbsd

package ui

import (
	"os"
	"path/filepath"
	"strconv"

	"github.com/switchboard-mcp/switchboard/ui/tray"
)

// startSystray starts the tray without Fyne's driver (see [tray.Systray]).
func startSystray(title string) (trayHost, error) {
	s, err := tray.StartSystray(title)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// guardSessionBus keeps godbus (the tray, Fyne's notifications and
// settings portal) from autolaunching a session bus with dbus-launch,
// which leaves a dbus-daemon running after the app is gone: when
// DBUS_SESSION_BUS_ADDRESS is unset (or "autolaunch:") and no bus is where
// godbus looks next, it points the variable at the standard socket,
// /run/user/UID/bus. Connecting then fails (no tray: the window shows)
// instead of starting a daemon, and a bus started there later is found.
func guardSessionBus() {
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return
	}
	dir := "/run/user/" + strconv.Itoa(os.Getuid())
	if _, err := os.Stat(filepath.Join(dir, "dbus-session")); err == nil {
		return // godbus reads the address from this file
	}
	os.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(dir, "bus"))
}
