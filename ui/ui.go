// Package ui is Switchboard's tray app and window (Fyne). It is a client of
// the host's local API through app/client: it connects to the running
// host, or starts one on demand, and never owns a server itself.
package ui

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/service"
	"github.com/switchboard-mcp/switchboard/secrets"
	"github.com/switchboard-mcp/switchboard/ui/appicon"
	"github.com/switchboard-mcp/switchboard/ui/tray"
	"github.com/switchboard-mcp/switchboard/ui/window"
)

// AppID is the Fyne application id; it matches FyneApp.toml.
const AppID = "io.github.switchboard-mcp.switchboard"

// Options configure [Run].
type Options struct {
	Socket string       // the host's API endpoint
	Exe    string       // the switchboard executable that starts a host ("" = this one)
	Logger *slog.Logger // connection changes; nil discards
	// ShowWindow opens the window at start (as when the desktop has no tray).
	ShowWindow bool
	// Bundle, when not "", runs the window alone on that bundle file's
	// page ('switchboard bundles open FILE'): no tray icon (a running
	// tray keeps its own), and closing the window quits this process
	// (the host and its servers keep running).
	Bundle string

	// hintFile, given by tests only, replaces the file that remembers the
	// no-tray hint (trayHintFile); notify, tests only too, replaces
	// tray.Notify.
	hintFile string
	notify   func(*fyne.Notification)

	// uiLock, given by tests only, is held around all the app's UI work:
	// Fyne's test driver runs fyne.Do inline on the caller's goroutine,
	// where the real driver runs everything on the main goroutine, one at
	// a time.
	uiLock sync.Locker
}

// Run runs the tray app until the user quits it.
//
// On the freedesktop platforms the tray is a [tray.Systray] and Fyne's
// driver (and with it the GL stack) starts only when a window is first
// needed; elsewhere the tray is Fyne's own. See docs/decisions.md.
func Run(o Options) error {
	secrets.PinSessionBus() // no dbus-launch daemon left behind by the tray or Fyne
	a := app.NewWithID(AppID)
	a.SetIcon(appicon.Icon)
	a.Settings().SetTheme(window.Theme()) // readable text in light and dark (issue 27 item 20)
	if o.Bundle != "" {
		return runBundle(a, o)
	}
	return run(a, o, startSystray)
}

// runBundle is the window alone on a bundle's page (Options.Bundle),
// connected to the host as the tray's window is (starting it when none
// runs).
func runBundle(a fyne.App, o Options) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	live := client.New(client.Options{
		Socket: o.Socket,
		Logger: o.Logger,
		StartHost: func(ctx context.Context) error {
			return service.StartHost(ctx, o.Exe, o.Socket)
		},
	})
	go live.Run(ctx)
	ch, _ := live.Watch()
	w := window.New(a, live, window.Options{Changed: ch, OnClose: a.Quit, Do: func(f func()) { fyne.Do(locked(o.uiLock, f)) }})
	locked(o.uiLock, func() { w.OpenBundle(o.Bundle) })()
	a.Run()
	return nil
}

// trayHost is a tray that is not Fyne's: safe from any goroutine, closed
// when the app ends. Visible says whether the desktop shows it (a
// StatusNotifier host is there), asked at start and when the window is
// closed.
type trayHost interface {
	tray.Host
	Visible() bool
	Close()
}

