package window

import (
	"archive/zip"
	"fmt"
	"fyne.io/fyne/v2"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/bundle"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
)

// windowBundle writes a bundle of type binary whose server is this test
// binary as the helper MCP server, with manifest as its manifest.json.
func windowBundle(t *testing.T, manifest string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "helper.mcpb")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	w, _ := zw.Create("manifest.json")
	io.WriteString(w, manifest)
	hdr := &zip.FileHeader{Name: "bin/server", Method: zip.Store}
	hdr.SetMode(0o755)
	w, err = zw.CreateHeader(hdr)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Open(testExe)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	io.Copy(w, exe)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

// windowBundleManifest runs the helper with a sensitive token (in its
// env: the helper's secret tool reports it), a multiple directory option
// (sandbox grants), a number with a range and a boolean.
const windowBundleManifest = `{"manifest_version":"0.3","name":"window-helper","display_name":"Window helper","version":"2.0.1","description":"the window tests' helper as a bundle","author":{"name":"Switchboard tests","email":"tests@example.com"},
 "server":{"type":"binary","entry_point":"bin/server","mcp_config":{"command":"${__dirname}/bin/server","args":["--depth=${user_config.depth}","--verbose=${user_config.verbose}","${user_config.roots}"],
  "env":{"SWITCHBOARD_WINDOW_TEST_HELPER":"server","HELPER_TOKEN":"${user_config.token}"}}},
 "compatibility":{"platforms":["linux","darwin","win32"]},
 "tools":[{"name":"echo","description":"Sends the message back."},{"name":"secret","description":"Tells whether HELPER_TOKEN is set."}],
 "user_config":{"token":{"type":"string","title":"API token","description":"The service's token.","sensitive":true,"required":true},
  "roots":{"type":"directory","title":"Folders","description":"The folders it serves.","required":true,"multiple":true},
  "depth":{"type":"number","title":"Depth","description":"How deep it looks.","min":1,"max":5,"default":2},
  "verbose":{"type":"boolean","title":"Verbose","description":"Log more.","default":false}}}`

