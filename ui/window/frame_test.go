package window

// The frame: the places, the Servers page's primary control and overflow
// confirmations, the empty state, and the AI apps place following the
// apps' files and the window's focus.

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// walk calls f on every object of the window, the overlays (dialogs,
// menus) included.
func walk(w *Window, f func(fyne.CanvasObject)) {
	var visit func(o fyne.CanvasObject)
	visit = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		f(o)
		switch x := o.(type) {
		case *fyne.Container:
			for _, ch := range x.Objects {
				visit(ch)
			}
		case fyne.Widget:
			for _, ch := range test.WidgetRenderer(x).Objects() {
				visit(ch)
			}
		}
	}
	c := w.win.Canvas()
	visit(c.Content())
	for _, o := range c.Overlays().List() {
		visit(o)
	}
}

// findButton returns the button of a label the window shows.
func findButton(w *Window, label string) *widget.Button {
	var found *widget.Button
	walk(w, func(o fyne.CanvasObject) {
		if b, ok := o.(*widget.Button); ok && b.Text == label && found == nil {
			found = b
		}
	})
	return found
}

// texts returns the texts drawn under an object, in order.
func texts(o fyne.CanvasObject) []string {
	var out []string
	var visit func(o fyne.CanvasObject)
	visit = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch x := o.(type) {
		case *canvas.Text:
			if x.Text != "" {
				out = append(out, x.Text)
			}
		case *fyne.Container:
			for _, ch := range x.Objects {
				visit(ch)
			}
		case fyne.Widget:
			for _, ch := range test.WidgetRenderer(x).Objects() {
				visit(ch)
			}
		}
	}
	visit(o)
	return out
}

// shownText is every label's text the window shows, overlays included.
func shownText(w *Window) string {
	var b strings.Builder
	walk(w, func(o fyne.CanvasObject) {
		if l, ok := o.(*widget.Label); ok {
			b.WriteString(l.Text + "\n")
		}
	})
	return b.String()
}

// TestPrimaryControlByState: the primary control's label follows the
// state through the state's own predicates (as the tray's menu does).
func TestPrimaryControlByState(t *testing.T) {
	want := map[hostapi.State]string{
		hostapi.StateStopped:    "Start",
		hostapi.StateStarting:   "Stop",
		hostapi.StateRunning:    "Stop",
		hostapi.StateRestarting: "Stop",
		hostapi.StateWaiting:    "Stop",
		hostapi.StateFailed:     "Start",
		hostapi.StateStopping:   "Stopping…",
		hostapi.StateDisabled:   "Enable",
		hostapi.StateInvalid:    "Fix settings",
		// Asleep, it starts by itself on a call: the control that
		// changes something is Stop (it then stays stopped); the tray
		// offers Start too.
		hostapi.StateSleeping: "Stop",
		// A remote server's (issue 17): retried, or waiting for a sign-in.
		hostapi.StateUnreachable:  "Stop",
		hostapi.StateUnauthorized: "Stop",
		hostapi.StateSigningIn:    "Stop",
		hostapi.StateSignInNeeded: "Sign in",
	}
	for _, s := range hostapi.States() {
		label, active := primaryLabel(s)
		if label != want[s] {
			t.Errorf("%s: primary %q; want %q", s, label, want[s])
		}
		if label == "Stop" && !s.CanStop() || label == "Start" && active && !s.CanStart() {
			t.Errorf("%s: %q disagrees with the state's predicates", s, label)
		}
		if active == (s == hostapi.StateStopping) {
			t.Errorf("%s: active %v", s, active)
		}
	}

	// In the window: each server of the golden snapshot.
	w, _ := goldenWindow(t)
	for _, st := range goldenSnapshot().Servers {
		w.servers.choose(st.Name)
		d := w.servers.detail
		if l, _ := primaryLabel(st.State); d.primary.Text != l {
			t.Errorf("%s (%s): the window's primary control says %q; want %q", st.Name, st.State, d.primary.Text, l)
		}
		restart := d.menuItem("Restart")
		if restart == nil || restart.Disabled == st.State.CanRestart() {
			t.Errorf("%s: Restart in the menu %+v; the state says it can restart: %v", st.Name, restart, st.State.CanRestart())
		}
	}
}

