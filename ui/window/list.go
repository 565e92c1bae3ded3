package window

import (
	"context"
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
)

// stateImportance colours a state by its hostapi.Severity, as the tray's
// icon does: green when running, amber while on its way or waiting for a
// secret, red when failed or invalid, grey when stopped or disabled. The
// theme's colours follow the OS light or dark mode.
func stateImportance(state hostapi.State) widget.Importance {
	switch state.Severity() {
	case hostapi.SeverityOK:
		return widget.SuccessImportance
	case hostapi.SeverityProgress, hostapi.SeverityWarning:
		return widget.WarningImportance
	case hostapi.SeverityFailed:
		return widget.DangerImportance
	}
	return widget.LowImportance
}

// serverList is the home page: one row per server, in name order.
type serverList struct {
	w     *Window
	tbl   *table
	rows  map[string]*serverRow
	order []string
	box   *fyne.Container // the header, then each row with its problem line
	empty *widget.Label
	obj   fyne.CanvasObject
}

// serverRow is one server's row. Its last error (or the problems of its
// entry) shows on a line of its own below the row, wrapped and selectable,
// rather than in a narrow column.
type serverRow struct {
	w                                          *Window
	name                                       string
	nameL, state, era, tools, uptime, restarts *widget.Label
	start, stop, restart, toggle               *widget.Button
	edit, logs, toolsB, remove                 *widget.Button
	problem                                    *widget.Label
	fix                                        *widget.Button // the remedy of what the server needs (Issues), when the window can do it
	row                                        *fyne.Container
	obj                                        *fyne.Container
}

func newServerList(w *Window) *serverList {
	l := &serverList{w: w, tbl: &table{}, rows: map[string]*serverRow{}}
	header := l.tbl.row(bold("Name"), bold("State"), bold("Era"), bold("Tools"), bold("Uptime"), bold("Restarts"), bold("Actions"))
	l.empty = widget.NewLabel("No servers yet. Add one (Ctrl+N), paste a configuration from another app, or pick one from the catalog.")
	l.empty.Wrapping = fyne.TextWrapWord
	l.box = container.NewVBox(header, widget.NewSeparator(), l.empty)
	l.obj = container.NewScroll(l.box)
	return l
}

// update shows the servers of a snapshot, reusing the rows of servers it
// already shows.
func (l *serverList) update(s client.Snapshot) {
	seen := map[string]bool{}
	order := make([]string, 0, len(s.Servers))
	for _, st := range s.Servers {
		r := l.rows[st.Name]
		if r == nil {
			r = l.newRow(st.Name)
			l.rows[st.Name] = r
		}
		r.update(st, l.w.opts.Now(), s.Connected)
		seen[st.Name] = true
		order = append(order, st.Name)
	}
	for name, r := range l.rows {
		if !seen[name] {
			l.tbl.remove(r.row)
			delete(l.rows, name)
		}
	}
	l.tbl.invalidate()
	if strings.Join(order, "\x00") != strings.Join(l.order, "\x00") || len(order) == 0 && len(l.box.Objects) != 3 {
		l.order = order
		objs := l.box.Objects[:2:2]
		for _, n := range order {
			objs = append(objs, l.rows[n].obj)
		}
		if len(order) == 0 {
			objs = append(objs, l.empty)
		}
		l.box.Objects = objs
	}
	l.box.Refresh()
}

func (l *serverList) newRow(name string) *serverRow {
	w := l.w
	r := &serverRow{w: w, name: name}
	r.nameL = bold(name)
	r.state = widget.NewLabel("")
	r.era = widget.NewLabel("")
	r.tools = widget.NewLabel("")
	r.uptime = widget.NewLabel("")
	r.restarts = widget.NewLabel("")
	live := w.live
	act := func(label string, method func(ctx context.Context, name string) error, done string) *widget.Button {
		return widget.NewButton(label, func() { w.serverAction(method, name, done) })
	}
	stop := func(ctx context.Context, name string) error { return live.Stop(ctx, name, false) }
	// Text buttons, no icons: eight of them fit a row.
	r.start = act("Start", live.Start, "started")
	r.stop = act("Stop", stop, "stopping")
	r.restart = act("Restart", live.Restart, "restarting")
	r.toggle = widget.NewButton("Disable", nil)
	r.edit = widget.NewButton("Edit", func() { w.openEdit(name) })
	r.logs = widget.NewButton("Logs", func() { w.openLogs(name) })
	r.toolsB = widget.NewButton("Tools", func() { w.openTools(name) })
	r.remove = widget.NewButton("Remove", func() { w.askRemove(name) })
	r.remove.Importance = widget.DangerImportance
	actions := container.NewHBox(r.start, r.stop, r.restart, r.toggle, r.edit, r.logs, r.toolsB, r.remove)
	r.row = l.tbl.row(r.nameL, r.state, r.era, r.tools, r.uptime, r.restarts, actions)
	r.problem = errorLabel()
	r.fix = widget.NewButton("", nil)
	r.fix.Hide()
	r.obj = container.NewVBox(r.row, r.problem, r.fix)
	return r
}

