package tray

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// recorder is an Actions whose funcs record their calls.
type recorder struct {
	mu    sync.Mutex
	calls []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	r.calls = append(r.calls, s)
	r.mu.Unlock()
}

func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.calls
	r.calls = nil
	return c
}

func (r *recorder) actions() Actions {
	named := func(verb string) func(string) { return func(n string) { r.add(verb + " " + n) } }
	plain := func(verb string) func() { return func() { r.add(verb) } }
	return Actions{
		Start: named("start"), Stop: named("stop"), Restart: named("restart"), ShowLogs: named("logs"),
		Open: plain("open"), StartAll: plain("start-all"), StopAll: plain("stop-all"),
		StopService: plain("stop-service"), Quit: plain("quit"),
	}
}

// find returns the item at a path of labels.
func find(t *testing.T, m *fyne.Menu, path ...string) *fyne.MenuItem {
	t.Helper()
	for i, label := range path {
		var found *fyne.MenuItem
		for _, it := range m.Items {
			if it.Label == label {
				found = it
				break
			}
		}
		if found == nil {
			t.Fatalf("no item %q in %v; the menu:\n%s", label, path[:i], signature(m))
		}
		if i == len(path)-1 {
			return found
		}
		if found.ChildMenu == nil {
			t.Fatalf("item %q has no submenu", label)
		}
		m = found.ChildMenu
	}
	return nil
}

// labels lists a menu's top-level labels ("---" for a separator).
func labels(m *fyne.Menu) []string {
	var out []string
	for _, it := range m.Items {
		if it.IsSeparator {
			out = append(out, "---")
		} else {
			out = append(out, it.Label)
		}
	}
	return out
}

// checkQuit: exactly one item is the quit item, and it is the last one
// (Fyne looks only at the last item before it adds a quit item of its own).
func checkQuit(t *testing.T, m *fyne.Menu) {
	t.Helper()
	n := 0
	var walk func(*fyne.Menu)
	walk = func(m *fyne.Menu) {
		for _, it := range m.Items {
			if it.IsQuit {
				n++
			}
			if it.ChildMenu != nil {
				walk(it.ChildMenu)
			}
		}
	}
	walk(m)
	last := m.Items[len(m.Items)-1]
	if n != 1 || !last.IsQuit || last.Label != LabelQuit && last.Label != LabelQuitAndStop || last.Disabled {
		t.Fatalf("%d quit items; the last item: %+v", n, last)
	}
}

func srv(name string, state hostapi.State, tools int) hostapi.ServerStatus {
	return hostapi.ServerStatus{Name: name, State: state, Tools: tools}
}

func connected(servers ...hostapi.ServerStatus) client.Snapshot {
	return client.Snapshot{Connected: true, Info: hostapi.Info{PID: 42, Clients: 1, Config: hostapi.ConfigStatus{OK: true}}, Servers: servers}
}

// every state the host reports, one server each.
var allStates = connected(
	srv("broken", hostapi.StateInvalid, 0),
	srv("everything", "running", 13),
	srv("files", "failed", 0),
	srv("git", "starting", 0),
	srv("gone", "stopping", 0),
	srv("memory", "stopped", 0),
	srv("old", hostapi.StateDisabled, 0),
	srv("retry", "restarting", 0),
	srv("sleepy", hostapi.StateSleeping, 0),
	srv("time", "running", 1),
	srv("vault", "waiting for secret", 0),
)