// TestInstallBundleFromWindow: a bundle opened in the window shows its
// card (name, author, version, unsigned, what it runs with the token as
// a keyring reference, platforms, tools) and a form from its
// user_config in the file's order: the token a password field, the
// folders rows of paths with Folder… pickers and their sandbox line,
// the depth an entry with its range, verbose a check. Install with the
// depth out of range names it (nothing sent); with the token and the
// folders missing, the host's problems are named at once beside the
// form, in the form's words (nothing installed); filled, the server is
// installed through bundles.install, the window shows it in the Servers
// place, the token is in the keyring and in no file.
func TestInstallBundleFromWindow(t *testing.T) {
	h := start(t, nil)
	w := h.w
	file := windowBundle(t, windowBundleManifest)

	test.Tap(w.catalogBtn)
	if w.catalog == nil || w.catalog.bundle == nil || w.catalog.bundle.Text != "Install a bundle (.mcpb)…" {
		t.Fatal("the Add a server place has no Install a bundle button")
	}
	w.openBundle(file)
	h.until("the bundle's card", func() bool { return w.bundle != nil })
	v := w.bundle
	text := strings.Join(texts(w.win.Canvas().Content()), "\n")
	for _, want := range []string{"Install Window helper", "window-helper 2.0.1 (manifest 0.3, binary)", "Switchboard tests <tests@example.com>",
		"Unsigned: nothing vouches for who made it.", "${__dirname}/bin/server --depth=2 --verbose=false <roots>", "HELPER_TOKEN=${keyring:window-helper-token}",
		"linux, darwin, win32", "echo: Sends the message back.", "sandbox grant", "From 1 to 5", "Secret: it goes to the OS keyring only"} {
		if !strings.Contains(text, want) {
			t.Errorf("the page lacks %q:\n%s", want, text)
		}
	}
	var keys []string
	for _, f := range v.fields {
		keys = append(keys, f.opt.Key)
	}
	if !slices.Equal(keys, []string{"token", "roots", "depth", "verbose"}) {
		t.Fatalf("the fields are not in the manifest's order: %v", keys)
	}
	token, roots, depth, verbose := v.fields[0], v.fields[1], v.fields[2], v.fields[3]
	if token.entry == nil || !token.entry.Password || roots.paths == nil || depth.entry == nil || verbose.check == nil {
		t.Fatalf("the fields' widgets: %+v %+v %+v %+v", token, roots, depth, verbose)
	}
	if v.insist != nil || v.problems.Visible() {
		t.Errorf("an unsigned bundle with nothing wrong: insist %v, problems %q", v.insist, v.problems.Text)
	}
	// 1120 only: at 800x600 the software painter's capture shows the
	// Name entry's text under the bar; not checked in the real window at
	// that size (under Xvfb without a window manager it opens at 1120x720).
	shoot(t, w, "bundle", fyne.NewSize(1120, 720), func() {})

	// Out of range: named at once, nothing sent.
	depth.entry.SetText("9")
	test.Tap(v.install)
	if !v.problems.Visible() || !strings.Contains(v.problems.Text, "Depth: 9 is out of range: from 1 to 5") {
		t.Errorf("the depth out of range: %q", v.problems.Text)
	}
	// Missing: the host's problems, every one, in the form's words.
	depth.entry.SetText("3")
	test.Tap(v.install)
	h.until("the host's problems", func() bool { return strings.Contains(v.problems.Text, "2 problems") })
	for _, want := range []string{"API token: is required (API token): give a value; it is kept in the keyring", "Folders: is required (Folders): give a value"} {
		if !strings.Contains(v.problems.Text, want) {
			t.Errorf("the problems lack %q: %q", want, v.problems.Text)
		}
	}
	if strings.Contains(v.problems.Text, "--set") {
		t.Errorf("the command line's remedy in the window: %q", v.problems.Text)
	}
	if len(h.w.snap.Servers) != 0 {
		t.Errorf("a refused install added %v", h.w.snap.Servers)
	}

	// Made at run time: the server is this test binary, and a literal
	// would be in its bytes.
	secret := fmt.Sprintf("sk-window-%d-SECRET", os.Getpid())
	token.entry.SetText(secret)
	a, b := t.TempDir(), t.TempDir()
	roots.paths[0].SetText(a)
	test.Tap(findButton(w, "Add another folder"))
	if len(roots.paths) != 2 {
		t.Fatalf("Add another folder: %d rows", len(roots.paths))
	}
	roots.paths[1].SetText(b)
	verbose.check.SetChecked(true)
	test.Tap(v.install)
	h.until("the server in the Servers place", func() bool {
		return w.place.id == placeServers && slices.ContainsFunc(w.snap.Servers, func(s hostapi.ServerStatus) bool { return s.Name == "window-helper" })
	})
	if w.servers.selected != "window-helper" || !strings.Contains(w.statusLine.Text, "Installed window-helper: the bundle window-helper 2.0.1 (unsigned)") {
		t.Errorf("after the install: selected %q, status %q", w.servers.selected, w.statusLine.Text)
	}
	e := h.entry("window-helper")
	args := anyStrings(e["args"])
	if !slices.Equal(args, []string{"--depth=3", "--verbose=true", a, b}) {
		t.Errorf("the entry's args: %q", args)
	}
	if got, err := h.store.Get("window-helper-token"); err != nil || got.Reveal() != secret {
		t.Errorf("the keyring: %v", err)
	}
	if f, err := config.Load(h.opts.ConfigPath); err != nil || f.Servers["window-helper"].Env["HELPER_TOKEN"] != config.KeyringRef("window-helper-token") {
		t.Errorf("the config's entry: %v", err)
	}
	// The host's folders: its config, cache (XDG) and state, all under
	// one root.
	for _, d := range []string{filepath.Dir(h.opts.StateDir), filepath.Dir(h.opts.ConfigPath)} {
		filepath.WalkDir(d, func(p string, de fs.DirEntry, err error) error {
			if err == nil && de.Type().IsRegular() && filepath.Base(p) != "secrets.json" { // the test keyring's own file
				if b, _ := os.ReadFile(p); strings.Contains(string(b), secret) {
					t.Errorf("the secret is in %s", p)
				}
			}
			return nil
		})
	}
}

