// Package tray is Switchboard's system tray: an icon that shows the host's
// overall health, a tooltip and a menu header that say it in words, a menu
// built from the host's state, and a desktop notification (signed
// "Switchboard", [Notify]) when a server fails for good. Like the rest of
// the UI it is a client of the host (through [client.Live]); it owns no
// server.
//
// [BuildMenu], [Health], [Summary], [FailureReason] and [QuitPlan] are
// plain functions of the host's state, tested without a display; [Tray]
// applies them to a Fyne app as the state changes, and [HostActions]
// carries the menu's actions out through the host's API.
package tray

import (
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// DefaultSettle is how long a wake-up waits for the rest of a burst.
const DefaultSettle = 30 * time.Millisecond

// Tray keeps a Fyne app's tray icon and menu in step with the host. The
// zero value is ready; set the fields before Run.
type Tray struct {
	// Settle is how long Run waits after a wake-up before it reads the
	// state, so that a burst of events spread over a few milliseconds
	// costs one rebuild (default DefaultSettle; negative: no wait).
	Settle time.Duration
	// Notify sends a desktop notification (default: [Notify], signed
	// "Switchboard").
	Notify func(*fyne.Notification)
	// NotifyApproval notifies a call that waits for the user (default:
	// [NotifyApproval] when Notify is nil, else a plain notification
	// through Notify).
	NotifyApproval func(hostapi.Approval, Actions)
	// OnRebuild, if set, is called after each rebuild with the state shown
	// (tests count rebuilds with it).
	OnRebuild func(client.Snapshot)
	// AppsEvery is how often the tray asks the host which AI apps are
	// connected, and what each sees (default [DefaultAppsEvery];
	// negative: never).
	AppsEvery time.Duration
	// Host shows the icon and menu. Nil: the app given to Run, when it is
	// a [desktop.App] (Fyne's own tray), changed on Fyne's UI thread. A
	// Host set here (a [Systray]) is called from the follower's goroutine
	// and must be safe for that. A Host that is a [TooltipHost] shows the
	// tooltip too; Fyne's tray has no method for it, and gets it from
	// fyne.io/systray, which it is made of.
	Host Host

	once, closeOnce sync.Once
	done            chan struct{}
	tipMu           sync.Mutex // guards tip (read when the app starts)

	// The follower's own (the first update runs before it starts).
	shown   string                   // the menu last set (its signature)
	icon    Level                    // the icon last set
	tip     string                   // the tooltip last set
	started bool                     // the first rebuild happened
	hostPID int                      // the host the states below belong to
	states  map[string]hostapi.State // each server's last state
	failed  map[string]time.Time     // each failed server's FailedAt, as last seen

	asked map[string]bool // the approval requests notified (approvals.go)
	// questioned are the servers' questions notified (approvals.go).
	questioned map[string]bool
	// The registry notices notified (registry.go): the host's pid and the
	// last notice's ID.
	noticed    bool
	noticePID  int
	lastNotice int
	// costs gives the connected apps' costs (the source, when it can;
	// apps.go); apps are the last it gave.
	costs coster
	apps  []hostapi.AppCost
	// notifyApproval notifies a waiting call with buttons (nil: a plain
	// notification through notify).
	notifyApproval func(hostapi.Approval, Actions)
}

func (t *Tray) init() { t.once.Do(func() { t.done = make(chan struct{}) }) }

// Close stops following the host. It is safe to call more than once.
func (t *Tray) Close() {
	t.init()
	t.closeOnce.Do(func() { close(t.done) })
}

// Run shows the host's state in the app's tray until Close. If the app
// has a tray (a [desktop.App]), Run sets its icon and menu at once, then
// returns, and a goroutine follows live.Changed: it rebuilds them once per
// wake-up, however many events the wake-up stands for, and only when what
// they show changed (the changes go through fyne.DoAndWait). It sends a
// desktop notification when a server fails for good.
//
// Call Run once, on the main goroutine, before the app's Run: Fyne starts
// the tray only if it has a menu (or a tray window) when the app starts.
func (t *Tray) Run(a fyne.App, live *client.Live, actions Actions) {
	t.start(a, live, actions)
}

// Host is a tray that shows an icon and a menu: a [desktop.App], or a
// [Systray].
type Host interface {
	SetSystemTrayIcon(fyne.Resource)
	SetSystemTrayMenu(*fyne.Menu)
}

// TooltipHost is a [Host] that shows a tooltip over its icon.
type TooltipHost interface {
	SetSystemTrayTooltip(string)
}

// source is what Run reads of a [client.Live].
type source interface {
	Snapshot() client.Snapshot
	Changed() <-chan struct{}
}

// start sets the tray now and follows src in a goroutine; the returned
// channel closes when that goroutine has returned.
func (t *Tray) start(a fyne.App, src source, actions Actions) <-chan struct{} {
	t.init()
	var desk Host
	do := fyne.DoAndWait
	if t.Host != nil {
		desk, do = t.Host, func(f func()) { f() }
	} else if d, ok := a.(desktop.App); ok {
		desk = d
	}
	notify := t.Notify
	if notify == nil {
		notify = func(n *fyne.Notification) { Notify(a, n) }
		// A waiting call's notification has Allow and Deny buttons where
		// the desktop shows them.
		t.notifyApproval = func(ap hostapi.Approval, actions Actions) { NotifyApproval(a, ap, actions) }
	}
	if t.NotifyApproval != nil {
		t.notifyApproval = t.NotifyApproval
	}
	if desk != nil && t.Host == nil {
		// Fyne's tray: one menu for good (see fyneTray).
		ft := &fyneTray{Host: desk}
		desk = ft
		if _, ok := ft.Host.(TooltipHost); !ok {
			// The tooltip through fyne.io/systray, again once the app
			// runs (a tray not yet up drops it).
			a.Lifecycle().SetOnStarted(func() {
				if tip := t.tooltip(); tip != "" {
					setFyneTooltip(tip)
				}
			})
		}
	}
	settle := t.Settle
	if settle == 0 {
		settle = DefaultSettle
	}
	if c, ok := src.(coster); ok && t.AppsEvery >= 0 {
		t.costs = c
	}
	every := t.AppsEvery
	if every <= 0 {
		every = DefaultAppsEvery
	}
	tick := time.NewTicker(every)
	if t.costs == nil {
		tick.Stop()
	}
	// The first time in the caller's goroutine: before the app runs, Fyne
	// applies it directly (and so starts the tray).
	t.update(desk, src.Snapshot(), actions, notify, func(f func()) { f() })
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		defer tick.Stop()
		for {
			select {
			case <-t.done:
				return
			case <-tick.C:
				// Which apps are connected: no event says it.
				t.update(desk, src.Snapshot(), actions, notify, do)
				continue
			case <-src.Changed():
			}
			if settle > 0 {
				timer := time.NewTimer(settle)
				select {
				case <-t.done:
					timer.Stop()
					return
				case <-timer.C:
				}
			}
			// What changed during the wait is in the snapshot below: drop
			// its wake-up too.
			select {
			case <-src.Changed():
			default:
			}
			t.update(desk, src.Snapshot(), actions, notify, do)
		}
	}()
	return ended
}