func TestBuildMenuServers(t *testing.T) {
	var r recorder
	m := BuildMenu(allStates, nil, r.actions())
	want := []string{
		"2 running, 3 starting, 1 needs a secret, 2 failed, 1 sleeping, 2 stopped", "---",
		"broken — invalid entry",
		"everything — running (13 tools)",
		"files — failed",
		"git — starting",
		"gone — stopping",
		"memory — stopped",
		"old — disabled",
		"retry — restarting",
		"sleepy — sleeping (starts on first use)",
		"time — running (1 tool)",
		"vault — waiting for secret",
		"---", LabelOpen, "---", LabelStartAll, LabelStopAll, "---", LabelQuit,
	}
	if got := labels(m); !slices.Equal(got, want) {
		t.Fatalf("labels:\n%q\nwant\n%q", got, want)
	}
	checkQuit(t, m)
	if !m.Items[0].Disabled {
		t.Fatal("the header is enabled")
	}

	// Which of Start, Stop, Restart each state enables (Open logs: always).
	enabled := map[string][3]bool{
		"broken — invalid entry":                  {false, false, false},
		"everything — running (13 tools)":         {false, true, true},
		"files — failed":                          {true, false, true},
		"git — starting":                          {false, true, true},
		"gone — stopping":                         {false, false, false},
		"memory — stopped":                        {true, false, false},
		"old — disabled":                          {false, false, false},
		"retry — restarting":                      {false, true, true},
		"sleepy — sleeping (starts on first use)": {true, true, false},
		"time — running (1 tool)":                 {false, true, true},
		"vault — waiting for secret":              {false, true, true},
	}
	for label, on := range enabled {
		name, _, _ := strings.Cut(label, " — ")
		for i, verb := range []string{LabelStart, LabelStop, LabelRestart, LabelShowLogs} {
			it := find(t, m, label, verb)
			want := i == 3 || on[i]
			if it.Disabled == want {
				t.Errorf("%s / %s: disabled %v, want %v", label, verb, it.Disabled, !want)
			}
			// Fire it even if disabled: the action must name the server.
			it.Action()
			wantCall := map[string]string{LabelStart: "start", LabelStop: "stop", LabelRestart: "restart", LabelShowLogs: "logs"}[verb] + " " + name
			if got := r.take(); !slices.Equal(got, []string{wantCall}) {
				t.Errorf("%s / %s called %q, want %q", label, verb, got, wantCall)
			}
		}
	}
	for label, call := range map[string]string{LabelOpen: "open", LabelStartAll: "start-all", LabelStopAll: "stop-all", LabelQuit: "quit"} {
		it := find(t, m, label)
		if it.Disabled {
			t.Errorf("%s is disabled", label)
		}
		it.Action()
		if got := r.take(); !slices.Equal(got, []string{call}) {
			t.Errorf("%s called %q, want %q", label, got, call)
		}
	}
}

func TestBuildMenuAllButtons(t *testing.T) {
	var r recorder
	a := r.actions()
	cases := []struct {
		name               string
		servers            []hostapi.ServerStatus
		startAll, stopAll  bool
		wantFirst, notWant string
	}{
		{"all running", []hostapi.ServerStatus{srv("a", "running", 1), srv("b", "running", 2)}, false, true, "a — running (1 tool)", ""},
		{"all stopped", []hostapi.ServerStatus{srv("a", "stopped", 0), srv("b", "failed", 0)}, true, false, "a — stopped", ""},
		{"mixed", []hostapi.ServerStatus{srv("a", "stopped", 0), srv("b", "running", 0)}, true, true, "a — stopped", ""},
		{"only disabled", []hostapi.ServerStatus{srv("a", hostapi.StateDisabled, 0)}, false, false, "a — disabled", ""},
		{"no servers", nil, false, false, LabelOpen, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := BuildMenu(connected(c.servers...), nil, a)
			if m.Items[2].Label != c.wantFirst {
				t.Fatalf("first item under the header %q, want %q", m.Items[2].Label, c.wantFirst)
			}
			if c.servers == nil && m.Items[0].Label != LabelNoServers {
				t.Fatalf("the header says %q with no servers", m.Items[0].Label)
			}
			if d := find(t, m, LabelStartAll).Disabled; d == c.startAll {
				t.Errorf("Start all disabled %v", d)
			}
			if d := find(t, m, LabelStopAll).Disabled; d == c.stopAll {
				t.Errorf("Stop all disabled %v", d)
			}
			checkQuit(t, m)
		})
	}
}

// The quit item says that it stops the servers only when it does: for a
// host started on demand (by this app or a bridge), not for one the user
// started (`switchboard serve` in a terminal) nor for a service's.
func TestBuildMenuQuitLabel(t *testing.T) {
	for _, c := range []struct {
		name              string
		onDemand, service bool
		connected         bool
		want              string
	}{
		{"started on demand", true, false, true, LabelQuitAndStop},
		{"started by the user", false, false, true, LabelQuit},
		{"a service's", false, true, true, LabelQuit},
		{"not connected", true, false, false, LabelQuit},
	} {
		var r recorder
		s := connected(srv("a", "running", 3))
		s.Connected = c.connected
		s.Info.OnDemand, s.Info.Service = c.onDemand, c.service
		m := BuildMenu(s, nil, r.actions())
		checkQuit(t, m)
		last := m.Items[len(m.Items)-1]
		if last.Label != c.want {
			t.Errorf("%s: the quit item is %q, want %q", c.name, last.Label, c.want)
		}
		last.Action()
		if got := r.take(); !slices.Equal(got, []string{"quit"}) {
			t.Errorf("%s: the quit item called %q", c.name, got)
		}
	}
}

