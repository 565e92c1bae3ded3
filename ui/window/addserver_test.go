package window

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
)

// startRegistry is a host whose config names the loopback registry reg
// (as "test"), its index synced into the host's state directory, and a
// window over it.
func startRegistry(t *testing.T, reg *registrytest.Registry) *harness {
	t.Helper()
	return startWith(t, nil, []func(*host.Options){func(o *host.Options) {
		reg.Seed(t, "test", o.ConfigPath, o.StateDir)
	}})
}

// registryDocs are the loopback registry's documents, the filesystem
// entry's directory argument a filepath (as server.json can say).
func registryDocs(t *testing.T) *registrytest.Registry {
	reg := registrytest.New(t)
	for _, d := range registrytest.Documents(t) {
		if strings.HasSuffix(d.Name, "/filesystem") {
			d.Packages[0].PackageArguments[0].Format = "filepath"
		}
		reg.Publish(d)
	}
	return reg
}

// TestAddServerFromRegistry: in the "Add a server" place, one search
// finds the catalog's template and the registry's entry; View shows its
// card (the exact argv, the runtime, the publisher); the form has the
// directory's picker and its sandbox line; Add with a required value
// missing names it beside the form (nothing added); filled, run with npx
// (unlocked), the server is added through registry.add and the window
// shows it in the Servers place. A secret input is a password field
// whose value reaches the keyring and no file.
func TestAddServerFromRegistry(t *testing.T) {
	reg := registryDocs(t)
	h := startRegistry(t, reg)
	w := h.w
	test.Tap(w.catalogBtn)
	if w.place.id != placeCatalog || findButton(w, "Add a server") == nil {
		t.Fatalf("the place: %s", w.place.id)
	}
	test.Type(w.catalog.search, "filesystem")
	key := resultKey("test", "io.github.modelcontextprotocol/filesystem")
	h.until("the registry's filesystem entry", func() bool { return w.catalog != nil && w.catalog.reg.view[key] != nil })
	if !slices.Contains(w.catalog.shown(), "filesystem") {
		t.Errorf("the template filesystem is not shown beside the registry's results: %v", w.catalog.shown())
	}
	for _, r := range w.catalog.reg.shown {
		if r.Registry == registry.CatalogRegistry {
			t.Errorf("a catalog entry among the registry's results: %+v", r)
		}
	}
	test.Tap(w.catalog.reg.view[key])
	h.until("the card", func() bool { return w.entry != nil })
	v := w.entry
	text := strings.Join(texts(w.win.Canvas().Content()), "\n")
	for _, want := range []string{"npx -y @modelcontextprotocol/server-filesystem@1.0.2 /Users/username/Desktop", "GitHub-verified", "sandbox grant", "Run with npx (unlocked)", "Node.js (npx)"} {
		if !strings.Contains(text, want) {
			t.Errorf("the card lacks %q:\n%s", want, text)
		}
	}
	if v.choice == nil || len(v.choices) != 2 {
		t.Errorf("the package choice: %+v", v.choices)
	}
	f := v.fields["target_dir"]
	if f == nil || f.entry == nil {
		t.Fatalf("no target_dir field: %v", v.fields)
	}
	dir := t.TempDir()
	f.entry.SetText(dir)
	v.name.SetText("fs")
	v.unlocked.SetChecked(true)
	test.Tap(v.add)
	h.until("the server in the Servers place", func() bool {
		return w.place.id == placeServers && slices.ContainsFunc(w.snap.Servers, func(s hostapi.ServerStatus) bool { return s.Name == "fs" })
	})
	e := h.entry("fs")
	if e["command"] != "npx" || !slices.Equal(anyStrings(e["args"]), []string{"-y", "@modelcontextprotocol/server-filesystem@1.0.2", dir}) {
		t.Errorf("the entry: %v", e)
	}
	if w.servers.selected != "fs" {
		t.Errorf("the window shows %q, not the new server fs", w.servers.selected)
	}

	// A secret: a password field, its value in the keyring only; missing,
	// named beside the form.
	test.Tap(w.catalogBtn)
	test.Type(w.catalog.search, "airtable")
	key = resultKey("test", "io.github.domdomegg/airtable-mcp-server")
	h.until("the airtable entry", func() bool { return w.catalog != nil && w.catalog.reg.view[key] != nil })
	test.Tap(w.catalog.reg.view[key])
	h.until("the card", func() bool { return w.entry != nil })
	v = w.entry
	sf := v.fields["AIRTABLE_API_KEY"]
	if sf == nil || sf.entry == nil || !sf.entry.Password {
		t.Fatalf("the secret's field is not a password field: %+v", sf)
	}
	v.unlocked.SetChecked(true)
	test.Tap(v.add)
	h.until("the problem named", func() bool { return v.problems.Visible() })
	if !strings.Contains(v.problems.Text, "needs a value for AIRTABLE_API_KEY") || strings.Contains(v.problems.Text, "--set") {
		t.Errorf("the problem: %q", v.problems.Text)
	}
	const pat = "patFAKE0123.windowsecret"
	sf.entry.SetText(pat)
	test.Tap(v.add)
	h.until("airtable added", func() bool {
		return slices.ContainsFunc(w.snap.Servers, func(s hostapi.ServerStatus) bool { return s.Name == "airtable-mcp-server" })
	})
	if got, err := h.store.Get("airtable-mcp-server-airtable_api_key"); err != nil || got.Reveal() != pat {
		t.Errorf("the keyring: %v", err)
	}
	for _, d := range []string{filepath.Dir(h.opts.ConfigPath), h.opts.StateDir} {
		filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err == nil && !de.IsDir() {
				if b, _ := os.ReadFile(p); strings.Contains(string(b), pat) && filepath.Base(p) != "secrets.json" {
					t.Errorf("the secret is in %s", p)
				}
			}
			return nil
		})
	}
	if f, err := config.Load(h.opts.ConfigPath); err != nil || f.Servers["airtable-mcp-server"].Env["AIRTABLE_API_KEY"] != config.KeyringRef("airtable-mcp-server-airtable_api_key") {
		t.Errorf("the config's entry: %v", err)
	}
}

