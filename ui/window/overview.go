package window

import (
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
)

// overview is a server's Overview tab: its state, its process, its
// command as the host resolves it, the protocol version it speaks, and
// what is wrong with it in words, with the fix as a button where the
// window can carry it out.
type overview struct {
	d                       *serverDetail
	state, process, offers  *widget.Label
	command, runs, protocol *widget.Label
	cost, total             *widget.Label // its token cost, and every server's (cost.go)
	sandbox, sandboxNote    *widget.Label // what confines it (the host's line), and the strict note
	problemHead             *widget.Label
	problem                 *widget.Label
	fix                     *widget.Button // the remedy of what the server needs (its Issues), when the window can do it
	edit                    *widget.Button // "Edit the command" / "Fix the entry": the Settings tab
	logs                    *widget.Button // "Show logs": the Logs tab
	review                  *widget.Button // "1 tool changed: review": the review page (review.go)
	fixes                   *fyne.Container
	// A remote server (remote.go): "Address" where a local one has
	// "Command", its Sign in / Sign out, and whether its entry has
	// "oauth" (nil until known).
	commandHead     *widget.Label
	signIn, signOut *widget.Button
	oauth           *bool
	askedOAuth      bool
	obj             fyne.CanvasObject
}

func newOverview(d *serverDetail) *overview {
	o := &overview{d: d}
	o.state = widget.NewLabel("")
	o.process = widget.NewLabel("")
	o.offers = widget.NewLabel("")
	o.command = selectableLabel("")
	o.command.Wrapping = fyne.TextWrapBreak
	o.runs = selectableLabel("")
	o.runs.Wrapping = fyne.TextWrapBreak
	o.protocol = widget.NewLabel("")
	o.cost = widget.NewLabel("")
	o.cost.Wrapping = fyne.TextWrapWord
	o.total = hintLabel("")
	o.sandbox = widget.NewLabel("")
	o.sandbox.Wrapping = fyne.TextWrapWord
	o.sandboxNote = errorLabel()
	o.sandboxNote.Importance = widget.WarningImportance
	o.problemHead = bold("What is wrong")
	o.problem = errorLabel()
	o.fix = widget.NewButton("", nil)
	o.fix.Importance = widget.HighImportance
	o.fix.Hide()
	o.edit = widget.NewButtonWithIcon("Open Settings", theme.SettingsIcon(), func() { d.tabs.SelectIndex(tabSettings) })
	o.edit.Hide()
	o.logs = widget.NewButtonWithIcon("Show logs", theme.DocumentIcon(), func() { d.tabs.SelectIndex(tabLogs) })
	o.logs.Hide()
	o.review = widget.NewButtonWithIcon("", theme.WarningIcon(), func() { d.w.openReview(d.name) })
	o.review.Importance = widget.WarningImportance
	o.review.Hide()
	o.commandHead = bold("Command")
	o.signIn = widget.NewButtonWithIcon("Sign in", theme.LoginIcon(), func() { d.w.signIn(d.name) })
	o.signIn.Importance = widget.HighImportance
	o.signIn.Hide()
	o.signOut = widget.NewButtonWithIcon("Sign out", theme.LogoutIcon(), func() { d.w.signOut(d.name) })
	o.signOut.Hide()
	o.fixes = container.NewHBox(o.signIn, o.review, o.fix, o.edit, o.logs, o.signOut)
	grid := formGrid(
		bold("State"), o.state,
		bold("Process"), o.process,
		bold("Offers"), o.offers,
		o.commandHead, o.command,
		bold("Runs"), o.runs,
		bold("Protocol"), o.protocol,
		bold("Sandbox"), container.NewVBox(o.sandbox, o.sandboxNote),
		bold("Tokens"), container.NewVBox(o.cost, o.total),
	)
	o.obj = pageScroll(container.NewVBox(grid, o.problemHead, o.problem, o.fixes))
	return o
}