func TestBuildMenuService(t *testing.T) {
	var r recorder
	service := connected(srv("a", "running", 3))
	service.Info.Service = true // the host says it is a service's
	m := BuildMenu(service, nil, r.actions())
	want := []string{"1 running", "---", "a — running (3 tools)", "---", LabelOpen, "---", LabelStartAll, LabelStopAll, "---", LabelStopService, LabelQuit}
	if got := labels(m); !slices.Equal(got, want) {
		t.Fatalf("labels %q, want %q", got, want)
	}
	checkQuit(t, m)
	find(t, m, LabelStopService).Action()
	if got := r.take(); !slices.Equal(got, []string{"stop-service"}) {
		t.Fatalf("Stop background service called %q", got)
	}
	// Not a service: no such item.
	if slices.Contains(labels(BuildMenu(connected(srv("a", "running", 3)), nil, r.actions())), LabelStopService) {
		t.Fatal("Stop background service shown for a host that is not a service")
	}
}

func TestBuildMenuNotConnected(t *testing.T) {
	var r recorder
	long := "no Switchboard host is running on /run/user/1000/switchboard/host.sock: dial unix: connect: no such file or directory\nmore"
	for _, c := range []struct {
		err  string
		want []string
	}{
		{"", []string{LabelNotConnected, "---", LabelOpen, "---", LabelQuit}},
		{"connection refused", []string{LabelNotConnected, "connection refused", "---", LabelOpen, "---", LabelQuit}},
		{long, []string{LabelNotConnected, short(long), "---", LabelOpen, "---", LabelQuit}},
	} {
		m := BuildMenu(client.Snapshot{Connected: false, Err: c.err, Servers: allStates.Servers}, nil, r.actions())
		if got := labels(m); !slices.Equal(got, c.want) {
			t.Fatalf("labels %q, want %q", got, c.want)
		}
		for _, it := range m.Items[:len(m.Items)-4] {
			if !it.Disabled {
				t.Errorf("%q is enabled", it.Label)
			}
		}
		// The window says the same, with what to do: Open works.
		find(t, m, LabelOpen).Action()
		if got := r.take(); !slices.Equal(got, []string{"open"}) {
			t.Fatalf("Open called %q", got)
		}
		checkQuit(t, m)
		find(t, m, LabelQuit).Action()
		if got := r.take(); !slices.Equal(got, []string{"quit"}) {
			t.Fatalf("Quit called %q", got)
		}
	}
	if s := short(long); len([]rune(s)) > maxDetail || strings.Contains(s, "\n") || !strings.HasSuffix(s, "…") {
		t.Fatalf("short: %q", s)
	}
}

func TestBuildMenuInvalidConfig(t *testing.T) {
	var r recorder
	s := connected(srv("a", "running", 2))
	s.Info.Config = hostapi.ConfigStatus{OK: false, Error: "config.json: line 3: invalid character '}'"}
	m := BuildMenu(s, nil, r.actions())
	want := []string{"1 running", "---", LabelConfigInvalid, "config.json: line 3: invalid character '}'", "---", "a — running (2 tools)"}
	if got := labels(m)[:6]; !slices.Equal(got, want) {
		t.Fatalf("labels %q, want %q", got, want)
	}
	if !m.Items[2].Disabled || !m.Items[3].Disabled {
		t.Fatal("the config lines are enabled")
	}
	checkQuit(t, m)
	// A valid file: no such line.
	if slices.Contains(labels(BuildMenu(connected(srv("a", "running", 2)), nil, r.actions())), LabelConfigInvalid) {
		t.Fatal("config line shown for a valid config")
	}
}

