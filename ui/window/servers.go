package window

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The Servers place: the servers on the left (a coloured dot, the name,
// a one-line summary), the chosen one on the right with its own tabs
// (Overview, Tools, Logs, Settings), its primary control (Start or Stop,
// as its state allows) and its rare actions in an overflow menu. With no
// servers, a page that teaches how to get one (empty.go).

// The tabs of a server, in order.
const (
	tabOverview = iota
	tabTools
	tabLogs
	tabSettings
)

var tabNames = []string{"Overview", "Tools", "Logs", "Settings"}

// serversPage is the Servers place.
type serversPage struct {
	w        *Window
	items    []hostapi.ServerStatus // the servers listed, in the host's order
	list     *widget.List
	selected string // the server shown on the right
	want     string // a server to show once it is listed (just added)
	tab      int    // the tab shown, kept when another server is chosen
	detail   *serverDetail
	right    *fyne.Container
	split    *container.Split
	empty    *emptyState
	body     *fyne.Container // the split, or the empty state
	obj      fyne.CanvasObject
}

func newServersPage(w *Window) *serversPage {
	sp := &serversPage{w: w}
	sp.list = sp.newServerList()
	// Words without icons: the list stays narrow enough for the settings
	// beside it at 800 pixels.
	w.addBtn = widget.NewButton("Add", w.openAdd)
	w.addBtn.Importance = widget.HighImportance
	w.pasteBtn = widget.NewButton("Paste…", w.openPaste)
	head := container.NewBorder(nil, nil, heading("Servers"), nil)
	actions := container.NewHBox(w.addBtn, w.pasteBtn)
	left := container.NewBorder(container.NewVBox(head, actions, widget.NewSeparator()), nil, nil, nil, sp.list)
	sp.right = container.NewStack()
	sp.split = container.NewHSplit(left, sp.right)
	sp.split.Offset = 0.28
	sp.empty = newEmptyState(w)
	sp.body = container.NewStack(sp.split)
	sp.obj = sp.body
	return sp
}

// update shows the servers of a snapshot: the list, and the chosen
// server (the first one when none is chosen, or the chosen one left).
func (sp *serversPage) update(s client.Snapshot) {
	sp.items = s.Servers
	if sp.want != "" {
		if _, ok := statusOf(s, sp.want); ok {
			sp.selected, sp.want = sp.want, ""
		}
	}
	if _, ok := statusOf(s, sp.selected); !ok {
		sp.selected = ""
		if len(s.Servers) > 0 {
			sp.selected = s.Servers[0].Name
		}
	}
	sp.list.Refresh()
	sp.showBody(len(s.Servers) == 0 && s.Connected)
	if sp.selected == "" {
		sp.list.UnselectAll()
		if sp.detail != nil {
			sp.dropDetail()
		}
		return
	}
	if sp.detail == nil || sp.detail.name != sp.selected {
		sp.showDetail(sp.selected)
	}
	sp.list.Select(sp.index(sp.selected)) // choose ignores the name shown
	st, _ := statusOf(s, sp.selected)
	sp.detail.update(st, s.Connected)
}

// showBody shows the list and the detail, or the empty state.
func (sp *serversPage) showBody(empty bool) {
	want := fyne.CanvasObject(sp.split)
	if empty {
		want = sp.empty.obj
	}
	if sp.body.Objects[0] != want {
		sp.body.Objects[0] = want
		sp.body.Refresh()
		if empty {
			sp.empty.reload()
		}
	}
}

func (sp *serversPage) index(name string) int {
	for i, st := range sp.items {
		if st.Name == name {
			return i
		}
	}
	return -1
}

// choose shows a server on the right (the user chose it in the list).
func (sp *serversPage) choose(name string) {
	if name == sp.selected && sp.detail != nil {
		return
	}
	sp.selected = name
	sp.showDetail(name)
	if st, ok := statusOf(sp.w.snap, name); ok {
		sp.detail.update(st, sp.w.snap.Connected)
	}
	sp.list.Select(sp.index(name)) // when chosen otherwise than in the list
}

// showDetail builds the right side for a server, at the tab shown last.
func (sp *serversPage) showDetail(name string) {
	if sp.detail != nil && sp.w.page != nil && sp.w.page.embedded {
		sp.w.leave() // the previous server's tab
	}
	sp.detail = newServerDetail(sp, name)
	sp.right.Objects = []fyne.CanvasObject{sp.detail.obj}
	sp.right.Refresh()
	sp.reopenTab()
}

// dropDetail empties the right side.
func (sp *serversPage) dropDetail() {
	if sp.w.page != nil && sp.w.page.embedded {
		sp.w.leave()
	}
	sp.detail = nil
	sp.right.Objects = nil
	sp.right.Refresh()
}

// reopenTab opens the current tab's view again (after the place was
// shown again, or the settings were saved).
func (sp *serversPage) reopenTab() {
	if sp.detail == nil || sp.w.place == nil || sp.w.place.id != placeServers {
		return
	}
	sp.detail.openTab(sp.detail.tabs.SelectedIndex())
}

// showServer shows a server at one of its tabs (the tray's "Show logs").
func (w *Window) showServer(name string, tab int) {
	w.showPlace(placeServers)
	sp := w.servers
	sp.tab = tab
	if _, ok := statusOf(w.snap, name); !ok {
		sp.want = name
		return
	}
	if sp.selected == name && sp.detail != nil {
		sp.detail.tabs.SelectIndex(tab)
		return
	}
	sp.selected = name
	if i := sp.index(name); i >= 0 {
		sp.list.Select(i)
	}
	sp.showDetail(name)
	sp.update(w.snap)
}

// serverDetail is the right side: the chosen server's header and tabs.
type serverDetail struct {
	sp      *serversPage
	w       *Window
	name    string
	st      hostapi.ServerStatus
	dot     *canvas.Circle
	title   *widget.Label
	state   *widget.Label
	primary *widget.Button // Start, Stop, Enable...: the state's action
	more    *widget.Button // the overflow menu
	tabs    *container.AppTabs
	boxes   []*fyne.Container // each tab's content
	ov      *overview
	seq     int // the tab opened last: a late answer for an older one is dropped
	obj     fyne.CanvasObject
	remote  *remoteFields // the Settings tab's remote fields, of a remote server
}

func newServerDetail(sp *serversPage, name string) *serverDetail {
	w := sp.w
	d := &serverDetail{sp: sp, w: w, name: name}
	var dotObj fyne.CanvasObject
	d.dot, dotObj = newDot()
	d.title = heading(name)
	d.state = widget.NewLabel("")
	d.primary = widget.NewButton("Start", nil)
	d.primary.Importance = widget.HighImportance
	d.more = widget.NewButtonWithIcon("", theme.MoreVerticalIcon(), d.showMenu)
	d.title.Truncation = fyne.TextTruncateEllipsis
	named := container.New(nameStateLayout{}, d.title, container.NewCenter(d.state))
	head := container.NewBorder(nil, nil, dotObj, container.NewHBox(d.primary, d.more), named)
	d.ov = newOverview(d)
	var items []*container.TabItem
	for i, n := range tabNames {
		box := container.NewStack()
		if i == tabOverview {
			box.Add(d.ov.obj)
		}
		d.boxes = append(d.boxes, box)
		items = append(items, container.NewTabItem(n, box))
	}
	d.tabs = container.NewAppTabs(items...)
	d.tabs.SelectIndex(sp.tab) // before OnSelected: showDetail opens it
	d.tabs.OnSelected = func(*container.TabItem) {
		i := d.tabs.SelectedIndex()
		sp.tab = i
		if sp.detail == d {
			d.openTab(i)
		}
	}
	d.obj = container.NewBorder(container.NewVBox(head, widget.NewSeparator()), nil, nil, nil, d.tabs)
	return d
}

// openTab opens a tab's view, closing the one open before: the tools and
// the logs are the tools and logs views; the settings are the server's
// form, filled from its entry.
func (d *serverDetail) openTab(i int) {
	w := d.w
	if w.page != nil && !w.page.embedded {
		return // a page shows over the place: the tab opens when it is left
	}
	w.leave()
	d.seq++
	for j, box := range d.boxes {
		if j != tabOverview && len(box.Objects) > 0 {
			box.Objects = nil
			box.Refresh()
		}
	}
	embed := func(open func()) {
		w.embedIn = d.boxes[i]
		defer func() { w.embedIn = nil }()
		open()
	}
	switch i {
	case tabTools:
		embed(func() { w.openTools(d.name) })
	case tabLogs:
		embed(func() { w.openLogs(d.name) })
	case tabSettings:
		d.openSettings()
	}
}

// openSettings fetches the server's entry (servers.get) and shows it in
// the server form, embedded in the Settings tab; a remote server's has
// its address, transport and sign-in instead of a command.
func (d *serverDetail) openSettings() {
	w, name, seq := d.w, d.name, d.seq
	box := d.boxes[tabSettings]
	box.Objects = []fyne.CanvasObject{widget.NewLabel("Loading the settings of " + name + "…")}
	box.Refresh()
	var res hostapi.EntryResult
	w.call(func(ctx context.Context) (err error) {
		res.Entry, err = w.live.GetServer(ctx, name)
		return err
	}, func(err error) {
		if w.servers.detail != d || d.seq != seq || w.page != nil {
			return // another tab, server or page since
		}
		var s *config.Server
		base := map[string]json.RawMessage{}
		if err == nil {
			if s, err = config.ParseServer(name, res.Entry); err == nil {
				err = json.Unmarshal(res.Entry, &base)
			}
		}
		if err != nil {
			l := errorLabel()
			setText(l, err.Error())
			box.Objects = []fyne.CanvasObject{container.NewVBox(l)}
			box.Refresh()
			return
		}
		var f *serverForm
		if d.remote = nil; isRemoteEntry(s) {
			f = d.remoteSettings(s, base) // remotesettings.go
		} else {
			f = newServerForm(w, name, false, s, base, nil)
		}
		w.embedIn = box
		w.open(&page{title: "Settings of " + name, obj: f.obj})
		w.embedIn = nil
		w.form = f
	})
}

// update shows the server's state in the header and the Overview.
func (d *serverDetail) update(st hostapi.ServerStatus, connected bool) {
	d.st = st
	setDot(d.dot, st.State)
	d.state.Text = st.State.Label()
	d.state.Importance = stateImportance(st.State)
	d.state.Refresh()
	label, act := d.primaryAction(st)
	if d.primary.Text != label {
		d.primary.SetText(label)
	}
	d.primary.OnTapped = act
	enable(d.primary, connected && act != nil)
	enable(d.more, connected)
	d.ov.update(st, d.w.opts.Now(), connected)
}

// primaryLabel is the label of a server's primary control for its state,
// and whether it does anything: Sign in for a remote server that waits
// for a sign-in (what servers.login does), Stop while it runs or tries
// to, Start when it can start, Enable when it is disabled, "Fix settings" for an
// invalid entry. The predicates are the state's own (hostapi.State), as
// the tray's menu uses them, so the two agree.
func primaryLabel(s hostapi.State) (label string, active bool) {
	switch {
	case s == hostapi.StateSignInNeeded: // a remote server: it starts once signed in
		return "Sign in", true
	case s.CanStop():
		return "Stop", true
	case s.CanStart():
		return "Start", true
	case s == hostapi.StateDisabled:
		return "Enable", true
	case s == hostapi.StateInvalid:
		return "Fix settings", true
	case s == hostapi.StateStopping:
		return "Stopping…", false
	}
	return "Start", false
}

// primaryAction returns the primary control's label and action.
func (d *serverDetail) primaryAction(st hostapi.ServerStatus) (string, func()) {
	w, name, live := d.w, d.name, d.w.live
	label, active := primaryLabel(st.State)
	if !active {
		return label, nil
	}
	switch label {
	case "Stop":
		return label, func() {
			w.serverAction(func(ctx context.Context, name string) error { return live.Stop(ctx, name, false) }, name)
		}
	case "Start":
		return label, func() { w.serverAction(live.Start, name) }
	case "Sign in":
		return label, func() { w.signIn(name) }
	case "Enable":
		return label, func() { w.serverAction(setDisabled(live, false), name) }
	}
	return label, func() { d.tabs.SelectIndex(tabSettings) }
}

func setDisabled(live *client.Live, disabled bool) func(ctx context.Context, name string) error {
	return func(ctx context.Context, name string) error { return live.SetDisabled(ctx, name, disabled) }
}

// menu returns the overflow menu for the server's state: Restart, Disable
// or Enable, Remove.
func (d *serverDetail) menu() *fyne.Menu {
	w, name, st := d.w, d.name, d.st
	restart := fyne.NewMenuItem("Restart", func() { w.serverAction(w.live.Restart, name) })
	restart.Disabled = !st.State.CanRestart()
	restart.Icon = theme.ViewRefreshIcon()
	toggle := fyne.NewMenuItem("Disable…", func() { w.askDisable(st) })
	toggle.Icon = theme.MediaPauseIcon()
	if st.Disabled {
		toggle = fyne.NewMenuItem("Enable", func() { w.serverAction(setDisabled(w.live, false), name) })
		toggle.Icon = theme.MediaPlayIcon()
	}
	remove := fyne.NewMenuItem("Remove…", func() { w.askRemove(st) })
	remove.Icon = theme.DeleteIcon()
	return fyne.NewMenu("", restart, toggle, fyne.NewMenuItemSeparator(), remove)
}

// menuItem returns the overflow menu's item of a label (tests).
func (d *serverDetail) menuItem(label string) *fyne.MenuItem {
	for _, it := range d.menu().Items {
		if it.Label == label {
			return it
		}
	}
	return nil
}

// showMenu pops the overflow menu up below its button.
func (d *serverDetail) showMenu() {
	if d.w.win == nil {
		return
	}
	c := d.w.win.Canvas()
	pos := fyne.CurrentApp().Driver().AbsolutePositionForObject(d.more)
	m := widget.NewPopUpMenu(d.menu(), c)
	size := m.MinSize()
	x := pos.X + d.more.Size().Width - size.Width
	m.ShowAtPosition(fyne.NewPos(max(0, x), pos.Y+d.more.Size().Height))
}

// removeMessage says what removing a server loses, and what it keeps.
func removeMessage(st hostapi.ServerStatus) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s's entry is deleted from Switchboard's config: its command, arguments, environment and settings.", st.Name)
	if st.State.CanStop() {
		b.WriteString(" Its process is stopped.")
	}
	b.WriteString("\nThe AI apps connected to Switchboard lose its tools.")
	switch len(st.Secrets) {
	case 0:
	case 1:
		fmt.Fprintf(&b, "\n\nThe secret it uses, %s, stays in the keyring.", st.Secrets[0])
	default:
		fmt.Fprintf(&b, "\n\nThe secrets it uses, %s, stay in the keyring.", strings.Join(st.Secrets, ", "))
	}
	return b.String()
}

