package tray

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Actions are what the menu's items do. [BuildMenu] disables an item whose
// func is nil. [HostActions] implements them through the host's API; a
// test passes its own.
type Actions struct {
	Start    func(name string)
	Stop     func(name string)
	Restart  func(name string)
	ShowLogs func(name string)
	// Review shows the review of a server's tools held for review (the
	// menu's "NAME: 1 tool changed: review").
	Review func(name string)
	// SignIn starts a remote server's sign-in and opens its page in the
	// browser (the menu's "NAME: sign in needed", signin.go).
	SignIn   func(name string)
	Open     func() // shows the window
	StartAll func()
	StopAll  func()

	// OpenApprovals shows the window's Approvals place (nil: Open).
	OpenApprovals func()
	// Decide answers a waiting call (a hostapi.Decide* decision), from
	// a notification's Allow or Deny; nil: the notifications have no
	// buttons.
	Decide func(id, decision string)

	// StopService is "Stop background service", shown when the host says
	// it runs under the OS service manager (the snapshot's Info.Service);
	// Quit then closes the tray only.
	StopService func()

	// Quit is the quit item's action (see [QuitPlan] for what it does).
	Quit func()
}

// The fixed labels of the menu.
const (
	LabelOpen          = "Open Switchboard"
	LabelStartAll      = "Start all"
	LabelStopAll       = "Stop all"
	LabelStopService   = "Stop background service"
	LabelQuit          = "Quit"
	LabelQuitAndStop   = "Quit and stop all servers"
	LabelStart         = "Start"
	LabelStop          = "Stop"
	LabelRestart       = "Restart"
	LabelShowLogs      = "Open logs"
	LabelNotConnected  = SummaryNotConnected
	LabelNoServers     = SummaryNoServers
	LabelConfigInvalid = "The config file has an error: the last good config is in force"
)

// maxDetail bounds an error shown as a menu line.
const maxDetail = 80

// BuildMenu builds the tray menu from the host's state: a header, the
// health in words ([Summary], a disabled item); one item per server
// ("name — state"), each with a submenu (Start, Stop, Restart, Open logs,
// those that make no sense in its state disabled; a failed server's, or
// one that waits for the user, begins with its reason, [FailureReason]);
// Open Switchboard;
// Start all and Stop all; Stop background service when the host is a
// service; and Quit, the last item, marked IsQuit so that Fyne adds no
// second one ("Quit and stop all servers" when it stops a host started on
// demand, [QuitLabel]). Not connected, it says so (with the reason) above Open
// Switchboard and Quit. An invalid config file adds a line saying that
// the last good one is in force. Below the servers, a line for each AI
// app in apps (those connected now): its tool count and tokens
// ([AppLabel]).
func BuildMenu(s client.Snapshot, apps []hostapi.AppCost, a Actions) *fyne.Menu {
	var items []*fyne.MenuItem
	items = append(items, disabled(Summary(s)))
	if !s.Connected {
		if s.Err != "" {
			items = append(items, disabled(short(s.Err)))
		}
		// The window shows the same, and what to do about it.
		items = append(items, fyne.NewMenuItemSeparator(), item(LabelOpen, a.Open, true),
			fyne.NewMenuItemSeparator(), quitItem(s, a))
		return fyne.NewMenu("Switchboard", items...)
	}
	if it := approvalsItem(s, a); it != nil { // approvals.go
		items = append(items, it)
	}
	if it := questionsItem(s, a); it != nil { // approvals.go
		items = append(items, it)
	}
	items = append(items, fyne.NewMenuItemSeparator())
	if e := s.Info.Config.Error; e != "" {
		items = append(items, disabled(LabelConfigInvalid), disabled(short(e)), fyne.NewMenuItemSeparator())
	}
	if lines := appConfigLines(s.Info.AppConfigs); len(lines) > 0 {
		for _, l := range lines {
			items = append(items, disabled(l))
		}
		items = append(items, fyne.NewMenuItemSeparator())
	}
	if lines := updatesLines(s); len(lines) > 0 { // registry.go
		for _, l := range lines {
			items = append(items, disabled(l))
		}
		items = append(items, fyne.NewMenuItemSeparator())
	}
	if held := append(signInItems(s, a), heldItems(s, a)...); len(held) > 0 {
		items = append(items, held...)
		items = append(items, fyne.NewMenuItemSeparator())
	}
	anyStartable, anyStoppable := false, false
	for _, st := range s.Servers {
		items = append(items, serverItem(st, a))
		anyStartable = anyStartable || st.State.CanStart()
		anyStoppable = anyStoppable || st.State.CanStop()
	}
	if len(s.Servers) > 0 {
		items = append(items, fyne.NewMenuItemSeparator())
	}
	if len(apps) > 0 { // apps.go
		items = append(items, appItems(apps)...)
		items = append(items, fyne.NewMenuItemSeparator())
	}
	items = append(items,
		item(LabelOpen, a.Open, true),
		fyne.NewMenuItemSeparator(),
		item(LabelStartAll, a.StartAll, anyStartable),
		item(LabelStopAll, a.StopAll, anyStoppable),
		fyne.NewMenuItemSeparator(),
	)
	if s.Info.Service {
		items = append(items, item(LabelStopService, a.StopService, true))
	}
	items = append(items, quitItem(s, a))
	return fyne.NewMenu("Switchboard", items...)
}

