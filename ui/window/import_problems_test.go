package window

import (
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// widgetTexts are the words of every label, entry and check under o, for a test
// to look for what a person sees.
func widgetTexts(o fyne.CanvasObject) []string {
	var out []string
	for _, x := range test.LaidOutObjects(o) {
		switch x := x.(type) {
		case *widget.Label:
			if x.Visible() {
				out = append(out, x.Text)
			}
		case *widget.Entry:
			out = append(out, x.Text)
		case *escEntry:
			out = append(out, x.Text)
		case *widget.Check:
			out = append(out, x.Text)
		}
	}
	return out
}

// buttons are the labels of the visible buttons under o.
func buttons(o fyne.CanvasObject) map[string]*widget.Button {
	out := map[string]*widget.Button{}
	for _, x := range test.LaidOutObjects(o) {
		if b, ok := x.(*widget.Button); ok && b.Visible() {
			out[b.Text] = b
		}
	}
	return out
}

func anyContains(ss []string, sub string) bool {
	return slices.ContainsFunc(ss, func(s string) bool { return strings.Contains(s, sub) })
}

// TestPasteImportProblemsAndSecrets: Paste configuration shows a server
// the host refused with the host's problem and its remedy as a button
// (Edit a, for a name that exists), not an error string; and once the
// pasted secret moved into the keyring, the text box is cleared: the
// secret does not stay on the screen (#13).
func TestPasteImportProblemsAndSecrets(t *testing.T) {
	h := start(t, map[string]any{"a": helperEntry()})
	w := h.w
	test.Tap(w.pasteBtn)
	v := w.paste
	const token = "tok-paste-0123456789"
	v.text.SetText(`{"mcpServers": {
	  "My Helper": {"command": ` + jsonString(testExe) + `, "env": {"` + helperEnv + `": "server", "` + tokenEnv + `": "` + token + `"}},
	  "a": {"command": ` + jsonString(testExe) + `},
	  "typo": {"command": ` + jsonString(testExe) + `, "arsg": ["x"]}
	}}`)
	test.Tap(v.previewB)
	if !anyContains(widgetTexts(w.win.Content()), token) {
		t.Fatal("the pasted secret is not on the screen before the import: the test proves nothing")
	}
	// An entry left out when read: its problem with the remedy in words.
	if want := `"typo": not imported: arsg: is not a known key: did you mean "args"? Rename "arsg" to "args" in the entry, or remove it.`; !anyContains(widgetTexts(v.preview), want) {
		t.Errorf("the preview shows %q; want %q", widgetTexts(v.preview), want)
	}
	test.Tap(v.importB)
	h.until("the import", func() bool { return strings.Contains(v.results.Text, "imported My Helper as my-helper") })

	if v.text.Text != "" || len(v.secrets) != 0 {
		t.Errorf("after the secret moved, the text box holds %q (%d secret offers)", v.text.Text, len(v.secrets))
	}
	if anyContains(widgetTexts(w.win.Content()), token) {
		t.Errorf("the pasted secret is still on the screen: %q", widgetTexts(w.win.Content()))
	}
	if !strings.Contains(v.results.Text, "The pasted text was cleared") {
		t.Errorf("the results do not say the text was cleared: %q", v.results.Text)
	}
	secret := config.SuggestSecretName("my-helper", tokenEnv)
	if got, _ := h.store.Get(secret); got.Reveal() != token {
		t.Errorf("keyring %s = %q", secret, got.Reveal())
	}

	// a was refused: its problem in words, and the remedy as a button.
	words := widgetTexts(v.refused)
	if !anyContains(words, "Not imported: a") || !anyContains(words, `server "a" already exists. Change the existing a, or choose another name.`) {
		t.Errorf("the refusal shows %q", words)
	}
	if anyContains(words, "'switchboard servers set") {
		t.Errorf("the window shows the command line's words: %q", words)
	}
	edit := buttons(v.refused)["Edit a"]
	if edit == nil {
		t.Fatalf("no Edit a button among %v", buttons(v.refused))
	}
	test.Tap(edit)
	h.until("the form of a", func() bool { return w.form != nil && !w.form.create })
	if w.form.serverName() != "a" {
		t.Errorf("Edit a opened %q", w.form.serverName())
	}
}

// TestPasteKeepsTextWithoutMovedSecrets: a paste whose secret the user
// unticks is not imported (a secret is kept only in the keyring, the rule
// of servers import and clients import: issue 27 §16), says so with the
// remedy, and keeps its text box, to be imported again.
func TestPasteKeepsTextWithoutMovedSecrets(t *testing.T) {
	h := start(t, nil)
	w := h.w
	test.Tap(w.pasteBtn)
	v := w.paste
	block := `{"mcpServers": {"My Helper": {"command": ` + jsonString(testExe) + `, "env": {"` + helperEnv + `": "server", "` + tokenEnv + `": "tok-kept-0123456789"}}}}`
	v.text.SetText(block)
	test.Tap(v.previewB)
	if len(v.secrets) != 1 {
		t.Fatalf("%d secret offers", len(v.secrets))
	}
	v.secrets[0].check.SetChecked(false)
	test.Tap(v.importB)
	h.until("the refusal", func() bool { return anyContains(widgetTexts(v.refused), "Not imported: My Helper") })
	want := "My Helper.env." + tokenEnv + " looks like a secret, and a secret is kept only in the keyring, never as plain text in the config"
	if words := widgetTexts(v.refused); !anyContains(words, want) || !anyContains(words, "Move … into the keyring") {
		t.Errorf("the refusal shows %q; want %q and the remedy", words, want)
	}
	if strings.Contains(v.results.Text, "imported My Helper") {
		t.Errorf("a server with an unmoved literal secret was imported: %q", v.results.Text)
	}
	if b, _ := os.ReadFile(h.opts.ConfigPath); strings.Contains(string(b), "tok-kept-0123456789") {
		t.Errorf("the secret is in the config file:\n%s", b)
	}
	if v.text.Text != block || strings.Contains(v.results.Text, "cleared") {
		t.Errorf("the text box was cleared with no secret moved: %q; results %q", v.text.Text, v.results.Text)
	}
}

// urlApp records the addresses the window opens.
type urlApp struct {
	fyne.App
	mu     sync.Mutex
	opened []string
}

func (a *urlApp) OpenURL(u *url.URL) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opened = append(a.opened, u.String())
	return nil
}

