// Package window is Switchboard's main window: a sidebar of places
// (frame.go); the Servers place, with the list of servers and the chosen
// one's Overview, Tools (Try it), Logs and Settings (servers.go); the
// form that adds or edits a server, the "Paste configuration" import, the
// catalog of well-known servers, and the "AI apps" place that connects
// desktop AI apps to Switchboard (app/aiapps). See docs/window.md.
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
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
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

	// The frame around the pages: the sidebar of places, the content of
	// the current place (or a page opened over it), the banners above and
	// the status line below.
	connBanner *widget.Label             // not connected to the host
	cfgBanner  *widget.Label             // the config file is invalid
	cfgNote    *widget.Label             // a note on the file (a Warning) that has no place of its own
	statusLine *widget.Label             // the outcome of the last action
	followed   string                    // the server whose state the status line says after an action on it (list.go); "" for none
	remedies   *fyne.Container           // the remedies of the last error, as buttons
	bottom     *fyne.Container           // the status line above the remedies; hidden when both are
	secretDlg  *secretDialog             // the last "Set secret" dialog opened
	nav        map[string]*widget.Button // the sidebar's buttons, by place ID
	place      *place                    // the place shown
	addBtn     *widget.Button            // the Servers list's Add
	pasteBtn   *widget.Button            // the Servers list's Paste
	catalogBtn *widget.Button            // the sidebar's "Add a server"
	appsBtn    *widget.Button            // the sidebar's AI apps
	center     *fyne.Container
	opening    bool // while a place opens its own page

	servers *serversPage    // the Servers place, always built
	page    *page           // the page shown: a place's, a tab's, or one opened over a place; nil for none
	embedIn *fyne.Container // while a server's tab opens its view: the tab's content, where open puts it

	// The open pages, for the tests to reach their widgets (nil when not
	// open).
	form     *serverForm
	paste    *pasteView
	catalog  *catalogView
	template *templateView
	entry    *entryView  // a registry entry's card and form (addserver.go)
	bundle   *bundleView // a bundle's card and install form (bundleview.go)
	// pendingBundle is the bundle OpenBundle was given before the host
	// answered: opened once connected.
	pendingBundle string
	logs          *logsView
	tools         *toolsView
	apps          *appsView
	activity      *activityView
	confirm       *dialog.ConfirmDialog // the last confirmation asked (Remove, Disable)
	// dialogs are the dialogs shown, the last on top, each with what
	// Escape does to it (its Cancel): escapable.
	dialogs []escDialog

	approvals *approvalsView // the Approvals place, once shown (approvals.go)
	profilesV *profilesView  // the Profiles place, while shown (profiles.go)
	// profileNames are the host's profiles, as last fetched (nil:
	// unknown), for the AI apps place (aiapps_profile.go); profiles are
	// the profiles themselves (the servers each lets through).
	profileNames []string
	profiles     []hostapi.ProfileInfo

	costs costs // the host's token costs (cost.go)
}