// ServerLabel is a server's line in the menu: "name — state", with the
// tool count while it runs, and "name — broken — restarting" for a
// broken server (ServerStatus.Broken).
func ServerLabel(st hostapi.ServerStatus) string {
	state := st.State.Label()
	if st.Broken {
		// Its retries cannot succeed until the user acts: its submenu
		// says why ([FailureReason]) and what to do ([BrokenRemedy]).
		state = "broken — " + state
	}
	if st.State == hostapi.StateRunning {
		if st.Tools == 1 {
			state = "running (1 tool)"
		} else {
			state = fmt.Sprintf("running (%d tools)", st.Tools)
		}
	}
	return st.Name + " — " + state
}

func serverItem(st hostapi.ServerStatus, a Actions) *fyne.MenuItem {
	name := st.Name
	with := func(f func(string)) func() {
		if f == nil {
			return nil
		}
		return func() { f(name) }
	}
	var items []*fyne.MenuItem
	if reason := FailureReason(st); reason != "" {
		items = append(items, disabled(reason))
		if r := BrokenRemedy(st); r != "" {
			items = append(items, disabled(short(r)))
		}
		items = append(items, fyne.NewMenuItemSeparator())
	}
	items = append(items,
		item(LabelStart, with(a.Start), st.State.CanStart()),
		item(LabelStop, with(a.Stop), st.State.CanStop()),
		item(LabelRestart, with(a.Restart), st.State.CanRestart()),
		item(LabelShowLogs, with(a.ShowLogs), true),
	)
	sub := fyne.NewMenu(name, items...)
	it := fyne.NewMenuItem(ServerLabel(st), nil)
	it.ChildMenu = sub
	return it
}

// item is an item that is enabled when on and it has an action.
func item(label string, action func(), on bool) *fyne.MenuItem {
	it := fyne.NewMenuItem(label, action)
	it.Disabled = !on || action == nil
	return it
}

func disabled(label string) *fyne.MenuItem {
	return &fyne.MenuItem{Label: label, Disabled: true}
}

// quitItem is always enabled: with no action, Fyne's own quit runs. Its
// label says whether it stops the servers too ([QuitLabel]).
func quitItem(s client.Snapshot, a Actions) *fyne.MenuItem {
	it := fyne.NewMenuItem(QuitLabel(s.Connected, s.Info), a.Quit)
	it.IsQuit = true
	return it
}

// short is the first line of s, cut at maxDetail characters.
func short(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if utf8.RuneCountInString(s) > maxDetail {
		r := []rune(s)
		s = string(r[:maxDetail-1]) + "…"
	}
	return s
}

// LabelAppConfigsHint follows the lines of entries Switchboard did not
// write into the connected apps' configs: where the remedy is.
const LabelAppConfigsHint = "'switchboard clients list' says what to do"

// maxAppConfigLines bounds the lines of entries Switchboard did not write.
const maxAppConfigLines = 3

// appConfigLines are the menu's lines for the entries of the connected
// apps' configs that Switchboard did not write (Info.AppConfigs: a server
// planted straight into an app's config), at most maxAppConfigLines and
// "and N more", then the hint; none without such entries.
func appConfigLines(alerts []hostapi.AppConfigAlert) []string {
	if len(alerts) == 0 {
		return nil
	}
	var out []string
	for i, al := range alerts {
		if i == maxAppConfigLines {
			out = append(out, fmt.Sprintf("⚠ and %d more", len(alerts)-i))
			break
		}
		out = append(out, short("⚠ "+al.Line))
	}
	return append(out, LabelAppConfigsHint)
}