// TestOverflowConfirmations: Remove and Disable ask first, saying what is
// lost (the entry; the secrets stay in the keyring), on a button that
// names the action and the server.
func TestOverflowConfirmations(t *testing.T) {
	w, _ := goldenWindow(t)
	snap := goldenSnapshot()
	snap.Servers[2].Secrets = []string{"github-token"}
	w.apply(snap)
	w.servers.choose("github")
	d := w.servers.detail
	// The ⋮ button pops the menu up: its items in order.
	test.Tap(d.more)
	var shown []string
	walk(w, func(o fyne.CanvasObject) {
		if m, ok := o.(*widget.PopUpMenu); ok {
			shown = append(shown, texts(m)...)
			m.Hide()
		}
	})
	if strings.Join(shown, ",") != "Restart,Disable…,Remove…" {
		t.Errorf("the overflow menu shows %q", shown)
	}
	d.menuItem("Remove…").Action()
	if findButton(w, "Remove github") == nil || findButton(w, "Keep it") == nil {
		t.Fatal("the removal's buttons are not \"Remove github\" and \"Keep it\"")
	}
	text := shownText(w)
	for _, s := range []string{"github's entry is deleted from Switchboard's config", "The secret it uses, github-token, stays in the keyring.", "lose its tools"} {
		if !strings.Contains(text, s) {
			t.Errorf("the removal does not say %q:\n%s", s, text)
		}
	}
	w.confirm.Hide()

	w.servers.choose("everything")
	w.servers.detail.menuItem("Disable…").Action()
	if findButton(w, "Disable everything") == nil {
		t.Fatal("no \"Disable everything\" button")
	}
	if text := shownText(w); !strings.Contains(text, "Its entry and its secrets are kept.") {
		t.Errorf("the disabling does not say what stays:\n%s", text)
	}
	w.confirm.Hide()
	w.servers.choose("memory")
	if w.servers.detail.menuItem("Enable") == nil || w.servers.detail.menuItem("Disable…") != nil {
		t.Errorf("a disabled server's menu: %v", w.servers.detail.menu().Items)
	}
}

// TestSummaries: the list's line under each name.
func TestSummaries(t *testing.T) {
	cases := map[string]hostapi.ServerStatus{
		"13 tools":                  {State: hostapi.StateRunning, Tools: 13},
		"1 tool":                    {State: hostapi.StateRunning, Tools: 1},
		"failed: command not found": {State: hostapi.StateFailed, ResolveError: `command "x" was not found`},
		"failed: handshake timeout": {State: hostapi.StateFailed, LastReason: "handshake timeout"},
		"needs the secret gh":       {State: hostapi.StateWaiting, Issues: []hostapi.Problem{{Remedy: &hostapi.Remedy{Kind: hostapi.RemedySetSecret, Secret: "gh"}}}},
		"invalid entry: cwd: bad":   {State: hostapi.StateInvalid, Problems: []hostapi.Problem{{Key: "cwd", Message: "bad"}}},
		"disabled":                  {State: hostapi.StateDisabled},
		// Broken (issue 27 §13): it retries, but says why from the first attempt.
		`broken — restarting: "uvx" was not found in the PATH the host gives servers`: {State: hostapi.StateRestarting, Failures: 1, Broken: true,
			Issues: []hostapi.Problem{{Key: "command", Fact: `"uvx" was not found in the PATH the host gives servers`, Remedy: &hostapi.Remedy{Kind: hostapi.RemedyInstall, Command: "uvx"}}}},
		"restarting after 1 failure": {State: hostapi.StateRestarting, Failures: 1},
	}
	for want, st := range cases {
		if got := summary(st); got != want {
			t.Errorf("summary of %+v: %q; want %q", st, got, want)
		}
	}
}

