package secrets

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
)

// runUserDir is where godbus looks for a session bus when
// DBUS_SESSION_BUS_ADDRESS is not set (/run/user/UID). A variable for tests.
var runUserDir = func() string { return "/run/user/" + strconv.Itoa(os.Getuid()) }

// sessionBusCheck returns an error wrapping errNoBus when go-keyring's
// godbus would not find a session bus and would autolaunch one with
// dbus-launch (leaving the bus and its daemons running). It checks exactly
// what godbus checks: DBUS_SESSION_BUS_ADDRESS (other than "autolaunch:"),
// then /run/user/UID/bus and /run/user/UID/dbus-session. It never starts
// anything and is a no-op on Windows and macOS, where go-keyring does not
// use D-Bus.
func sessionBusCheck() error {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return nil
	}
	if a := os.Getenv("DBUS_SESSION_BUS_ADDRESS"); a != "" && a != "autolaunch:" {
		return nil
	}
	dir := runUserDir()
	bus := filepath.Join(dir, "bus")
	if _, err := os.Stat(bus); err == nil {
		return nil
	}
	if b, err := os.ReadFile(filepath.Join(dir, "dbus-session")); err == nil && bytes.HasPrefix(b, []byte("DBUS_SESSION_BUS_ADDRESS=")) {
		return nil
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" && filepath.Join(x, "bus") != bus {
		if _, err := os.Stat(filepath.Join(x, "bus")); err == nil {
			return fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is not set, and the keyring library would not find the bus %s (it looks in %s): set DBUS_SESSION_BUS_ADDRESS=unix:path=%s",
				errNoBus, filepath.Join(x, "bus"), dir, filepath.Join(x, "bus"))
		}
	}
	return fmt.Errorf("%w: DBUS_SESSION_BUS_ADDRESS is not set and %s does not exist; switchboard does not start a bus itself", errNoBus, bus)
}

// PinSessionBus keeps godbus, anywhere in this process (a tray, Fyne's
// notifications), from autolaunching a session bus with dbus-launch, which
// leaves a dbus-daemon running after the process is gone. When godbus
// would (see sessionBusCheck), it sets DBUS_SESSION_BUS_ADDRESS: to the
// bus in $XDG_RUNTIME_DIR if there is one there, else to the standard
// socket, where a bus started later is found; connecting then fails
// instead of starting a daemon. It returns the address it set, "" when
// godbus finds a bus by itself (and on Windows and macOS).
func PinSessionBus() string {
	if sessionBusCheck() == nil {
		return ""
	}
	bus := filepath.Join(runUserDir(), "bus")
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		if _, err := os.Stat(filepath.Join(x, "bus")); err == nil {
			bus = filepath.Join(x, "bus")
		}
	}
	addr := "unix:path=" + bus
	os.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	return addr
}