// TestBuildMenuAppConfigs: an entry Switchboard did not write into a
// connected app's config is a disabled line, with where to find the
// remedy; more than three are summed up; none, no line.
func TestBuildMenuAppConfigs(t *testing.T) {
	var r recorder
	s := connected(srv("a", "running", 2))
	s.Info.AppConfigs = []hostapi.AppConfigAlert{{App: "cursor", Entry: "evil", Line: `Cursor: MCP server "evil" not added by Switchboard`}}
	m := BuildMenu(s, nil, r.actions())
	want := []string{"1 running", "---", `⚠ Cursor: MCP server "evil" not added by Switchboard`, LabelAppConfigsHint, "---", "a — running (2 tools)"}
	if got := labels(m)[:6]; !slices.Equal(got, want) {
		t.Fatalf("labels %q, want %q", got, want)
	}
	if !m.Items[2].Disabled || !m.Items[3].Disabled {
		t.Fatal("the lines are enabled")
	}
	for range 4 {
		s.Info.AppConfigs = append(s.Info.AppConfigs, s.Info.AppConfigs[0])
	}
	if got := labels(BuildMenu(s, nil, r.actions())); !slices.Contains(got, "⚠ and 2 more") || slices.Index(got, LabelAppConfigsHint) != 6 {
		t.Fatalf("five alerts: %q", got)
	}
	if slices.Contains(labels(BuildMenu(connected(srv("a", "running", 2)), nil, r.actions())), LabelAppConfigsHint) {
		t.Fatal("a line without any alert")
	}
}

// A nil action disables its item; Quit stays (Fyne fills in its own
// action for a quit item without one).
func TestBuildMenuNilActions(t *testing.T) {
	m := BuildMenu(allStates, nil, Actions{})
	var walk func(*fyne.Menu)
	walk = func(m *fyne.Menu) {
		for _, it := range m.Items {
			if it.IsQuit || it.IsSeparator || it.ChildMenu != nil {
				if it.ChildMenu != nil {
					walk(it.ChildMenu)
				}
				continue
			}
			if !it.Disabled {
				t.Errorf("%q has no action but is enabled", it.Label)
			}
		}
	}
	walk(m)
	checkQuit(t, m)
}