// TestBundleInvalidSignature: a bundle whose signature is invalid shows
// INVALID with why, and Install stays off until "Install anyway" is
// checked; a bundle for another platform keeps Install off.
func TestBundleInvalidSignature(t *testing.T) {
	w, _ := goldenWindow(t)
	c := goldenBundleCard()
	c.Signature = bundle.Signature{State: bundle.Invalid, Why: "the signature does not match the bundle's bytes"}
	w.showBundle("/home/me/Downloads/files.mcpb", c)
	v := w.bundle
	text := strings.Join(texts(w.win.Canvas().Content()), "\n")
	if !strings.Contains(text, "INVALID: the signature does not match the bundle's bytes") {
		t.Errorf("the page does not say the signature is invalid:\n%s", text)
	}
	if v.insist == nil || !v.install.Disabled() {
		t.Fatalf("Install is on without Install anyway")
	}
	v.insist.SetChecked(true)
	if v.install.Disabled() {
		t.Errorf("Install anyway checked: Install is still off")
	}

	// A refusal no value fixes: Install off, the problem shown.
	c = goldenBundleCard()
	c.Problems = []string{"compatibility.platforms: the bundle runs on darwin, not on this linux: use a build of the bundle for linux"}
	w.showBundle("/home/me/Downloads/files.mcpb", c)
	if v := w.bundle; !v.install.Disabled() || v.insist != nil || !strings.Contains(v.problems.Text, "compatibility.platforms") {
		t.Errorf("a bundle for another platform: install on %v, problems %q", !v.install.Disabled(), v.problems.Text)
	}
}

// goldenBundleCard is a bundle's card as the host would answer it.
func goldenBundleCard() install.BundleCard {
	one, fifty := 1.0, 50.0
	return install.BundleCard{File: "/home/me/Downloads/files.mcpb", SHA256: "3f3291366553fd581a64decb93a4db43579af21c863b43a91975a56bfdef3710",
		Signature:     bundle.Signature{State: bundle.Signed, CommonName: "Acme Code Signing", Organization: "Acme Inc.", Fingerprint: "9c1e0a5b"},
		SignatureText: "signed by Acme Code Signing (Acme Inc.)", Name: "acme-files", DisplayName: "Acme files", Version: "1.4.0", Author: "Acme Inc.",
		Description: "Reads and searches the folders you choose.", Manifest: "0.3", Type: "node", Platforms: []string{"darwin", "linux"},
		Runtimes: map[string]string{"node": ">=18"}, Local: "acme-files", Command: "node", Args: []string{"${__dirname}/server/index.js", "<roots>"},
		Env:   map[string]string{"ACME_KEY": "${keyring:acme-files-api_key}"},
		Tools: []install.BundleTool{{Name: "read_file", Description: "Reads a file."}, {Name: "search", Description: "Searches the folders."}},
		Options: []install.BundleOption{
			{Key: "api_key", Title: "API key", Description: "Your Acme key.", Type: "string", Required: true, Sensitive: true},
			{Key: "roots", Title: "Folders", Description: "The folders it may read.", Type: "directory", Required: true, Multiple: true},
			{Key: "max_results", Title: "Results", Description: "At most this many results.", Type: "number", Default: 20.0, Min: &one, Max: &fifty},
			{Key: "follow_links", Title: "Follow links", Type: "boolean", Default: true},
		},
		Problems: []string{}, Unpackable: true}
}

// TestGoldenBundle is a signed bundle's card and install form.
func TestGoldenBundle(t *testing.T) {
	w, _ := goldenWindow(t)
	w.showBundle("/home/me/Downloads/files.mcpb", goldenBundleCard())
	assertMarkup(t, w, "bundle.xml")
}