// disableMessage says what disabling a server does.
func disableMessage(st hostapi.ServerStatus) string {
	msg := fmt.Sprintf("%s stops and does not start again until it is enabled; the AI apps connected to Switchboard lose its tools meanwhile.", st.Name)
	return msg + "\nIts entry and its secrets are kept."
}

// askRemove asks before removing a server from the config. The confirm
// button says what it does ("Remove filesystem").
func (w *Window) askRemove(st hostapi.ServerStatus) {
	name := st.Name
	w.confirm = dialog.NewConfirm("Remove "+name+"?", removeMessage(st), func(ok bool) {
		if ok {
			w.serverAction(w.live.RemoveServer, name)
		}
	}, w.win)
	w.confirm.SetConfirmText("Remove " + name)
	w.confirm.SetDismissText("Keep it")
	w.confirm.SetConfirmImportance(widget.DangerImportance)
	w.escapable(w.confirm, nil)
}

// askDisable asks before disabling a server.
func (w *Window) askDisable(st hostapi.ServerStatus) {
	name := st.Name
	w.confirm = dialog.NewConfirm("Disable "+name+"?", disableMessage(st), func(ok bool) {
		if ok {
			w.serverAction(setDisabled(w.live, true), name)
		}
	}, w.win)
	w.confirm.SetConfirmText("Disable " + name)
	w.confirm.SetDismissText("Cancel")
	w.confirm.SetConfirmImportance(widget.WarningImportance)
	w.escapable(w.confirm, nil)
}