// anyStrings is a JSON array of strings as decoded into any.
func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestAddRemoteFromRegistrySignIn: a registry entry whose remote signs
// its clients in (a 401 with an OAuth challenge, the OAuth rig) is added
// from its card; the window goes to it, and its primary action is Sign
// in, which opens the authorization page; signed in, it runs.
func TestAddRemoteFromRegistrySignIn(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	rig.DCR.Store(true)
	reg := registrytest.New(t)
	reg.Publish(registry.Server{Name: "io.github.example/oauth-remote", Version: "1.0.0", Description: "a remote that signs its clients in",
		Remotes: []registry.Remote{{Type: "streamable-http", URL: rig.MCPURL}}})
	h := startRegistry(t, reg)
	app := &urlApp{App: h.w.app}
	h.w.app = app
	w := h.w
	test.Tap(w.catalogBtn)
	w.openRegistryEntry("io.github.example/oauth-remote", "test")
	h.until("the card", func() bool { return w.entry != nil })
	if w.entry.chosen.remote == nil || w.entry.unlocked != nil {
		t.Fatalf("the remote is not the choice: %+v", w.entry.chosen)
	}
	test.Tap(w.entry.add)
	d := h.state("oauth-remote", hostapi.StateSignInNeeded)
	// The add's answer and the server's state come on different
	// goroutines: the window goes to the server once the add returns.
	h.until("the window shows the added server", func() bool { return w.place.id == placeServers && w.servers.selected == "oauth-remote" })
	h.until("Sign in as the primary action", func() bool { return d.primary.Text == "Sign in" && !d.primary.Disabled() })
	if d.primary.Importance != widget.HighImportance {
		t.Errorf("Sign in is not the primary button")
	}
	if e := h.entry("oauth-remote"); e["url"] != rig.MCPURL || e["type"] != "http" {
		t.Errorf("the entry: %v", e)
	}
	test.Tap(d.primary)
	h.until("the sign-in page opened", func() bool { return len(app.opened) == 1 })
	remotetest.Browse(t, app.opened[0], nil)
	h.state("oauth-remote", hostapi.StateRunning)
}
