//go:build linux && cgo && !ci

package ui

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/ui/tray"
)

func init() { helpers["background"] = runBackground }

// runBackground is `switchboard --background` (what the login item
// runs): the real app, Fyne's GLFW driver and the tray on the session
// bus, with no host to connect to (it fails to start the one it would).
func runBackground() int {
	dir := os.Getenv("SWITCHBOARD_UI_TEST_DIR")
	err := Run(Options{
		Socket: filepath.Join(dir, "api.sock"),
		Exe:    filepath.Join(dir, "no-switchboard"),
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	if err != nil {
		slog.Error("the app", "err", err)
		return 1
	}
	return 0
}

// TestBackgroundWithoutTrayHost runs `switchboard --background` on a
// desktop with a session bus but no StatusNotifierWatcher (stock GNOME):
// a private bus with a notification daemon only, and Xvfb. The window
// shows, asks to be minimised, and a notification signed Switchboard says how to get the tray
// icon on GNOME; the next start (the next login) shows the window again
// but not the notification.
//
//	go test -run TestBackgroundWithoutTrayHost -v ./ui/
func TestBackgroundWithoutTrayHost(t *testing.T) {
	xdotool, err := exec.LookPath("xdotool")
	if err != nil {
		testkit.SkipOrFail(t, "xdotool is not installed (apt-get install xdotool)")
	}
	xev, err := exec.LookPath("xev")
	if err != nil {
		testkit.SkipOrFail(t, "xev is not installed (apt-get install x11-utils)")
	}
	display := testkit.Xvfb(t)
	// There is no window manager: what a window asks of one (to be
	// minimised, a WM_CHANGE_STATE message to the root window) is watched
	// on the root window, as a window manager receives it.
	var wmLog testkit.SyncBuffer
	watch := exec.Command(xev, "-root", "-event", "substructure")
	watch.Env = append(os.Environ(), "DISPLAY="+display)
	watch.Stdout = &wmLog
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.Process.Kill(); watch.Wait() })
	bus := testkit.SessionBus(t)
	notices := testkit.StartNotifications(t, bus)
	home := t.TempDir()
	state := filepath.Join(home, ".local", "state")

	start := func() (stop func()) {
		t.Helper()
		cmd := exec.Command(testExe, "-test.run=^$")
		cmd.Env = append(os.Environ(), helperEnv+"=background", "SWITCHBOARD_UI_TEST_DIR="+t.TempDir(),
			"DISPLAY="+display, "DBUS_SESSION_BUS_ADDRESS="+bus, "LANG=en_US.UTF-8", "XDG_CURRENT_DESKTOP=ubuntu:GNOME",
			"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
			"XDG_STATE_HOME="+state, "XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_RUNTIME_DIR="+home)
		var logs testkit.SyncBuffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		return func() {
			cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
			t.Logf("the app's output:\n%s", logs.String())
		}
	}
	// window waits for a mapped top-level window titled Switchboard, and
	// for its request to be minimised.
	window := func() {
		t.Helper()
		var id uint64
		testkit.Eventually(t, "the Switchboard window on the display", func() (bool, string) {
			cmd := exec.Command(xdotool, "search", "--onlyvisible", "--name", "^Switchboard$")
			cmd.Env = append(os.Environ(), "DISPLAY="+display)
			out, err := cmd.Output()
			f := strings.Fields(string(out))
			if err != nil || len(f) == 0 {
				return false, string(out)
			}
			id, err = strconv.ParseUint(f[0], 10, 64)
			return err == nil, string(out)
		})
		want := fmt.Sprintf("window 0x%x,\n    message_type 0x", id)
		testkit.Eventually(t, "a request to minimise the window (WM_CHANGE_STATE)", func() (bool, string) {
			for _, ev := range strings.Split(wmLog.String(), "ClientMessage event")[1:] {
				if strings.Contains(ev, want) && strings.Contains(ev, "(WM_CHANGE_STATE)") {
					return true, ""
				}
			}
			return false, fmt.Sprintf("window 0x%x; the root window's events:\n%s", id, wmLog.String())
		})
	}

	stop := start()
	window()
	testkit.Eventually(t, "the notification", func() bool { return len(notices.Calls()) > 0 })
	stop()
	n := notices.Calls()[0]
	t.Logf("the notification: app %q, %q: %q", n.AppName, n.Summary, n.Body)
	want := tray.NoTrayNotification("ubuntu:GNOME")
	if n.AppName != "Switchboard" || n.Summary != want.Title || n.Body != want.Content {
		t.Fatalf("the notification: %+v", n)
	}
	if _, err := os.Stat(filepath.Join(state, "switchboard", "tray-hint-shown")); err != nil {
		t.Fatalf("the hint was not remembered: %v", err)
	}

	// The next login: the window, no second notification.
	stop = start()
	window()
	time.Sleep(time.Second) // a notification would have come with the window
	stop()
	if got := notices.Calls(); len(got) != 1 {
		t.Fatalf("%d notifications after the second start, want the first run's only: %+v", len(got), got)
	}
}