// page is a view: a place's own (the catalog, the AI apps), a server's
// tab (its tools, logs, settings), or one opened over the current place
// (the add form, the paste import) with a Back button.
type page struct {
	title  string
	obj    fyne.CanvasObject
	back   *widget.Button // nil but for a page opened over a place
	reload func()         // fetches its data again (the AI apps rescan); nil: nothing to fetch
	close  func()         // when left; nil: nothing to stop

	root     bool // the place's own page
	embedded bool // a server's tab
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
		w.app.Lifecycle().SetOnEnteredForeground(func() { w.gainedFocus() })
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
	w.showServer(name, tabLogs)
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

// build returns the window's content: the sidebar of places beside the
// current place, the banners above it and the status line below it (each
// hidden, and taking no room, while it has nothing to say).
func (w *Window) build() fyne.CanvasObject {
	w.connBanner = errorLabel()
	w.cfgBanner = errorLabel()
	w.cfgNote = errorLabel()
	w.cfgNote.Importance = widget.WarningImportance
	w.statusLine = selectableLabel("")
	w.statusLine.Wrapping = fyne.TextWrapWord
	w.statusLine.Hide() // until an action has an outcome: hidden, it takes no room
	w.servers = newServersPage(w)
	w.center = container.NewStack()
	top := container.NewVBox(w.connBanner, w.cfgBanner, w.cfgNote)
	w.remedies = newRemedyRow()
	w.bottom = container.NewVBox(widget.NewSeparator(), w.statusLine, w.remedies)
	w.bottom.Hide()
	main := container.NewBorder(top, w.bottom, nil, nil, w.center)
	w.showPlace(places[0].id)
	return container.NewBorder(nil, nil, container.NewHBox(w.sidebar(), widget.NewSeparator()), nil, main)
}

// addShortcuts binds Ctrl+N (add), Ctrl+W (hide) and Escape (the Cancel
// of the dialog shown, else back from a page opened over a place; Cmd on
// macOS). Escape reaches the window while no field has the keyboard (a
// dialog opens with none).
func (w *Window) addShortcuts() {
	c := w.win.Canvas()
	mod := fyne.KeyModifierShortcutDefault
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: mod}, func(fyne.Shortcut) { w.openAdd() })
	c.AddShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: mod}, func(fyne.Shortcut) { w.Hide() })
	c.SetOnTypedKey(func(ev *fyne.KeyEvent) {
		if ev.Name == fyne.KeyEscape {
			w.escape()
		}
	})
}

// escape is what Escape does: the Cancel of the dialog shown, else Back
// from a page opened over a place. The window's key handler calls it
// while no field has the keyboard, an escEntry while it has.
func (w *Window) escape() {
	switch {
	case len(w.dialogs) > 0:
		w.dialogs[len(w.dialogs)-1].cancel()
	case w.page != nil && w.page.back != nil:
		w.back()
	}
}

// back is Back (the button, Escape) from a page opened over a place. A
// new server's form with something typed in asks first: Escape is one
// key away from the fields, and what was typed would be gone. (Cancel
// says what it does, and leaves without asking.)
func (w *Window) back() {
	if w.form == nil || !w.form.create || !w.form.edited() || w.win == nil {
		w.home()
		return
	}
	d := dialog.NewConfirm("Discard the new server?", "What you typed in the form is not saved.", func(ok bool) {
		if ok {
			w.home()
		}
	}, w.win)
	d.SetConfirmText("Discard")
	d.SetDismissText("Keep editing")
	w.confirm = d
	w.escapable(d, nil)
}

// escDialog is a dialog shown, and what Escape does to it.
type escDialog struct {
	d      dialog.Dialog
	cancel func()
}

// escapable shows d, and lets Escape do cancel to it while it is the
// dialog on top (nil cancel: d.Hide, which answers a confirmation "no").
func (w *Window) escapable(d dialog.Dialog, cancel func()) {
	if cancel == nil {
		cancel = d.Hide
	}
	w.dialogs = append(w.dialogs, escDialog{d: d, cancel: cancel})
	d.SetOnClosed(func() {
		w.dialogs = slices.DeleteFunc(w.dialogs, func(e escDialog) bool { return e.d == d })
	})
	d.Show()
}

