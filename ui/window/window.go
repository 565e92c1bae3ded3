// Package window is Switchboard's main window: the list of servers with
// their states and actions, the form that adds or edits a server, the
// "Paste configuration" import, the catalog of well-known servers, each
// server's logs and tools, and the "AI apps" panel that connects desktop AI
// apps to Switchboard (app/aiapps).
//
// The window is a client of the host, like the tray and the command line:
// it reads the host's state from a [client.Live] view, follows its
// wake-ups (never polling), and makes every change through the host's API
// (servers.put, secrets.set, ...). It never owns a server, and it imports
// no engine package: the host's words for a problem come back in its API
// errors, and the config package checks an entry the same way before it is
// sent.
//
// The content is built by functions that return their widgets, in the
// manner of fyne-io/calculator, so that tests can tap them with Fyne's
// test driver. Every change from another goroutine reaches the widgets
// through [Options.Do] (fyne.Do by default).
package window

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
)

// Options configure a [Window]. The zero value is the usual one.
type Options struct {
	// Changed delivers the wake-ups the window follows; nil means a
	// channel of its own from live.Watch() (the tray reads live.Changed()).
	Changed <-chan struct{}
	// Do runs a function on the UI goroutine; nil means fyne.Do. Tests
	// queue the functions and run them on the test's goroutine.
	Do func(func())
	// Now is the clock of the uptime column; nil means time.Now.
	Now func() time.Time
	// Title is the window's title; "" means "Switchboard".
	Title string
	// OnClose runs when the user closes the window; nil hides it (the app
	// lives on in the tray). Without a tray, the app passes its quit.
	OnClose func()
}

// Window is the main window. Its methods must be called on the UI
// goroutine (from a menu action, a button, or through fyne.Do).
type Window struct {
	app  fyne.App
	live *client.Live
	opts Options

	ctx    context.Context // ends with Close: stops following and pending calls
	cancel context.CancelFunc

	win     fyne.Window // nil until the first Show
	visible bool
	snap    client.Snapshot // the last one shown

	// The frame around the pages.
	connBanner *widget.Label   // not connected to the host
	cfgBanner  *widget.Label   // the config file is invalid
	statusLine *widget.Label   // the outcome of the last action
	remedies   *fyne.Container // the remedies of the last error, as buttons
	bottom     *fyne.Container // the status line above the remedies; hidden when both are
	secretDlg  *secretDialog   // the last "Set secret" dialog opened
	addBtn     *widget.Button
	pasteBtn   *widget.Button
	catalogBtn *widget.Button
	appsBtn    *widget.Button
	refreshBtn *widget.Button
	center     *fyne.Container

	list *serverList // the home page, always built
	page *page       // the page shown; nil for the list

	// The open pages, for the tests to reach their widgets (nil when not
	// open).
	form     *serverForm
	paste    *pasteView
	catalog  *catalogView
	template *templateView
	logs     *logsView
	tools    *toolsView
	apps     *appsView
	confirm  *dialog.ConfirmDialog // the last removal asked about
}

// page is a view shown instead of the server list, with a Back button.
type page struct {
	title  string
	obj    fyne.CanvasObject
	back   *widget.Button
	reload func() // Refresh; nil: nothing to fetch again
	close  func() // when left; nil: nothing to stop
}