// update notifies new failures and rebuilds the tray if what it shows
// changed.
func (t *Tray) update(desk Host, s client.Snapshot, actions Actions, notify func(*fyne.Notification), do func(func())) {
	for _, st := range t.newlySignIn(s) { // signin.go; before newlyFailed, which moves the states on
		notify(SignInNotification(st))
	}
	for _, st := range t.newlyFailed(s) {
		notify(FailureNotification(st))
	}
	for _, n := range t.newlyNoticed(s) { // registry.go
		notify(RegistryNotification(n))
	}
	for _, ap := range t.newlyWaiting(s) { // approvals.go
		if t.notifyApproval != nil {
			t.notifyApproval(ap, actions)
		} else {
			notify(ApprovalNotification(ap))
		}
	}
	for _, q := range t.newQuestions(s) { // approvals.go
		notify(QuestionNotification(q))
	}
	if t.started { // not the first, before the app runs: it would wait for the host
		t.apps = fetchApps(t.costs, s)
	}
	m := BuildMenu(s, t.apps, actions)
	sig, level, tip := signature(m), Health(s), Tooltip(s)
	if t.started && sig == t.shown && level == t.icon && tip == t.tooltip() {
		return
	}
	iconChanged := !t.started || level != t.icon
	menuChanged := !t.started || sig != t.shown
	tipChanged := !t.started || tip != t.tooltip()
	t.started, t.shown, t.icon = true, sig, level
	t.tipMu.Lock()
	t.tip = tip
	t.tipMu.Unlock()
	if desk != nil {
		do(func() {
			if iconChanged {
				desk.SetSystemTrayIcon(Icon(level))
			}
			if menuChanged {
				desk.SetSystemTrayMenu(m)
			}
			if th, ok := desk.(TooltipHost); ok && tipChanged {
				th.SetSystemTrayTooltip(tip)
			}
		})
	}
	if t.OnRebuild != nil {
		t.OnRebuild(s)
	}
}