// follow applies the host's changes as they are announced, and updates
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
				if w.visible && w.win != nil {
					w.servers.update(w.snap)
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
	// The problems of the file that belong to no server (a server's own
	// show on its row and its Overview). A note (Warning: it stops
	// nothing) is not one: a profile's shows on its card in the Profiles
	// place (profiles.go), any other in the warning colour.
	var fileProblems, fileNotes []hostapi.Problem
	for _, p := range s.Info.Config.Problems {
		switch {
		case p.Server != "":
		case p.Warning && isProfileKey(p.Key):
		case p.Warning:
			fileNotes = append(fileNotes, p)
		default:
			fileProblems = append(fileProblems, p)
		}
	}
	if s.Connected && len(fileNotes) > 0 {
		setText(w.cfgNote, "Note: "+phrase.Problems(fileNotes))
	} else {
		setText(w.cfgNote, "")
	}
	switch {
	case s.Connected && s.Info.Config.Error != "":
		setText(w.cfgBanner, fmt.Sprintf("The config file %s cannot be used: %s\nThe last good config stays in force until the file is fixed and saved.",
			s.Info.Config.Path, s.Info.Config.Error))
	case s.Connected && len(fileProblems) > 0:
		setText(w.cfgBanner, fmt.Sprintf("The config file %s has %s; the rest of it is in force:\n%s",
			s.Info.Config.Path, english.Plural(len(fileProblems), "problem"), phrase.Problems(fileProblems)))
	default:
		setText(w.cfgBanner, "")
	}
	w.servers.update(s)
	w.showFollowed()     // list.go
	w.updateApprovals(s) // approvals.go
	if w.tools != nil {
		w.tools.stateChanged(s)
	}
	if w.form != nil {
		w.form.updateHint()
	}
	if w.apps != nil {
		w.apps.stateChanged()
	}
	w.costsChanged(s) // cost.go
	if s.Connected && w.pendingBundle != "" {
		path := w.pendingBundle
		w.pendingBundle = ""
		w.openBundle(path) // bundleview.go
	}
}

// open shows a page: in the server's tab that is opening it (embedIn),
// as the place's own page while the place opens, else over the current
// place with a Back button (leaving the current page).
func (w *Window) open(p *page) {
	w.leave()
	w.page = p
	switch {
	case w.embedIn != nil:
		p.embedded = true
		// Not capped: the split beside it yields the room a tab needs.
		w.embedIn.Objects = []fyne.CanvasObject{p.obj}
		w.embedIn.Refresh()
		return
	case w.opening:
		p.root = true
		w.center.Objects = []fyne.CanvasObject{container.NewBorder(container.NewVBox(heading(p.title)), nil, nil, nil, capped(p.obj))}
	default:
		p.back = widget.NewButtonWithIcon("Back", theme.NavigateBackIcon(), w.back)
		head := container.NewHBox(p.back, heading(p.title))
		w.center.Objects = []fyne.CanvasObject{container.NewBorder(head, nil, nil, nil, capped(p.obj))}
	}
	w.center.Refresh()
	w.setStatus("", false)
}

// home leaves the page shown for the current place's own view: Back from
// a page opened over it; after a server's settings were saved or
// cancelled, the settings again as the host now has them. After a server
// was added (by the form or a catalog template), the Servers place shows
// it.
func (w *Window) home() {
	if w.page == nil || w.page.root {
		return
	}
	added := ""
	switch {
	case w.form != nil && w.form.create:
		added = w.form.serverName()
	case w.template != nil:
		added = strings.TrimSpace(w.template.name.Text)
	}
	if w.page.embedded {
		w.leave()
		w.servers.reopenTab()
		return
	}
	w.leave()
	if added != "" {
		w.servers.want = added
		w.showPlace(placeServers)
		w.servers.update(w.snap)
		return
	}
	w.showPlace(w.place.id)
}

// leave closes the current page.
func (w *Window) leave() {
	if w.page != nil && w.page.close != nil {
		w.page.close()
	}
	w.page = nil
	w.form, w.paste, w.catalog, w.template, w.logs, w.tools, w.apps, w.entry = nil, nil, nil, nil, nil, nil, nil, nil
	w.bundle = nil
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
	w.followed = ""
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

// isProfileKey says whether a problem's key is within a profile
// ("profiles.NAME.servers"): the Profiles place shows it.
func isProfileKey(key string) bool {
	return strings.HasPrefix(key, "profiles.") || strings.HasPrefix(key, "profiles[")
}