// New returns the window of the app over the live view. Nothing is
// created until the first [Window.Show].
func New(app fyne.App, live *client.Live, opts Options) *Window {
	if opts.Do == nil {
		opts.Do = fyne.Do
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Title == "" {
		opts.Title = "Switchboard"
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Window{app: app, live: live, opts: opts, ctx: ctx, cancel: cancel}
}

// Show shows the window, creating it the first time. Closing it only
// hides it: the app lives on in the tray.
func (w *Window) Show() {
	if w.win == nil {
		w.win = w.app.NewWindow(w.opts.Title)
		w.win.SetContent(w.build())
		if w.opts.OnClose != nil {
			w.win.SetCloseIntercept(w.opts.OnClose)
		} else {
			w.win.SetCloseIntercept(w.Hide)
		}
		w.win.Resize(fyne.NewSize(1120, 720))
		w.addShortcuts()
		w.apply(w.live.Snapshot())
		go w.follow()
	}
	w.visible = true
	w.win.Show()
	w.win.RequestFocus()
}

// ShowLogs shows the window at the logs of the named server (the tray's
// "Show logs").
func (w *Window) ShowLogs(name string) {
	w.Show()
	w.openLogs(name)
}

// Hide hides the window; Show shows it again as it was.
func (w *Window) Hide() {
	if w.win == nil {
		return
	}
	w.visible = false
	w.win.Hide()
}

// Close stops following the host and closes the window for good (when
// the app quits).
func (w *Window) Close() {
	w.cancel()
	w.leave()
	if w.win != nil {
		w.win.Close()
		w.win = nil
	}
}

// build returns the window's content: the banners and the toolbar above
// the current page, the status line below it (each hidden, and taking no
// room, while it has nothing to say).
func (w *Window) build() fyne.CanvasObject {
	w.connBanner = errorLabel()
	w.cfgBanner = errorLabel()
	w.statusLine = selectableLabel("")
	w.statusLine.Wrapping = fyne.TextWrapWord
	w.statusLine.Hide() // until an action has an outcome: hidden, it takes no room
	w.addBtn = widget.NewButtonWithIcon("Add server", theme.ContentAddIcon(), w.openAdd)
	w.pasteBtn = widget.NewButtonWithIcon("Paste configuration", theme.ContentPasteIcon(), w.openPaste)
	w.catalogBtn = widget.NewButtonWithIcon("Catalog", theme.ListIcon(), w.openCatalog)
	w.appsBtn = widget.NewButtonWithIcon("AI apps", theme.ComputerIcon(), w.openApps)
	w.refreshBtn = widget.NewButtonWithIcon("Refresh", theme.ViewRefreshIcon(), w.refresh)
	toolbar := container.NewHBox(w.addBtn, w.pasteBtn, w.catalogBtn, w.appsBtn, w.refreshBtn)
	w.list = newServerList(w)
	w.center = container.NewStack(w.list.obj)
	top := container.NewVBox(w.connBanner, w.cfgBanner, toolbar, widget.NewSeparator())
	w.remedies = newRemedyRow()
	w.bottom = container.NewVBox(w.statusLine, w.remedies)
	w.bottom.Hide()
	return container.NewBorder(top, w.bottom, nil, nil, w.center)
}

// addShortcuts binds Ctrl+N (add), Ctrl+R and F5 (refresh), Ctrl+W
// (hide) and Escape (back to the list; Cmd on macOS).
func (w *Window) addShortcuts() {
	c := w.win.Canvas()
	mod := fyne.KeyModifierShortcutDefault
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: mod}, func(fyne.Shortcut) { w.openAdd() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyR, Modifier: mod}, func(fyne.Shortcut) { w.refresh() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: mod}, func(fyne.Shortcut) { w.Hide() })
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		switch ev.Name {
		case fyne.KeyEscape:
			w.home()
		case fyne.KeyF5:
			w.refresh()
		}
	})
}

// follow applies the host's changes as they are announced, and refreshes
// the uptimes twice a minute while the window shows. It never asks the
// host: the Live view keeps the state current from the host's events.
func (w *Window) follow() {
	changed := w.opts.Changed
	if changed == nil {
		ch, stop := w.live.Watch()
		defer stop()
		changed = ch
	}
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-w.ctx.Done():
			return
		case <-changed:
			snap := w.live.Snapshot()
			w.opts.Do(func() { w.apply(snap) })
		case <-tick.C:
			w.opts.Do(func() {
				if w.visible {
					w.list.update(w.snap)
				}
			})
		}
	}
}