// tooltip is the tooltip last set.
func (t *Tray) tooltip() string {
	t.tipMu.Lock()
	defer t.tipMu.Unlock()
	return t.tip
}

// fyneTray is Fyne's tray, with the tooltip that Fyne has no method for,
// and one menu for good: each rebuild replaces the items of the menu
// given first. Fyne's tray, once up (when the app's loop starts), shows
// again the menu it was first given; a new menu per rebuild would leave
// it showing the first one ("Not connected") when the host's state came
// before the loop started (a slow start), until the next change. Its
// methods run on Fyne's UI thread, as that late showing does.
type fyneTray struct {
	Host
	menu *fyne.Menu
}

func (f *fyneTray) SetSystemTrayMenu(m *fyne.Menu) {
	if f.menu == nil {
		f.menu = m
	} else {
		f.menu.Label, f.menu.Items = m.Label, m.Items
	}
	f.Host.SetSystemTrayMenu(f.menu)
}

func (f *fyneTray) SetSystemTrayTooltip(tip string) {
	if th, ok := f.Host.(TooltipHost); ok {
		th.SetSystemTrayTooltip(tip)
		return
	}
	setFyneTooltip(tip)
}

// newlyFailed returns the servers that became "failed" since the last
// snapshot of the same host: from another state, or failed again (a new
// FailedAt: started and failed for good between two snapshots, which a
// user's Start on a server that cannot run does in well under one
// rebuild). The first snapshot of a host is the baseline:
// a server that had already failed when the tray (re)connected is shown by
// the icon, not notified. A disconnection keeps the last states, so a
// reconnection to the same host notifies nothing twice.
func (t *Tray) newlyFailed(s client.Snapshot) []hostapi.ServerStatus {
	if !s.Connected {
		return nil
	}
	baseline := t.states == nil || s.Info.PID != t.hostPID
	var out []hostapi.ServerStatus
	next := make(map[string]hostapi.State, len(s.Servers))
	failed := map[string]time.Time{}
	for _, st := range s.Servers {
		next[st.Name] = st.State
		if st.State != hostapi.StateFailed {
			continue
		}
		failed[st.Name] = st.FailedAt
		if !baseline && (t.states[st.Name] != hostapi.StateFailed || !st.FailedAt.Equal(t.failed[st.Name])) {
			out = append(out, st)
		}
	}
	t.states, t.failed, t.hostPID = next, failed, s.Info.PID
	return out
}

// FailureNotification is the desktop notification for a server that
// failed for good: its name, and the reason in words (as the menu says
// it, [FailureReason], but not cut short).
func FailureNotification(st hostapi.ServerStatus) *fyne.Notification {
	reason := termtext.Escape(reasonOf(st)) // it may quote the server's stderr
	return fyne.NewNotification(fmt.Sprintf("Server %q failed", st.Name),
		reason+".\nIt is not restarted again: start it from the Switchboard menu once the cause is fixed.")
}

// signature is a menu's text: labels, flags and structure. Two menus with
// the same signature look and act the same (actions follow labels).
func signature(m *fyne.Menu) string {
	var b strings.Builder
	var walk func(m *fyne.Menu, depth int)
	walk = func(m *fyne.Menu, depth int) {
		for _, it := range m.Items {
			fmt.Fprintf(&b, "%d|%s|%t|%t|%t|%t\n", depth, it.Label, it.Disabled, it.IsSeparator, it.IsQuit, it.Checked)
			if it.ChildMenu != nil {
				walk(it.ChildMenu, depth+1)
			}
		}
	}
	walk(m, 0)
	return b.String()
}