func run(a fyne.App, o Options, startTray func(title string) (trayHost, error)) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// do runs f on the UI goroutine (queued until Fyne's driver runs).
	do := func(f func()) { fyne.Do(locked(o.uiLock, f)) }
	live := client.New(client.Options{
		Socket: o.Socket,
		Logger: o.Logger,
		StartHost: func(ctx context.Context) error {
			return service.StartHost(ctx, o.Exe, o.Socket)
		},
	})
	go live.Run(ctx)

	// The window is created only when first opened; closing it hides it.
	// ensure runs on the UI goroutine.
	var win *window.Window
	var onClose func() // nil: closing the window hides it
	ensure := func() *window.Window {
		if win == nil {
			ch, _ := live.Watch()
			win = window.New(a, live, window.Options{Changed: ch, OnClose: onClose, Do: do})
		}
		return win
	}

	var host trayHost
	if startTray != nil {
		h, err := startTray("Switchboard")
		if err != nil {
			// No tray to come back from: the window is the app, and
			// closing it quits (the host and its servers keep running).
			if o.Logger != nil {
				o.Logger.Warn("no tray icon; showing the window", "err", err)
			}
			onClose = a.Quit
			locked(o.uiLock, func() { ensure().Show() })()
			a.Run()
			return nil
		}
		host = h
		defer h.Close()
	}
	if host == nil {
		return runFyneTray(a, o, live, cancel, ensure)
	}
	// Signed "Switchboard", off the caller's goroutine (a hung
	// notification daemon never holds up the menu), without Fyne's driver.
	notify := func(n *fyne.Notification) { tray.Notify(a, n) }
	if o.notify != nil {
		notify = o.notify
	}

	// A session bus but no tray host (stock GNOME): the icon is exported
	// for nobody. The window shows instead (minimised when started in the
	// background), and once per user a notification says how to get the
	// icon. Closing the window then quits: nothing would be left to come
	// back from. Were a tray host to appear meanwhile (the extension
	// turned on), the icon registers with it, and closing hides.
	showWindow, minimised := o.ShowWindow, false
	if !host.Visible() {
		if o.Logger != nil {
			o.Logger.Warn("the desktop shows no tray icons (no StatusNotifier host on the session bus); showing the window")
		}
		showWindow, minimised = true, !o.ShowWindow
		hint := o.hintFile
		if hint == "" {
			hint = trayHintFile(os.Getenv)
		}
		if first, err := claimTrayHint(hint, time.Now()); first {
			notify(tray.NoTrayNotification(os.Getenv("XDG_CURRENT_DESKTOP")))
		} else if err != nil && o.Logger != nil {
			o.Logger.Warn("the no-tray hint is not shown: it could not be remembered", "err", err)
		}
	}
	onClose = closeAction(host.Visible, func() { win.Hide() }, a.Quit)

	// Fyne's driver runs only from the first time the UI thread is needed
	// (the window, a question): until then the tray is the whole app.
	var (
		mu       sync.Mutex
		started  bool
		quitting bool                  // quit before Fyne ran: nothing starts it
		fyneOn   = make(chan struct{}) // closed: the main goroutine runs Fyne
		quitNow  = make(chan struct{}) // closed: quit before Fyne ran
	)
	var keeper fyne.Window // on the UI goroutine
	onUI := func(f func()) {
		mu.Lock()
		if quitting {
			mu.Unlock()
			return
		}
		if !started {
			started = true
			close(fyneOn)
		}
		mu.Unlock()
		// Queued until the driver runs, in order. A window that is never
		// shown keeps the driver running when the last shown one closes
		// (a question answered "no" before the main window was ever
		// opened); it costs no GL surface.
		do(func() {
			if keeper == nil && win == nil {
				keeper = a.NewWindow("Switchboard")
			}
		})
		do(f)
	}
	quit := func() {
		mu.Lock()
		defer mu.Unlock()
		if started {
			fyne.Do(a.Quit)
			return
		}
		if !quitting {
			quitting = true
			close(quitNow)
		}
	}
	actions := tray.HostActions(live, a, tray.HostOptions{
		StopService: stopService(live),
		Open:        func() { onUI(func() { ensure().Show() }) },
		ShowLogs:    func(name string) { onUI(func() { ensure().ShowLogs(name) }) },
		Review:      func(name string) { onUI(func() { ensure().ShowReview(name) }) },
		Confirm: func(q string, answer func(bool)) {
			onUI(func() { tray.ConfirmWindow(a, q, answer) })
		},
		Quit:    quit,
		OnError: func(title string, err error) { notify(fyne.NewNotification(title, err.Error())) },
		Detach:  cancel,
	})
	actions.OpenApprovals = func() { onUI(func() { ensure().ShowApprovals() }) } // approvals (issue 14)
	t := &tray.Tray{Host: host, Notify: notify}
	if o.notify == nil {
		// Allow once and Deny on the notification, where the desktop
		// shows buttons.
		t.NotifyApproval = func(ap hostapi.Approval, act tray.Actions) { tray.NotifyApproval(a, ap, act) }
	}
	t.Run(a, live, actions)
	defer t.Close()

	if showWindow {
		mu.Lock()
		show := !quitting
		if show && !started { // a click may have come first
			started = true
			close(fyneOn)
		}
		mu.Unlock()
		if show {
			locked(o.uiLock, func() { ensure().Show() })()
			if minimised {
				// Queued after the window is made and shown.
				do(func() { minimise(a, "Switchboard") })
			}
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-fyneOn:
		signal.Stop(sig) // Fyne's driver catches them from here on
	case <-quitNow:
		return nil
	case <-sig:
		return nil
	}
	a.Run()
	return nil
}

// runFyneTray runs the app with Fyne's own tray (macOS, Windows, tests).
func runFyneTray(a fyne.App, o Options, live *client.Live, cancel func(), ensure func() *window.Window) error {
	do := func(f func()) { fyne.Do(locked(o.uiLock, f)) }
	open := func() { do(func() { ensure().Show() }) }
	actions := tray.HostActions(live, a, tray.HostOptions{
		StopService: stopService(live),
		Open:        open,
		ShowLogs:    func(name string) { do(func() { ensure().ShowLogs(name) }) },
		Review:      func(name string) { do(func() { ensure().ShowReview(name) }) },
		Detach:      cancel,
	})
	actions.OpenApprovals = func() { do(func() { ensure().ShowApprovals() }) } // approvals (issue 14)
	t := &tray.Tray{}
	t.Run(a, live, actions)
	defer t.Close()
	if _, ok := a.(desktop.App); !ok || o.ShowWindow {
		// No tray on this desktop: the window is the app.
		locked(o.uiLock, func() { ensure().Show() })()
	}
	a.Run()
	return nil
}

// closeAction is what closing the window does with a tray that is not
// Fyne's: hide it while the desktop shows the tray icon to come back
// from, quit otherwise (the host and its servers keep running).
func closeAction(visible func() bool, hide, quit func()) func() {
	return func() {
		if visible() {
			hide()
			return
		}
		quit()
	}
}

// stopService returns how Stop background service stops the service:
// through the OS service manager first, so that the manager records it as
// stopped, then host.stop, which ends a host the manager did not stop: a
// unit started without being enabled (the packages install it so), one
// started by hand with 'serve --service', or no manager this user can
// reach (a container without systemd). A host gone by then answers
// nothing, which the tray takes as stopped.
func stopService(live *client.Live) func() error {
	return func() error {
		if m, err := service.Default(); err == nil {
			_ = m.Stop() // not installed, or not ours: host.stop below
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return live.StopHost(ctx)
	}
}

// locked returns f, holding lk around it if there is one (Options.uiLock).
func locked(lk sync.Locker, f func()) func() {
	if lk == nil {
		return f
	}
	return func() {
		lk.Lock()
		defer lk.Unlock()
		f()
	}
}