// apply shows a snapshot of the host's state.
func (w *Window) apply(s client.Snapshot) {
	if w.win == nil {
		return // closed
	}
	w.snap = s
	switch {
	case s.Connected:
		setText(w.connBanner, "")
	case s.Err != "":
		setText(w.connBanner, fmt.Sprintf("Not connected to the Switchboard host: %s. Reconnecting…", s.Err))
	default:
		setText(w.connBanner, "Connecting to the Switchboard host…")
	}
	if s.Connected && s.Info.Config.Error != "" {
		setText(w.cfgBanner, fmt.Sprintf("The config file %s cannot be used: %s\nThe last good config stays in force until the file is fixed and saved.",
			s.Info.Config.Path, s.Info.Config.Error))
	} else {
		setText(w.cfgBanner, "")
	}
	w.list.update(s)
	if w.tools != nil {
		w.tools.stateChanged(s)
	}
	if w.form != nil {
		w.form.updateHint()
	}
	if w.apps != nil {
		w.apps.stateChanged()
	}
}

// refresh shows the current snapshot again and fetches the current page's
// data (logs, tools) again.
func (w *Window) refresh() {
	w.apply(w.live.Snapshot())
	if w.page != nil && w.page.reload != nil {
		w.page.reload()
	}
}

// open shows a page instead of the list (leaving the current page).
func (w *Window) open(p *page) {
	w.leave()
	p.back = widget.NewButtonWithIcon("Back", theme.NavigateBackIcon(), w.home)
	title := widget.NewLabelWithStyle(p.title, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head := container.NewHBox(p.back, title)
	w.page = p
	w.center.Objects = []fyne.CanvasObject{container.NewBorder(head, nil, nil, nil, p.obj)}
	w.center.Refresh()
	w.setStatus("", false)
}

// home shows the server list again.
func (w *Window) home() {
	if w.page == nil {
		return
	}
	w.leave()
	w.center.Objects = []fyne.CanvasObject{w.list.obj}
	w.center.Refresh()
}

// leave closes the current page.
func (w *Window) leave() {
	if w.page != nil && w.page.close != nil {
		w.page.close()
	}
	w.page = nil
	w.form, w.paste, w.catalog, w.template, w.logs, w.tools, w.apps = nil, nil, nil, nil, nil, nil, nil
}

// focus gives the keyboard focus to a widget of the current page.
func (w *Window) focus(f fyne.Focusable) {
	if w.win != nil {
		w.win.Canvas().Focus(f)
	}
}

// setStatus shows the outcome of an action below the page; an error in
// the danger colour. "" hides the line, which then takes no room.
func (w *Window) setStatus(msg string, isErr bool) {
	if w.statusLine == nil {
		return
	}
	w.statusLine.Importance = widget.MediumImportance
	if isErr {
		w.statusLine.Importance = widget.DangerImportance
	}
	setText(w.statusLine, msg)
	w.showRemedies(nil) // an error's remedies are shown by showErr, after this
}

// fitBottom shows the bottom row only while the status line or a remedy
// is shown, so that it takes no room (not even padding) otherwise.
func (w *Window) fitBottom() {
	if w.bottom == nil {
		return
	}
	if w.statusLine.Visible() || w.remedies.Visible() {
		w.bottom.Show()
	} else {
		w.bottom.Hide()
	}
	w.bottom.Refresh()
}

// callTimeout bounds a host call other than a tool call (which the host
// bounds by the server's callTimeout).
const callTimeout = time.Minute

// call runs a method of the host (one of live's) off the UI goroutine
// and hands its error to done on the UI goroutine (unless the window was
// closed). What the method fills is filled before done runs.
func (w *Window) call(method func(ctx context.Context) error, done func(error)) {
	w.callWithin(callTimeout, method, done)
}

// callWithin is call bounded by d; 0 means no bound but the window's.
func (w *Window) callWithin(d time.Duration, method func(ctx context.Context) error, done func(error)) {
	go func() {
		ctx, cancel := w.ctx, context.CancelFunc(func() {})
		if d > 0 {
			ctx, cancel = context.WithTimeout(w.ctx, d)
		}
		err := method(ctx)
		cancel()
		w.opts.Do(func() {
			if w.ctx.Err() == nil {
				done(err)
			}
		})
	}()
}