func TestHealth(t *testing.T) {
	for _, c := range []struct {
		name string
		s    client.Snapshot
		want Level
	}{
		{"disconnected", client.Snapshot{Servers: []hostapi.ServerStatus{srv("a", "running", 0)}}, LevelNone},
		{"no servers", connected(), LevelNone},
		{"all stopped or disabled", connected(srv("a", "stopped", 0), srv("b", hostapi.StateDisabled, 0)), LevelNone},
		{"all running", connected(srv("a", "running", 0), srv("b", "running", 0)), LevelRunning},
		{"running and stopped by the user", connected(srv("a", "running", 0), srv("b", "stopped", 0)), LevelRunning},
		{"one starting", connected(srv("a", "running", 0), srv("b", "starting", 0)), LevelStarting},
		{"one restarting", connected(srv("a", "running", 0), srv("b", "restarting", 0)), LevelStarting},
		{"one stopping", connected(srv("a", "stopping", 0)), LevelStarting},
		{"one failed", connected(srv("a", "running", 0), srv("b", "starting", 0), srv("c", "failed", 0)), LevelFailed},
		{"waiting for a secret", connected(srv("a", "running", 0), srv("b", "waiting for secret", 0)), LevelStarting},
		{"waiting for a secret beside a failure", connected(srv("a", "failed", 0), srv("b", "waiting for secret", 0)), LevelFailed},
		{"invalid entry", connected(srv("a", "running", 0), srv("b", hostapi.StateInvalid, 0)), LevelFailed},
	} {
		if got := Health(c.s); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// The four icons are PNGs that differ, each with its dot's colour at the
// dot's centre (47, 47).
func TestIcons(t *testing.T) {
	want := map[Level]func(r, g, b uint32) bool{
		LevelRunning:  func(r, g, b uint32) bool { return g > 0x90 && r < 0x60 && b < 0x80 },
		LevelStarting: func(r, g, b uint32) bool { return r > 0xd0 && g > 0x90 && b < 0x40 },
		LevelFailed:   func(r, g, b uint32) bool { return r > 0xc0 && g < 0x60 && b < 0x60 },
		LevelNone:     func(r, g, b uint32) bool { return r > 0xf0 && g > 0xf0 && b > 0xf0 }, // the hollow ring's centre
	}
	seen := map[string]Level{}
	for l, ok := range want {
		res := Icon(l)
		if prev, dup := seen[string(res.Content())]; dup {
			t.Fatalf("%v and %v have the same icon", l, prev)
		}
		seen[string(res.Content())] = l
		img, err := png.Decode(bytes.NewReader(res.Content()))
		if err != nil {
			t.Fatalf("%v: %v", l, err)
		}
		if b := img.Bounds(); b.Dx() != 64 || b.Dy() != 64 {
			t.Fatalf("%v: %v", l, b)
		}
		r, g, b, a := img.At(47, 47).RGBA()
		if a>>8 != 0xff || !ok(r>>8, g>>8, b>>8) {
			t.Errorf("%v: dot centre is %02x%02x%02x/%02x", l, r>>8, g>>8, b>>8, a>>8)
		}
	}
	if Icon(Level(99)) != Icon(LevelNone) {
		t.Fatal("an unknown level has an icon of its own")
	}
}

func TestQuitPlan(t *testing.T) {
	const tail = " connected through Switchboard. Quitting stops every server, and "
	for _, c := range []struct {
		name        string
		info        hostapi.Info
		stopService bool
		stop        bool
		ask         string // "": no question
	}{
		{"alone", hostapi.Info{OnDemand: true, Clients: 1}, false, true, ""},
		// API clients (a logs follower, a test's probe) are not AI apps.
		{"logs followers and the window", hostapi.Info{OnDemand: true, Clients: 4}, false, true, ""},
		{"one bridge", hostapi.Info{OnDemand: true, Clients: 1, AIClients: 1}, false, true,
			"An AI app is" + tail + "it loses these servers' tools. Quit anyway?"},
		{"three bridges", hostapi.Info{OnDemand: true, Clients: 1, AIClients: 3}, false, true,
			"3 AI apps are" + tail + "they lose these servers' tools. Quit anyway?"},
		{"named", hostapi.Info{OnDemand: true, AIClients: 2, AIApps: []string{"claude-ai", "cursor-vscode"}}, false, true,
			"Claude Desktop and Cursor are" + tail + "they lose these servers' tools. Quit anyway?"},
		{"one app, two sessions", hostapi.Info{OnDemand: true, AIClients: 2, AIApps: []string{"claude-code"}}, false, true,
			"Claude Code is" + tail + "it loses these servers' tools. Quit anyway?"},
		{"unknown names as given, sorted", hostapi.Info{OnDemand: true, AIClients: 3, AIApps: []string{"zed-thing", "Visual Studio Code", "aider"}}, false, true,
			"VS Code, aider and zed-thing are" + tail + "they lose these servers' tools. Quit anyway?"},
		{"two names for one app", hostapi.Info{OnDemand: true, AIClients: 2, AIApps: []string{"Cursor", "cursor-vscode"}}, false, true,
			"Cursor is" + tail + "it loses these servers' tools. Quit anyway?"},
		{"many", hostapi.Info{OnDemand: true, AIClients: 6, AIApps: []string{"a", "b", "c", "d", "e", "f"}}, false, true,
			"a, b, c and 3 other AI apps are" + tail + "they lose these servers' tools. Quit anyway?"},
		{"names but no count", hostapi.Info{OnDemand: true, AIApps: []string{"claude-ai"}}, false, true, ""},
		// A host the user started (`switchboard serve` in a terminal) is
		// left running, with or without AI apps.
		{"the user's host", hostapi.Info{Clients: 1}, false, false, ""},
		{"the user's host with bridges", hostapi.Info{Clients: 1, AIClients: 2, AIApps: []string{"claude-ai"}}, false, false, ""},
		{"service", hostapi.Info{Service: true, Clients: 1}, false, false, ""},
		{"service with bridges", hostapi.Info{Service: true, Clients: 1, AIClients: 5, AIApps: []string{"claude-ai"}}, false, false, ""},
		// Stop background service stops it, asking like Quit.
		{"stop the service", hostapi.Info{Service: true, Clients: 1}, true, true, ""},
		{"stop the service with a bridge", hostapi.Info{Service: true, AIClients: 1, AIApps: []string{"claude-ai"}}, true, true,
			"Claude Desktop is" + tail + "it loses these servers' tools. Quit anyway?"},
	} {
		stop, ask := QuitPlan(c.info, c.stopService)
		if stop != c.stop {
			t.Errorf("%s: stopHost %v, want %v", c.name, stop, c.stop)
		}
		if ask != c.ask {
			t.Errorf("%s: ask\n%q, want\n%q", c.name, ask, c.ask)
		}
	}
}

// fakeSource is a Live's two methods: a snapshot under a lock and a
// capacity-1 wake-up channel.
type fakeSource struct {
	mu      sync.Mutex
	s       client.Snapshot
	changed chan struct{}
}

func newFakeSource(s client.Snapshot) *fakeSource {
	return &fakeSource{s: s, changed: make(chan struct{}, 1)}
}

func (f *fakeSource) Snapshot() client.Snapshot {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.s
	s.Servers = slices.Clone(s.Servers)
	return s
}

func (f *fakeSource) Changed() <-chan struct{} { return f.changed }

func (f *fakeSource) set(s client.Snapshot) {
	f.mu.Lock()
	f.s = s
	f.mu.Unlock()
	select {
	case f.changed <- struct{}{}:
	default:
	}
}

// deskApp is a test app with a tray: it records what the tray is set to.
type deskApp struct {
	fyne.App
	mu    sync.Mutex
	menus []*fyne.Menu
	icons []fyne.Resource
}

func (d *deskApp) SetSystemTrayMenu(m *fyne.Menu) {
	d.mu.Lock()
	d.menus = append(d.menus, m)
	d.mu.Unlock()
}

func (d *deskApp) SetSystemTrayIcon(r fyne.Resource) {
	d.mu.Lock()
	d.icons = append(d.icons, r)
	d.mu.Unlock()
}

func (d *deskApp) SetSystemTrayWindow(fyne.Window) {}

func (d *deskApp) counts() (menus, icons int, last *fyne.Menu, icon fyne.Resource) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if len(d.menus) > 0 {
		last = d.menus[len(d.menus)-1]
	}
	if len(d.icons) > 0 {
		icon = d.icons[len(d.icons)-1]
	}
	return len(d.menus), len(d.icons), last, icon
}

// rebuilds counts a Tray's rebuilds and keeps the last snapshot shown.
type rebuilds struct {
	mu   sync.Mutex
	n    int
	last client.Snapshot
}

func (r *rebuilds) hook(s client.Snapshot) {
	r.mu.Lock()
	r.n++
	r.last = s
	r.mu.Unlock()
}

func (r *rebuilds) get() (int, client.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n, r.last
}

// The tray sets the menu and icon at once, then only when they change: the
// icon when the health changes, the menu when its text does.
func TestTraySetsMenuAndIcon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		app := &deskApp{App: test.NewTempApp(t)}
		var r recorder
		src := newFakeSource(client.Snapshot{})
		var rb rebuilds
		tr := &Tray{OnRebuild: rb.hook, Notify: func(*fyne.Notification) {}}
		ended := tr.start(app, src, r.actions())
		defer func() { tr.Close(); <-ended }()

		menus, icons, m, icon := app.counts()
		if menus != 1 || icons != 1 || m.Items[0].Label != LabelNotConnected || icon != Icon(LevelNone) {
			t.Fatalf("at start: %d menus, %d icons, first item %q, icon %s", menus, icons, m.Items[0].Label, icon.Name())
		}
		src.set(connected(srv("a", "starting", 0)))
		testkit.Eventually(t, "the starting menu", func() bool { n, _, _, _ := app.counts(); return n == 2 })
		_, icons, m, icon = app.counts()
		if icons != 2 || icon != Icon(LevelStarting) || m.Items[2].Label != "a — starting" {
			t.Fatalf("starting: %d icons, %s, %q", icons, icon.Name(), m.Items[2].Label)
		}
		// Same menu text, same health (a new pid, an uptime): no rebuild.
		s := connected(srv("a", "starting", 0))
		s.Servers[0].PID = 1234
		src.set(s)
		testkit.Advance(time.Hour)
		if n, _ := rb.get(); n != 2 {
			t.Fatalf("%d rebuilds after a change that shows nothing new, want 2", n)
		}
		// Running with tools: menu and icon.
		src.set(connected(srv("a", "running", 4)))
		testkit.Eventually(t, "the running menu", func() bool { n, _, _, _ := app.counts(); return n == 3 })
		_, icons, m, icon = app.counts()
		if icons != 3 || icon != Icon(LevelRunning) || m.Items[2].Label != "a — running (4 tools)" {
			t.Fatalf("running: %d icons, %s, %q", icons, icon.Name(), m.Items[2].Label)
		}
		// A second running server: the menu changes, the icon does not.
		src.set(connected(srv("a", "running", 4), srv("b", "running", 1)))
		testkit.Eventually(t, "the two-server menu", func() bool { n, _, _, _ := app.counts(); return n == 4 })
		if _, icons, _, _ = app.counts(); icons != 3 {
			t.Fatalf("%d icons after a change of the menu only, want 3", icons)
		}
		// The menu's actions are the ones given.
		_, _, m, _ = app.counts()
		find(t, m, "b — running (1 tool)", LabelStop).Action()
		if got := r.take(); !slices.Equal(got, []string{"stop b"}) {
			t.Fatalf("Stop b called %q", got)
		}
	})
}