// update shows a server's status.
func (o *overview) update(st hostapi.ServerStatus, now time.Time, connected bool) {
	running := st.State == hostapi.StateRunning
	state := st.State.Label()
	switch {
	case running && !st.StartedAt.IsZero():
		state += ", for " + uptime(now.Sub(st.StartedAt))
	case st.State == hostapi.StateRestarting && !st.NextAttempt.IsZero() && st.NextAttempt.After(now):
		state += ", next attempt in " + uptime(st.NextAttempt.Sub(now))
	case st.UserStopped && st.State == hostapi.StateStopped:
		state += " by you"
	}
	if st.Preparing != "" {
		state += " (" + st.Preparing + ")"
	}
	o.state.Text = state
	o.state.Importance = stateImportance(st.State)
	if st.Broken { // it retries, but cannot start until the user acts (its problem below says why)
		o.state.Text = "broken — " + state
		o.state.Importance = widget.DangerImportance
	}
	o.state.Refresh()

	var proc []string
	if st.PID > 0 {
		proc = append(proc, fmt.Sprintf("pid %d", st.PID))
	} else {
		proc = append(proc, "not running")
	}
	proc = append(proc, plural(st.Restarts, "restart"))
	o.process.SetText(strings.Join(proc, " · "))

	if running {
		o.offers.SetText(strings.Join([]string{plural(st.Tools, "tool"), plural(st.Prompts, "prompt"), plural(st.Resources, "resource")}, " · "))
	} else {
		o.offers.SetText("– (while it runs)")
	}
	o.command.SetText(commandLine(st.Command, st.Args))
	switch {
	case st.Resolved != "":
		o.runs.Importance = widget.MediumImportance
		o.runs.SetText(st.Resolved)
	case st.ResolveError != "":
		o.runs.Importance = widget.DangerImportance
		o.runs.SetText("not found")
	default:
		o.runs.Importance = widget.MediumImportance
		o.runs.SetText("–")
	}
	switch {
	case st.ProtocolVersion != "":
		o.protocol.SetText("MCP " + st.ProtocolVersion)
	default:
		o.protocol.SetText("– (known once it runs)")
	}

	o.showSandbox(st)
	o.showRemote(st, connected) // remote.go
	o.showCost(st)              // cost.go

	problem := problemText(st)
	if st.State == hostapi.StateFailed && st.ResolveError != "" && !st.ResolveInLastError && st.LastError != "" {
		problem += "\n" + termtext.Escape(st.ResolveError)
	}
	// In the colour of the state's severity: a server that waits for the
	// user (a secret) is amber, as its state, not a failure's red.
	o.problem.Importance = widget.DangerImportance
	if st.State.Severity() == hostapi.SeverityWarning {
		o.problem.Importance = widget.WarningImportance
	}
	setText(o.problem, problem)
	o.offerFixes(st, connected)
	if problem == "" {
		o.problemHead.Hide()
	} else {
		o.problemHead.Show()
	}
}

// offerFixes offers what fixes the server: the remedy of what it needs
// from the user (its Issues: the secret it waits for), the Settings tab
// for a command that is not found or an invalid entry, the Logs tab for a
// server that failed after its command was found.
func (o *overview) offerFixes(st hostapi.ServerStatus, connected bool) {
	o.fix.Hide()
	for _, p := range st.Issues {
		if p.Remedy == nil || p.Remedy.Kind == hostapi.RemedySignIn {
			continue // a sign-in is the Sign in button's (showRemote)
		}
		if label, do, ok := o.d.w.remedyAction(*p.Remedy); ok && connected {
			o.fix.SetText(label)
			o.fix.OnTapped = do
			o.fix.Show()
			break
		}
	}
	switch {
	case st.State == hostapi.StateInvalid:
		o.edit.SetText("Fix the entry in Settings")
		o.edit.Show()
	case st.ResolveError != "" && st.State != hostapi.StateRunning:
		o.edit.SetText("Change the command in Settings")
		o.edit.Show()
	default:
		o.edit.Hide()
	}
	// A command that is not found ran nothing, so its logs have nothing
	// to say about it: the fix is the command (o.edit).
	if (st.State == hostapi.StateFailed || st.State == hostapi.StateRestarting) && st.ResolveError == "" {
		o.logs.Show()
	} else {
		o.logs.Hide()
	}
	if badge := phrase.HeldBadge(st.Held); badge != "" {
		o.review.SetText(badge)
		o.review.Show()
	} else {
		o.review.Hide()
	}
	o.fixes.Refresh()
}

// showSandbox says what confines the server: the host's line (what
// 'switchboard status' prints, hostapi.SandboxStatus.Line), and the note
// of a strict sandbox that gives none of the folders its arguments name.
func (o *overview) showSandbox(st hostapi.ServerStatus) {
	sb := st.Sandbox
	o.sandbox.Importance = widget.MediumImportance
	switch {
	case st.URL != "":
		o.sandbox.Text = "– (a remote server runs elsewhere)"
	case sb.Line() != "":
		o.sandbox.Text = sb.Line()
		if sb.Unconfined {
			o.sandbox.Importance = widget.WarningImportance
		}
	case sb != nil && sb.Unavailable:
		o.sandbox.Text = "not available on this machine, so it is not started (What is wrong says more)"
		o.sandbox.Importance = widget.WarningImportance
	case st.PID > 0 || st.State == hostapi.StateRunning:
		o.sandbox.Text = "off: it runs with all your rights"
	default:
		o.sandbox.Text = "– (known once it runs)"
	}
	o.sandbox.Refresh()
	var notes []string
	for _, p := range st.Issues {
		if isSandboxNote(p) { // list.go
			notes = append(notes, phrase.Beside(p))
		}
	}
	setText(o.sandboxNote, strings.Join(notes, "\n"))
}