// update shows a server's status.
func (r *serverRow) update(st hostapi.ServerStatus, now time.Time, connected bool) {
	r.state.Text = st.State.Label()
	r.state.Importance = stateImportance(st.State)
	r.state.Refresh()
	r.era.SetText(dash(st.Era))
	running := st.State == hostapi.StateRunning
	if running {
		r.tools.SetText(strconv.Itoa(st.Tools))
	} else {
		r.tools.SetText("–")
	}
	if running && !st.StartedAt.IsZero() {
		r.uptime.SetText(uptime(now.Sub(st.StartedAt)))
	} else {
		r.uptime.SetText("–")
	}
	r.restarts.SetText(strconv.Itoa(st.Restarts))
	setText(r.problem, problemText(st))
	r.offerFix(st, connected)

	enable(r.start, connected && st.State.CanStart())
	enable(r.stop, connected && st.State.CanStop())
	enable(r.restart, connected && st.State.CanRestart())
	enable(r.toolsB, connected && running)
	enable(r.edit, connected)
	enable(r.remove, connected)
	enable(r.toggle, connected)
	// The toggle's action follows the entry's disabled flag.
	name, b, live := r.name, r.toggle, r.w.live
	setDisabled := func(disabled bool) func(ctx context.Context, name string) error {
		return func(ctx context.Context, name string) error { return live.SetDisabled(ctx, name, disabled) }
	}
	if st.Disabled {
		b.SetText("Enable")
		b.OnTapped = func() { r.w.serverAction(setDisabled(false), name, "enabled") }
	} else {
		b.SetText("Disable")
		b.OnTapped = func() { r.w.serverAction(setDisabled(true), name, "disabled") }
	}
}

// problemText is what is wrong with a server, for a person: the problems
// of its entry, else its last error, else why its command does not
// resolve.
func problemText(st hostapi.ServerStatus) string {
	switch {
	case len(st.Problems) > 0:
		return phrase.Problems(st.Problems)
	case len(st.Issues) > 0 && st.State != hostapi.StateRunning:
		return phrase.Problems(st.Issues) // with their remedies, in words
	case st.LastError != "" && st.State != hostapi.StateRunning:
		return "Last error: " + termtext.Escape(st.LastError) // it may quote the server's stderr
	case st.ResolveError != "" && st.State != hostapi.StateRunning:
		return termtext.Escape(st.ResolveError)
	}
	return ""
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

func enable(b *widget.Button, on bool) {
	if on {
		b.Enable()
	} else {
		b.Disable()
	}
}

// uptime writes a duration coarsely: 45s, 12m, 3h05m, 2d04h.
func uptime(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d/time.Hour), int(d%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd%02dh", int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour))
}

// serverAction calls a method on one server and reports the outcome.
func (w *Window) serverAction(method func(ctx context.Context, name string) error, name, done string) {
	w.setStatus("", false)
	w.call(func(ctx context.Context) error { return method(ctx, name) }, func(err error) {
		if err != nil {
			w.showErr(err)
			return
		}
		w.setStatus(fmt.Sprintf("%s: %s", name, done), false)
	})
}

// askRemove asks before removing a server from the config.
func (w *Window) askRemove(name string) {
	msg := fmt.Sprintf("Remove %q from the config?\nIts process is stopped and its entry deleted; the secrets it uses stay in the keyring.", name)
	w.confirm = dialog.NewConfirm("Remove server", msg, func(ok bool) {
		if ok {
			w.serverAction(w.live.RemoveServer, name, "removed")
		}
	}, w.win)
	w.confirm.SetConfirmText("Remove")
	w.confirm.SetConfirmImportance(widget.DangerImportance)
	w.confirm.Show()
}

// offerFix offers the remedy of what the server needs from the user (its
// status's Issues: the secret it waits for) as a button, when the window
// can carry it out.
func (r *serverRow) offerFix(st hostapi.ServerStatus, connected bool) {
	for _, p := range st.Issues {
		if p.Remedy == nil {
			continue
		}
		if label, do, ok := r.w.remedyAction(*p.Remedy); ok && connected {
			r.fix.SetText(label)
			r.fix.OnTapped = do
			r.fix.Show()
			return
		}
	}
	if r.fix.Visible() {
		r.fix.Hide()
	}
}