// A burst of 1000 changes costs one rebuild: on a synctest bubble's
// clock the burst takes no time, so exactly one. Spread over a second,
// they cost one rebuild per settle window.
func TestTrayBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := newFakeSource(connected(srv("a", "running", 0)))
		var rb rebuilds
		tr := &Tray{OnRebuild: rb.hook, Notify: func(*fyne.Notification) {}}
		var r recorder
		ended := tr.start(test.NewTempApp(t), src, r.actions())
		defer func() { tr.Close(); <-ended }()
		if n, _ := rb.get(); n != 1 {
			t.Fatalf("%d rebuilds at start, want 1", n)
		}
		// The snapshots are built first, so that the burst is a burst.
		states := []hostapi.State{"starting", "running", "restarting", "failed", "stopping", "stopped"}
		burst := make([]client.Snapshot, 1000)
		for i := range burst {
			s := connected(srv("a", states[i%len(states)], i))
			for j := range 20 {
				s.Servers = append(s.Servers, srv(fmt.Sprintf("s%02d", j), states[(i+j)%len(states)], j))
			}
			burst[i] = s
		}
		for _, s := range burst {
			src.set(s)
		}
		final := connected(srv("a", "running", 99))
		src.set(final)
		testkit.Eventually(t, "the final state shown", func() bool {
			_, last := rb.get()
			return len(last.Servers) == 1 && last.Servers[0].Tools == 99
		})

		// On the bubble's clock the burst takes no time: it is within one
		// settle window, one rebuild.
		testkit.Advance(time.Hour)
		if n, _ := rb.get(); n-1 != 1 {
			t.Fatalf("the burst cost %d rebuilds, want 1", n-1)
		}

		// Paced, one change a millisecond for a second: one rebuild per
		// settle window.
		before, _ := rb.get()
		for _, s := range burst {
			src.set(s)
			testkit.Advance(time.Millisecond)
		}
		testkit.Advance(time.Hour)
		n, _ := rb.get()
		if most := int(time.Second/DefaultSettle) + 2; n-before < 2 || n-before > most {
			t.Fatalf("a second of paced changes cost %d rebuilds, want 2 to %d (one per %v)", n-before, most, DefaultSettle)
		}
	})
}

