package window

// Golden markup of the main views, rendered from fixed data (a fixed
// snapshot and clock: no live timing) by a window whose Live is never
// connected. The masters are in testdata/; when a view changes on
// purpose, delete its master, run the test, and copy the markup it writes
// to testdata/failed/ over it after reading it.

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/catalog"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
)

var goldenNow = time.Date(2026, 7, 28, 12, 0, 0, 0, time.UTC)

// goldenSnapshot has a server in each kind of state, and an invalid
// config file.
func goldenSnapshot() client.Snapshot {
	return client.Snapshot{
		Connected: true,
		Info: hostapi.Info{
			Path:   "/nonexistent/bin",
			Config: hostapi.ConfigStatus{Path: "/home/me/.config/switchboard/config.json", Error: "config.json:3:5: invalid character '}' looking for beginning of object key string"},
		},
		Servers: []hostapi.ServerStatus{
			{Name: "everything", State: "running", Era: "legacy", StartedAt: goldenNow.Add(-3*time.Hour - 5*time.Minute), Tools: 11, Restarts: 1, Command: "npx", Resolved: "/usr/bin/npx"},
			{Name: "files", State: "failed", Restarts: 5, LastError: `server "files" exited at start (exit status 1): npm error 404 Not Found`, Command: "npx"},
			{Name: "github", State: "waiting for secret", LastError: `secret "github-token" is not in the keyring: set it with 'switchboard secret set github-token'`, Command: "npx"},
			{Name: "memory", State: "disabled", Disabled: true, Command: "npx"},
			{Name: "notes", State: "invalid", Problems: []hostapi.Problem{{Server: "notes", Key: "cwd", Message: `"notes" is not absolute: give an absolute path`}}, Command: "notes-server"},
			{Name: "time", State: "stopped", UserStopped: true, Era: "modern", Command: "uvx"},
		},
	}
}

// goldenWindow is a shown window over a Live that never connects.
func goldenWindow(t *testing.T) (*Window, *uiQueue) {
	t.Helper()
	return goldenWindowIn(t, test.NewTempApp(t))
}

// goldenWindowIn is goldenWindow in app a (screenshots_test.go's, with
// the window's theme).
func goldenWindowIn(t *testing.T, a fyne.App) (*Window, *uiQueue) {
	t.Helper()
	q := &uiQueue{}
	live := client.New(client.Options{Socket: filepath.Join(t.TempDir(), "none.sock")})
	w := New(a, live, Options{Do: q.do, Now: func() time.Time { return goldenNow }})
	w.Show()
	t.Cleanup(w.Close)
	w.apply(goldenSnapshot())
	w.win.Resize(fyne.NewSize(1120, 720))
	return w, q
}

// TestGoldenList is the Servers place: the list, and the first failed
// server's Overview.
func TestGoldenList(t *testing.T) {
	w, _ := goldenWindow(t)
	if w.statusLine.Visible() {
		t.Errorf("the status line shows with nothing to say: %q", w.statusLine.Text)
	}
	w.servers.choose("files")
	assertMarkup(t, w, "list.xml")
	w.servers.choose("notes")
	assertMarkup(t, w, "overview-invalid.xml")
}

func TestGoldenForm(t *testing.T) {
	w, _ := goldenWindow(t)
	w.openAdd()
	f := w.form
	f.name.SetText("files")
	f.command.SetText("files-server")
	f.args.add("--root")
	f.args.add("/home/me/My Documents")
	r := f.env.add()
	r.name.SetText("LOG_LEVEL")
	r.value.SetText("debug")
	r = f.env.add()
	r.name.SetText("API_TOKEN")
	r.kind.SetSelected(kindSecret)
	r.secret.SetText("not shown")
	f.cwd.SetText("relative")
	f.submit()
	assertMarkup(t, w, "form.xml")
}

func TestGoldenPaste(t *testing.T) {
	w, _ := goldenWindow(t)
	w.openPaste()
	w.paste.text.SetText(`{"mcpServers": {
  "GitHub": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example"}},
  "remote": {"url": "https://example.com/mcp"}
}}`)
	w.paste.showPreview()
	assertMarkup(t, w, "paste.xml")
}

func TestGoldenCatalog(t *testing.T) {
	w, _ := goldenWindow(t)
	w.showPlace(placeCatalog)
	assertMarkup(t, w, "catalog.xml")
	w.openTemplate(mustTemplate(t, "brave-search"))
	assertMarkup(t, w, "template.xml")
}

func TestGoldenLogs(t *testing.T) {
	w, _ := goldenWindow(t)
	w.showServer("files", tabLogs)
	w.logs.loc = time.UTC // the zone of goldenNow, whatever the machine's
	at := func(d time.Duration) time.Time { return goldenNow.Add(-d) }
	w.logs.load([]hostapi.LogLine{
		{Line: "--- started, pid 4141 ---", Time: at(26 * time.Hour)}, // yesterday's run: with its date
		{Line: "npm error code E404", Time: at(26*time.Hour - 1500*time.Millisecond)},
		{Line: "--- started, pid 4242 ---", Time: at(3 * time.Minute)},
		{Line: "npm error code E404", Time: at(3*time.Minute - 2*time.Second)},
		{Line: "npm error 404 Not Found - GET https://registry.npmjs.org/@example%2fnope", Time: at(3*time.Minute - 2*time.Second)},
		{Line: "npm error A complete log of this run can be found in: /root/.npm/_logs/x.log", Time: at(3*time.Minute - 2*time.Second)},
	})
	w.logs.filter.SetText("npm error")
	assertMarkup(t, w, "logs.xml")
}