// nameStateLayout lays out the header's name (objects[0], a label that
// truncates) and its state after it (objects[1]): the name at its full
// width where there is room, else cut with an ellipsis so that the state
// stays shown. Its minimum is the state's and the cut name's, so that a
// long name does not widen the window (in an HBox, the name's full width
// was the header's minimum: a server of 31 letters made its page ask for
// 966 pixels).
type nameStateLayout struct{}

func (nameStateLayout) MinSize(objects []fyne.CanvasObject) fyne.Size {
	name, state := objects[0].MinSize(), objects[1].MinSize()
	return fyne.NewSize(name.Width+theme.Padding()+state.Width, max(name.Height, state.Height))
}

func (nameStateLayout) Layout(objects []fyne.CanvasObject, size fyne.Size) {
	name, state := objects[0], objects[1]
	sw := state.MinSize().Width
	nw := name.MinSize().Width
	if l, ok := name.(*widget.Label); ok {
		nw = max(nw, fullWidth(l))
	}
	nw = min(nw, max(0, size.Width-sw-theme.Padding()))
	name.Move(fyne.NewPos(0, 0))
	name.Resize(fyne.NewSize(nw, size.Height))
	state.Move(fyne.NewPos(nw+theme.Padding(), 0))
	state.Resize(fyne.NewSize(sw, size.Height))
}

// fullWidth is the width a label's text needs uncut.
func fullWidth(l *widget.Label) float32 {
	size := theme.TextSize()
	if l.SizeName != "" {
		size = theme.Size(l.SizeName)
	}
	// One pixel more than measured: at exactly its width the label's
	// truncation cut it ("fil…").
	return fyne.MeasureText(l.Text, size, l.TextStyle).Width + 2*theme.InnerPadding() + 1
}