// TestEmptyStateListsApps: with no servers, the Servers place offers the
// catalog and an import from each AI app found with servers of its own;
// the import opens the AI apps place at that app's import.
func TestEmptyStateListsApps(t *testing.T) {
	files := goldenAppFiles(t)
	useAppFiles(t, files)
	w, q := goldenWindow(t)
	w.apply(client.Snapshot{Connected: true})
	e := w.servers.empty
	if w.servers.body.Objects[0] != e.obj {
		t.Fatal("no empty state without servers")
	}
	waitQueue(t, q, "the apps read", func() bool { return len(e.found) > 0 })
	w.apply(client.Snapshot{Connected: true}) // the queue held the unconnected Live's state too
	var got []string
	for _, st := range e.found {
		got = append(got, st.app.ID)
	}
	// Claude Desktop's filesystem and Cursor's github and remote "docs" can
	// run here; VS Code's file is broken, Claude Code has only the bridge.
	if strings.Join(got, " ") != "claude-desktop cursor" {
		t.Errorf("apps offered: %v", got)
	}
	if b := e.importB["cursor"]; b == nil || b.Text != "Import from Cursor (github, docs)" {
		t.Errorf("Cursor's button: %+v", b)
	}
	if findButton(w, "Add from the catalog") == nil {
		t.Error("no \"Add from the catalog\"")
	}
	assertMarkup(t, w, "empty.xml")

	test.Tap(e.importB["cursor"])
	if w.place.id != placeApps || w.apps == nil {
		t.Fatal("Import did not open the AI apps place")
	}
	v := w.apps
	waitQueue(t, q, "the import dialog", func() bool { return v.imp != nil })
}

// TestAppsFollowFiles: the AI apps place reads an app's file again when
// it changes, and when the window gains the focus; no Refresh button.
func TestAppsFollowFiles(t *testing.T) {
	home := t.TempDir()
	h := startApps(t, nil, home)
	v := h.openApps()
	if r := v.rows["cursor"]; r == nil || r.found.Text != "Not found" {
		t.Fatalf("Cursor before its file: %+v", r)
	}
	if findButton(h.w, "Refresh") != nil {
		t.Error("the window has a Refresh button")
	}
	path := filepath.Join(home, ".cursor", "mcp.json")
	writeFixture(t, path, []byte(`{"mcpServers": {"notes": {"command": "notes-server"}}}`), 0o600)
	h.until("Cursor's file read again", func() bool {
		r := v.rows["cursor"]
		return r != nil && r.found.Text == "Found" && strings.HasPrefix(r.own.Text, "notes")
	})

	// The focus: the hook the window installs in the app's lifecycle
	// (Fyne's test app cannot gain the focus, but it keeps the hook, and
	// calling it is what the driver does) loads the files again.
	lc, ok := h.w.app.Lifecycle().(interface{ OnEnteredForeground() func() })
	if !ok {
		t.Fatalf("the test app's lifecycle %T does not give its hooks back: has Fyne changed?", h.w.app.Lifecycle())
	}
	hook := lc.OnEnteredForeground()
	if hook == nil {
		t.Fatal("the window installs no hook for gaining the focus")
	}
	seq, before := v.seq, v.rows["cursor"]
	hook()
	if v.seq == seq {
		t.Fatal("gaining the focus did not read the apps' files again")
	}
	h.until("the rows of the load at the focus", func() bool {
		r := v.rows["cursor"]
		return r != before && r != nil && r.found.Text == "Found" && strings.HasPrefix(r.own.Text, "notes")
	})
}

// waitQueue runs a golden window's queue until cond holds.
func waitQueue(t *testing.T, q *uiQueue, what string, cond func() bool) {
	t.Helper()
	pumpUntil(t, q, what, cond)
}