func TestGoldenTools(t *testing.T) {
	w, _ := goldenWindow(t)
	w.showServer("everything", tabTools)
	w.tools.setTools([]toolInfo{
		{Name: "add", Description: "Adds two numbers.", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","description":"the first"},"b":{"type":"number"}},"required":["a","b"]}`)},
		{Name: "echo", Description: "Echoes back the input.", InputSchema: json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"the text"},"mode":{"type":"string","enum":["plain","loud"]},"tags":{"type":"array","items":{"type":"string"}}},"required":["message"]}`)},
	})
	test.Tap(w.tools.buttons["echo"])
	assertMarkup(t, w, "tools.xml")
}

// TestGoldenSettings is a server's Settings tab: the server form, as
// openSettings fills it from the entry the host returns.
func TestGoldenSettings(t *testing.T) {
	w, _ := goldenWindow(t)
	s, _ := parsedEntry(t, "everything", `{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything@2026.8.31"], "env": {"LOG_LEVEL": "debug"}}`)
	inSettings(w, "everything", newServerForm(w, "everything", false, s, nil, nil))
	assertMarkup(t, w, "settings.xml")
}

func mustTemplate(t *testing.T, name string) catalog.Server {
	t.Helper()
	s, ok := catalog.Lookup(name)
	if !ok {
		t.Fatalf("no template %q", name)
	}
	return s
}

// settle lays out every container and widget of the canvas again, top
// down, as the real driver does each frame when a minimum size changed
// (common.Canvas.EnsureMinSize; the test canvas does not), so that the
// markup shows what a person would see after a label appears or hides.
func settle(c fyne.Canvas) {
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		if o == nil || !o.Visible() {
			return
		}
		switch x := o.(type) {
		case *fyne.Container:
			if x.Layout != nil {
				x.Layout.Layout(x.Objects, x.Size())
			}
			for _, ch := range x.Objects {
				walk(ch)
			}
		case fyne.Widget:
			r := test.WidgetRenderer(x)
			r.Layout(x.Size())
			for _, ch := range r.Objects() {
				walk(ch)
			}
		}
	}
	for i := 0; i < 3; i++ {
		walk(c.Content())
		for _, o := range c.Overlays().List() {
			walk(o)
		}
	}
}

// assertMarkup settles the window and compares its markup with a master.
func assertMarkup(t *testing.T, w *Window, master string) {
	t.Helper()
	w.win.Canvas().Unfocus()
	settle(w.win.Canvas())
	test.AssertRendersToMarkup(t, master, w.win.Canvas())
}

// TestGoldenAddServer is the "Add a server" place with a search's
// registry results beside the templates (a deprecated entry, one
// Switchboard cannot run), and a registry entry's card and form from the
// loopback registry's filesystem document (its directory a filepath).
func TestGoldenAddServer(t *testing.T) {
	w, _ := goldenWindow(t)
	addServerScene(t, w)
	assertMarkup(t, w, "add-server.xml")

	w.showCard(goldenCard(t))
	assertMarkup(t, w, "registry-card.xml")
}

// addServerScene is the place after a search: the templates that match
// and three registry results.
func addServerScene(t *testing.T, w *Window) {
	w.showPlace(placeCatalog)
	w.catalog.search.Text = "files" // not SetText: no search through the unconnected Live
	w.catalog.search.Refresh()
	w.catalog.filter()
	w.catalog.reg.seq = 1
	w.catalog.reg.show([]hostapi.RegistryResult{
		{Name: "io.github.modelcontextprotocol/filesystem", Registry: "official", Title: "Filesystem", Description: "Read and write files in the folders you choose.",
			Version: "1.0.2", Status: "active", Packages: []string{"npm:@modelcontextprotocol/server-filesystem", "oci:docker.io/mcp/filesystem"}, Runnable: true},
		{Name: "io.github.example/old-files", Registry: "official", Description: "Files, the old way.", Version: "0.3.0", Status: "deprecated",
			StatusMessage: "use io.github.modelcontextprotocol/filesystem", Packages: []string{"npm:old-files"}, Runnable: true},
		{Name: "com.example/files-bundle", Registry: "work", Description: "Files as an MCP bundle.", Version: "2.0.0", Status: "active",
			Packages: []string{"mcpb:https://example.com/files.mcpb"}, Why: "an MCP bundle (.mcpb): Switchboard does not install bundles yet"},
	}, "", []string{"official: the snapshot built into Switchboard, never synced ('switchboard registry sync' reads the registry's current entries)"})
}

// goldenCard is the card of the loopback registry's filesystem document
// with its directory a filepath, published 12 days before goldenNow, npx
// found.
func goldenCard(t *testing.T) registry.Card {
	t.Helper()
	for _, d := range registrytest.Documents(t) {
		if strings.HasSuffix(d.Name, "/filesystem") {
			d.Packages[0].PackageArguments[0].Format = "filepath"
			en := registry.Entry{Server: d, Registry: "official", PublishedAt: goldenNow.Add(-12 * 24 * time.Hour).Format(time.RFC3339)}
			return registry.MakeCard(&en, func(cmd string) (string, error) { return "/usr/bin/" + cmd, nil }, goldenNow)
		}
	}
	t.Fatal("no filesystem document")
	return registry.Card{}
}
