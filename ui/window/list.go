package window

import (
	"context"
	"fmt"
	"image/color"
	"strconv"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
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

// stateColor is the colour of a state's dot, from the current theme.
func stateColor(state hostapi.State) color.Color {
	name := theme.ColorNameDisabled
	switch state.Severity() {
	case hostapi.SeverityOK:
		name = theme.ColorNameSuccess
	case hostapi.SeverityProgress, hostapi.SeverityWarning:
		name = theme.ColorNameWarning
	case hostapi.SeverityFailed:
		name = theme.ColorNameError
	}
	return theme.Color(name)
}

// newDot returns a state's coloured dot.
func newDot() (*canvas.Circle, fyne.CanvasObject) {
	c := canvas.NewCircle(theme.Color(theme.ColorNameDisabled))
	size := theme.Size(theme.SizeNameInlineIcon) / 2
	return c, container.NewCenter(container.NewGridWrap(fyne.NewSize(size, size), c))
}

// setDot colours a dot for a state.
func setDot(c *canvas.Circle, state hostapi.State) {
	if col := stateColor(state); c.FillColor != col {
		c.FillColor = col
		c.Refresh()
	}
}

// summary is a server's line in the list: what a person wants to know at
// a glance (how many tools it offers, or why it does not run).
func summary(st hostapi.ServerStatus) string {
	if st.Broken {
		// It retries, but no attempt can succeed until the user acts: why,
		// from the first attempt (the overview adds what to do).
		for _, p := range st.Issues {
			if !p.Warning && p.Fact != "" {
				return "broken — " + st.State.Label() + ": " + p.Fact
			}
		}
		return "broken — " + st.State.Label()
	}
	switch st.State {
	case hostapi.StateRunning:
		if st.Held > 0 {
			return plural(st.Tools, "tool") + " · " + phrase.HeldBadge(st.Held)
		}
		return plural(st.Tools, "tool")
	case hostapi.StateFailed:
		switch {
		case st.ResolveError != "":
			return "failed: command not found"
		case st.LastReason != "":
			return "failed: " + st.LastReason
		}
		return "failed"
	case hostapi.StateWaiting:
		for _, p := range st.Issues {
			if p.Remedy != nil && p.Remedy.Secret != "" {
				return "needs the secret " + p.Remedy.Secret
			}
		}
		return "waiting for a secret"
	case hostapi.StateInvalid:
		if len(st.Problems) > 0 {
			return "invalid entry: " + phrase.Problem(st.Problems[0])
		}
	case hostapi.StateRestarting:
		if st.Failures > 0 {
			return fmt.Sprintf("restarting after %s", plural(st.Failures, "failure"))
		}
	}
	return st.State.Label()
}

// plural writes a count of things: "1 tool", "13 tools".
func plural(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return strconv.Itoa(n) + " " + thing + "s"
}

// newServerList returns the list of servers of the Servers page: a dot
// coloured by state, the name, and the summary below it.
func (sp *serversPage) newServerList() *widget.List {
	l := widget.NewList(
		func() int { return len(sp.items) },
		func() fyne.CanvasObject {
			_, dot := newDot()
			sum := widget.NewLabel("summary")
			sum.Truncation = fyne.TextTruncateEllipsis
			sum.SizeName = theme.SizeNameCaptionText
			name := bold("name")
			name.Truncation = fyne.TextTruncateEllipsis
			// The summary close under the name: the labels' own padding
			// is room enough.
			text := container.New(layout.NewCustomPaddedVBoxLayout(-2*theme.Padding()), name, sum)
			return container.NewBorder(nil, nil, dot, nil, text)
		},
		func(id widget.ListItemID, o fyne.CanvasObject) {
			if id < 0 || id >= len(sp.items) {
				return
			}
			st := sp.items[id]
			row := o.(*fyne.Container)
			text := row.Objects[0].(*fyne.Container)
			dot := row.Objects[1].(*fyne.Container).Objects[0].(*fyne.Container).Objects[0].(*canvas.Circle)
			setDot(dot, st.State)
			name, sum := text.Objects[0].(*widget.Label), text.Objects[1].(*widget.Label)
			if name.Text != st.Name {
				name.SetText(st.Name)
			}
			if s := summary(st); sum.Text != s {
				sum.SetText(s)
			}
			imp := summaryImportance(st.State)
			if st.Broken {
				imp = widget.DangerImportance
			}
			if sum.Importance != imp {
				sum.Importance = imp
				sum.Refresh()
			}
		})
	l.OnSelected = func(id widget.ListItemID) {
		if id >= 0 && id < len(sp.items) {
			sp.choose(sp.items[id].Name)
		}
	}
	return l
}

// summaryImportance colours the summary of a server that needs the user.
func summaryImportance(state hostapi.State) widget.Importance {
	switch state.Severity() {
	case hostapi.SeverityFailed:
		return widget.DangerImportance
	case hostapi.SeverityWarning:
		return widget.WarningImportance
	}
	return widget.MediumImportance
}

// problemText is what is wrong with a server, for a person: the problems
// of its entry, else its last error, else why its command does not
// resolve.
func problemText(st hostapi.ServerStatus) string {
	switch {
	case st.State == hostapi.StateSigningIn:
		// The user is signing in: the last error (why it needed a
		// sign-in) is not a problem now.
		return ""
	case len(st.Problems) > 0:
		return phrase.Problems(st.Problems)
	case len(wrongIssues(st)) > 0 && st.State != hostapi.StateRunning:
		return phrase.Problems(wrongIssues(st)) // with their remedies, in words
	case st.LastError != "" && st.State != hostapi.StateRunning:
		return termtext.Escape(st.LastError) // it may quote the server's stderr
	case st.ResolveError != "" && st.State != hostapi.StateRunning:
		return termtext.Escape(st.ResolveError)
	}
	return ""
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

// serverAction calls a method on one server and reports the outcome: an
// error, or once the host took the request, the server's state, which the
// status line then follows (showFollowed) until another message replaces
// it. The host's answer says only that it took the request: a server that
// was started may fail a moment later, and one that was stopped is
// "stopping" for a while, so a fixed word ("started") would soon disagree
// with the header and the list.
func (w *Window) serverAction(method func(ctx context.Context, name string) error, name string) {
	w.setStatus("", false)
	w.call(func(ctx context.Context) error { return method(ctx, name) }, func(err error) {
		if err != nil {
			w.showErr(err)
			return
		}
		w.followed = name
		w.showFollowed()
	})
}

// showFollowed shows the state of the server the status line follows
// after an action on it, in the colour the header gives it where that
// says something went wrong.
func (w *Window) showFollowed() {
	if w.followed == "" || w.statusLine == nil {
		return
	}
	w.statusLine.Importance = widget.MediumImportance
	defer w.fitBottom() // the row below the page shows with its line
	st, ok := statusOf(w.snap, w.followed)
	if !ok {
		setText(w.statusLine, w.followed+": removed")
		return
	}
	if imp := stateImportance(st.State); imp == widget.DangerImportance {
		w.statusLine.Importance = imp
	}
	setText(w.statusLine, fmt.Sprintf("%s: %s", st.Name, st.State.Label()))
}

// statusOf returns a server's status in a snapshot.
func statusOf(s client.Snapshot, name string) (hostapi.ServerStatus, bool) {
	for _, st := range s.Servers {
		if st.Name == name {
			return st, true
		}
	}
	return hostapi.ServerStatus{}, false
}

// wrongIssues are the server's issues but the sandbox's note (the strict
// sandbox of a server given folders), which the Overview's Sandbox row
// says (overview.go): it stops nothing.
func wrongIssues(st hostapi.ServerStatus) []hostapi.Problem {
	var out []hostapi.Problem
	for _, p := range st.Issues {
		if !isSandboxNote(p) {
			out = append(out, p)
		}
	}
	return out
}

func isSandboxNote(p hostapi.Problem) bool { return p.Warning && p.Key == "sandbox" }