// TestFitsSmallScreen: no page asks the window for more than 800x600, so
// that nothing is cut or scrolls sideways at that size (Fyne grows a
// window to its content's minimum size). Not the catalog yet: its package
// lines do not wrap (catalogview.go); it scrolls sideways at 800.
func TestFitsSmallScreen(t *testing.T) {
	files := goldenAppFiles(t)
	useAppFiles(t, files)
	capPages = false
	t.Cleanup(func() { capPages = true })
	w, _ := goldenWindow(t)
	// Long paths, as a user's are.
	snap := goldenSnapshot()
	long := "/home/alex/.npm-global/lib/node_modules/.bin/mcp-server-everything"
	snap.Servers[0].Command, snap.Servers[0].Resolved, snap.Servers[0].Args = long, long, []string{"/home/alex/Documents/a folder with a long name"}
	w.apply(snap)
	check := func(page string) {
		t.Helper()
		m := w.win.Content().MinSize()
		t.Logf("%s: %vx%v", page, m.Width, m.Height)
		if m.Width > 800 || m.Height > 600 {
			t.Errorf("%s asks for %vx%v", page, m.Width, m.Height)
		}
	}
	for _, st := range goldenSnapshot().Servers {
		w.servers.choose(st.Name)
		check("the Overview of " + st.Name)
	}
	w.showServer("everything", tabTools)
	w.tools.setTools([]toolInfo{
		{Name: "trigger-long-running-operation", Description: "Demonstrates a long running operation with progress updates, for a client that shows them.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"duration":{"type":"number","description":"Duration of the operation in seconds","default":10},"steps":{"type":"number","description":"Number of steps in the operation","default":5}},"$schema":"http://json-schema.org/draft-07/schema#"}`)},
	})
	check("Tools")
	w.showServer("files", tabLogs)
	w.logs.load([]hostapi.LogLine{{Line: strings.Repeat("a long line of a server's stderr ", 20), Time: goldenNow}})
	check("Logs")
	// The Settings tab, as openSettings fills it.
	w.showServer("everything", tabSettings)
	d := w.servers.detail
	f := newServerForm(w, "everything", false, &config.Server{Command: "/home/alex/.npm-global/lib/node_modules/.bin/mcp-server-everything", Args: []string{"/home/alex/Documents/a folder with a long name"}}, nil, nil)
	w.embedIn = d.boxes[tabSettings]
	w.open(&page{title: "Settings of everything", obj: f.obj})
	w.embedIn = nil
	check("Settings")
	w.openAdd()
	check("the Add form")
	w.openPaste()
	check("Paste")
	w.showPlace(placeApps)
	w.apps.show(loadApps(files), must(files.exe()), nil)
	check("AI apps")
	w.showPlace(placeServers)
	w.apply(client.Snapshot{Connected: true})
	w.servers.empty.show(loadApps(files))
	check("the empty state")
}

// TestShowLogs: the tray's "Show logs" shows the server's Logs tab in
// the Servers place, from any place.
func TestShowLogs(t *testing.T) {
	w, _ := goldenWindow(t)
	w.showPlace(placeCatalog)
	w.ShowLogs("github")
	d := w.servers.detail
	if w.place.id != placeServers || d == nil || d.name != "github" || d.tabs.SelectedIndex() != tabLogs || w.logs == nil || w.logs.server != "github" {
		t.Fatalf("Show logs of github: place %s, detail %+v, logs %+v", w.place.id, d, w.logs)
	}
	// Another server keeps the tab.
	w.servers.list.Select(w.servers.index("files"))
	if d := w.servers.detail; d.name != "files" || w.logs == nil || w.logs.server != "files" {
		t.Errorf("choosing files after the logs of github shows %s, logs %+v", d.name, w.logs)
	}
}

// TestAppsFitSmallScreen: the AI apps place fits 800 pixels with a long
// home folder, as a user's may be (issue 27 §22: the place was cut at the
// right edge, the window grown to the config files' paths): the paths
// wrap rather than widen the window.
func TestAppsFitSmallScreen(t *testing.T) {
	home := "/home/alexandra.longname/a-synced-folder/with-a-long-name"
	gf := goldenAppFiles(t)
	files := gf
	files.env = aiapps.Env{GOOS: "linux", Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}
	moved := func(p string) string { return strings.Replace(p, home, "/home/me", 1) }
	files.exists = func(p string) bool { return gf.exists(moved(p)) }
	files.read = func(p string) ([]byte, bool, error) { return gf.read(moved(p)) }
	useAppFiles(t, files)
	capPages = false
	t.Cleanup(func() { capPages = true })
	w, _ := goldenWindow(t)
	w.showPlace(placeApps)
	w.apps.show(loadApps(files), must(files.exe()), nil)
	if p := w.apps.rows["claude-desktop"].path.Text; !strings.HasPrefix(p, home) {
		t.Fatalf("the config file's path %q is not under the long home", p)
	}
	if m := w.win.Content().MinSize(); m.Width > 800 || m.Height > 600 {
		t.Errorf("AI apps with a long home asks for %vx%v", m.Width, m.Height)
	}
	snap := goldenSnapshot()
	snap.Info.Config.Error = ""
	shoot(t, w, "ai-apps-long-home", fyne.NewSize(800, 600), func() { w.apply(snap) })
}