// notifications records the tray's notifications: notify is its Notify,
// took returns those sent since the last call.
func notifications() (notify func(*fyne.Notification), took func() []*fyne.Notification) {
	var mu sync.Mutex
	var sent []*fyne.Notification
	notify = func(n *fyne.Notification) {
		mu.Lock()
		sent = append(sent, n)
		mu.Unlock()
	}
	took = func() []*fyne.Notification {
		mu.Lock()
		defer mu.Unlock()
		s := sent
		sent = nil
		return s
	}
	return notify, took
}

// A notification when a server becomes failed, once per transition.
func TestTrayNotifiesFailures(t *testing.T) {
	app := test.NewTempApp(t)
	src := newFakeSource(client.Snapshot{})
	notify, took := notifications()
	var rb rebuilds
	tr := &Tray{OnRebuild: rb.hook, Notify: notify}
	var r recorder
	ended := tr.start(app, src, r.actions())
	defer func() { tr.Close(); <-ended }()

	// step sets a snapshot and waits until the tray has shown it.
	step := func(s client.Snapshot) {
		t.Helper()
		n0, _ := rb.get()
		src.set(s)
		testkit.Eventually(t, "a rebuild", func() bool { n, _ := rb.get(); return n > n0 })
	}
	failed := func(name, why string) hostapi.ServerStatus {
		s := srv(name, "failed", 0)
		s.LastError = why
		return s
	}
	// The baseline: "old" had failed before the tray connected.
	step(connected(failed("old", "gone"), srv("a", "starting", 0)))
	if got := took(); len(got) != 0 {
		t.Fatalf("notified at the baseline: %+v", got[0])
	}
	step(connected(failed("old", "gone"), srv("a", "restarting", 0)))
	step(connected(failed("old", "gone"), failed("a", "exited with status 3: cannot open the database")))
	got := took()
	if len(got) != 1 || got[0].Title != `Server "a" failed` || !strings.Contains(got[0].Content, "cannot open the database") {
		t.Fatalf("notifications: %+v", got)
	}
	// Still failed (another change): nothing new.
	step(connected(failed("old", "gone"), failed("a", "exited with status 3: cannot open the database"), srv("b", "running", 0)))
	// Disconnected, then back to the same host: nothing new.
	step(client.Snapshot{Err: "connection reset"})
	step(connected(failed("old", "gone"), failed("a", "x"), srv("b", "running", 2)))
	if got := took(); len(got) != 0 {
		t.Fatalf("notified again: %+v", got[0])
	}
	// Restarted, failed again: notified again.
	step(connected(failed("old", "gone"), srv("a", "starting", 0), srv("b", "running", 2)))
	step(connected(failed("old", "gone"), failed("a", ""), srv("b", "running", 2)))
	if got := took(); len(got) != 1 || !strings.Contains(got[0].Content, "gave no reason") {
		t.Fatalf("after a restart: %+v", got)
	}
	// Started and failed for good again between two snapshots (the tray
	// never saw it starting): a new FailedAt is a new failure. The same
	// FailedAt in the next snapshot is not.
	at := time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)
	again := func(at time.Time) hostapi.ServerStatus {
		s := failed("a", "exited with status 1")
		s.FailedAt = at
		return s
	}
	step(connected(failed("old", "gone"), again(at), srv("b", "running", 3)))
	took()
	step(connected(failed("old", "gone"), again(at.Add(time.Second)), srv("b", "running", 4)))
	if got := took(); len(got) != 1 || got[0].Title != `Server "a" failed` {
		t.Fatalf("failed again with no other state seen between: %+v", got)
	}
	step(connected(failed("old", "gone"), again(at.Add(time.Second)), srv("b", "running", 5)))
	if got := took(); len(got) != 0 {
		t.Fatalf("the same failure notified twice: %+v", got[0])
	}
	// A new host (another pid) is a new baseline.
	s := connected(failed("a", "y"), failed("b", "z"))
	s.Info.PID = 43
	step(s)
	if got := took(); len(got) != 0 {
		t.Fatalf("notified at a new host's baseline: %+v", got[0])
	}
}

// TestWithAIClients: a host older than aiClients counts its API clients
// but the tray's own as AI apps (Quit then asks); a host that says 0 means
// 0.
func TestWithAIClients(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want int
	}{
		{`{"pid": 1, "clients": 3}`, 2},
		{`{"pid": 1, "clients": 1}`, 0},
		{`{"pid": 1, "clients": 3, "aiClients": 0}`, 0},
		{`{"pid": 1, "clients": 3, "aiClients": 1}`, 1},
	} {
		var info hostapi.Info
		if err := json.Unmarshal([]byte(c.raw), &info); err != nil {
			t.Fatal(err)
		}
		if got := withAIClients(json.RawMessage(c.raw), info).AIClients; got != c.want {
			t.Errorf("%s: AIClients %d, want %d", c.raw, got, c.want)
		}
	}
	// And the old host's count makes Quit ask.
	var info hostapi.Info
	raw := json.RawMessage(`{"pid": 1, "clients": 2, "onDemand": true}`)
	_ = json.Unmarshal(raw, &info)
	if _, ask := QuitPlan(withAIClients(raw, info), false); ask == "" {
		t.Error("Quit with an older host and another client did not ask")
	}
}