// TestInstallRemedy: a server whose command is not found in the PATH the
// host gives servers says so with the host's install remedy in words (the
// program behind npx, or the host's PATH); for a launcher the host knows,
// the row's button opens the program's install page.
func TestInstallRemedy(t *testing.T) {
	empty := t.TempDir()
	h := start(t, map[string]any{
		"nonode": map[string]any{"command": "npx", "args": []string{"-y", "some-server"}, "env": map[string]string{"PATH": empty}},
		"ghost":  map[string]any{"command": "sb-no-such-command"},
	})
	app := &urlApp{App: h.w.app}
	h.w.app = app

	r := h.state("nonode", hostapi.StateFailed)
	h.until("nonode's Install button", func() bool { return r.ov.fix.Visible() })
	if r.ov.fix.Text != "Install Node.js…" {
		t.Errorf("nonode's button: %q", r.ov.fix.Text)
	}
	if want := `env.PATH: "npx" was not found in the PATH the entry sets (env.PATH). Install Node.js (it provides npx), or add the folder that has npx to the PATH the server's settings set`; !strings.Contains(r.ov.problem.Text, want) {
		t.Errorf("nonode's problem: %q; want %q", r.ov.problem.Text, want)
	}
	test.Tap(r.ov.fix)
	if !slices.Equal(app.opened, []string{"https://nodejs.org/en/download"}) {
		t.Errorf("the button opened %q", app.opened)
	}

	g := h.state("ghost", hostapi.StateFailed)
	if g.ov.fix.Visible() {
		t.Errorf("ghost offers %q: no install page is known for its command", g.ov.fix.Text)
	}
	if want := "Install sb-no-such-command, or add the folder that has sb-no-such-command to the PATH the host gives servers"; !strings.Contains(g.ov.problem.Text, want) {
		t.Errorf("ghost's problem: %q; want %q", g.ov.problem.Text, want)
	}
}

// TestAppsImportRefusal: an AI app's server that could not be imported
// (its secret was refused by the keyring: over the size limit) shows in
// the app's row with the host's problem, and the app's file is left as it
// was.
func TestAppsImportRefusal(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "mcp.json")
	big := strings.Repeat("x", 64<<10+1)
	orig := []byte(`{"mcpServers": {"My Helper": {"command": ` + jsonString(testExe) + `, "env": {"` + helperEnv + `": "server", "` + tokenEnv + `": "` + big + `"}}}}`)
	writeFixture(t, path, orig, 0o600)
	h := startApps(t, nil, home)
	v := h.openApps()
	r := v.rows["cursor"]
	test.Tap(r.importB)
	d := v.imp
	if d == nil || len(d.secrets) != 1 {
		t.Fatalf("the import dialog: %+v", d)
	}
	test.Tap(d.ok)
	h.until("the refusal in Cursor's row", func() bool { r = v.rows["cursor"]; return r != nil && len(v.refused["cursor"]) > 0 })
	words := widgetTexts(r.refused)
	if !anyContains(words, "Not imported: My Helper (moving My Helper.env."+tokenEnv+" into the keyring failed, so nothing of this server was imported)") ||
		!anyContains(words, "too") {
		t.Errorf("the row shows %q", words)
	}
	if v.change != nil {
		t.Error("a replacement is offered with nothing imported")
	}
	if got, err := os.ReadFile(path); err != nil || string(got) != string(orig) {
		t.Errorf("Cursor's file changed: %v", err)
	}
	if anyContains(widgetTexts(h.w.win.Content()), big[:64]) {
		t.Error("the secret's value is on the screen")
	}
}
