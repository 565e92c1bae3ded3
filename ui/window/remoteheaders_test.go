package window

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// headerServer is a go-sdk MCP server over Streamable HTTP on a loopback
// port that records the value of a header of each request; it stops with
// the test. It returns its address and the last value seen.
func headerServer(t *testing.T, name string) (addr string, last func() string) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "headers-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ping", Description: "answers pong"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	var mu sync.Mutex
	seen := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = r.Header.Get(name)
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp", func() string { mu.Lock(); defer mu.Unlock(); return seen }
}

// headerRowOf returns the row of a header in the Settings tab's table.
func headerRowOf(t *testing.T, f *serverForm, name string) *headerRow {
	t.Helper()
	if r := f.headers.rowOf("headers." + name); r != nil {
		return r
	}
	t.Fatalf("no row for the header %s", name)
	return nil
}

// textsIn returns the text of every label and entry under o, those of
// hidden ones too, password entries' included.
func textsIn(o fyne.CanvasObject) []string {
	var out []string
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			out = append(out, textsIn(c)...)
		}
		return out
	case *widget.Label:
		return []string{x.Text}
	case *widget.Entry:
		return []string{x.Text, x.PlaceHolder}
	case *escEntry:
		return []string{x.Text, x.PlaceHolder}
	case *widget.Select:
		return []string{x.Selected}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			out = append(out, textsIn(c)...)
		}
	}
	return out
}

// headerSecret is the value of the secret header the tests type.
const headerSecret = "sk-live-4242-not-for-the-screen"

// addHeadersThroughSettings adds a plain header and a secret header to a
// remote server from its Settings tab, changes a plain header's value and
// removes another, and sees the host's entry hold the plain values and
// ${keyring:r-x-api-key}, the keyring (store, the host's) hold the
// secret, the server receive it, and no screen nor the config file show
// it.
func addHeadersThroughSettings(t *testing.T, h *harness, store *secrets.Store, seen func() string) {
	const secret = headerSecret
	w := h.w
	before := h.entry("r")
	f, _ := h.remoteSettings("r", nil)
	if len(f.headers.rows) != 2 {
		t.Fatalf("the Settings tab shows %d header rows, want X-Old and X-Keep", len(f.headers.rows))
	}
	if keep := headerRowOf(t, f, "X-Keep"); keep.kind.Selected != kindValue || keep.value.Text != "k" {
		t.Fatalf("the row of X-Keep: %s %q", keep.kind.Selected, keep.value.Text)
	}

	test.Tap(headerRowOf(t, f, "X-Old").del)
	keep := headerRowOf(t, f, "X-Keep")
	keep.value.SetText("")
	test.Type(keep.value, "k2")
	plain := f.headers.add(kindValue)
	test.Type(plain.name, "X-Team")
	test.Type(plain.value, "blue")
	sec := f.headers.add(kindSecret)
	test.Type(sec.name, "X-Api-Key")
	if !sec.secretBox.Visible() || sec.value.Visible() || !sec.secret.Password {
		t.Fatal("a secret header's row shows no password entry")
	}
	want := config.SuggestSecretName("r", "X-Api-Key")
	if sec.secretName.Text != want {
		t.Errorf("the suggested keyring name is %q, want %q (the config's remedy's)", sec.secretName.Text, want)
	}
	test.Type(sec.secret, secret)
	h.until("Save enabled", func() bool { f.validate(false); return !f.save.Disabled() })
	test.Tap(f.save)
	h.until("the headers saved", func() bool { return strings.Contains(w.statusLine.Text, "Saved r") })

	after := h.entry("r")
	hd, _ := after["headers"].(map[string]any)
	wantHeaders := map[string]any{"X-Keep": "k2", "X-Team": "blue", "X-Api-Key": config.KeyringRef(want)}
	if !reflect.DeepEqual(hd, wantHeaders) {
		t.Errorf("the host's headers: %v, want %v", hd, wantHeaders)
	}
	if got, want := without(after, "headers"), without(before, "headers"); !reflect.DeepEqual(got, want) {
		t.Errorf("the other keys changed:\n got %v\nwant %v", got, want)
	}
	if got, err := store.Get(want); err != nil || got.Reveal() != secret {
		t.Errorf("the keyring's %s: %v (%v)", want, got, err)
	}
	disk, err := os.ReadFile(h.opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(disk), secret) || !strings.Contains(string(disk), config.KeyringRef(want)) {
		t.Errorf("the config file must refer to the secret, never hold it:\n%s", disk)
	}
	h.until("the server gets the secret header", func() bool { return seen() == secret })
	h.state("r", hostapi.StateRunning)

	// Opened again: the secret header shows the secret's name, never its
	// value.
	f, _ = h.remoteSettings("r", f)
	sec = headerRowOf(t, f, "X-Api-Key")
	if sec.kind.Selected != kindSecret || sec.secretName.Text != want || sec.secret.Text != "" {
		t.Errorf("the secret header after the save: kind %s, keyring name %q, value typed %v", sec.kind.Selected, sec.secretName.Text, sec.secret.Text != "")
	}
	h.until("the stored badge", func() bool { return sec.stored.Visible() })
	for _, s := range textsIn(w.servers.detail.boxes[tabSettings]) {
		if strings.Contains(s, secret) {
			t.Errorf("the Settings tab shows the secret: %q", s)
		}
	}
}

// TestRemoteSettingsAddHeaders: addHeadersThroughSettings against the
// host's keyring of the tests (the in-memory store; the real
// gnome-keyring: TestRemoteSettingsAddHeadersRealKeyring).
func TestRemoteSettingsAddHeaders(t *testing.T) {
	addr, seen := headerServer(t, "X-Api-Key")
	h := start(t, map[string]any{"r": map[string]any{
		"url": addr, "headers": map[string]string{"X-Old": "gone", "X-Keep": "k"},
		"tools": map[string]any{"deny": []string{"nothing*"}}, "x-note": "kept as written",
	}})
	addHeadersThroughSettings(t, h, h.store, seen)
}

// TestRemoteSettingsBadHeader: a header name the config refuses shows the
// config's problem under its row, Save says to fix the headers, and
// nothing reaches the host; a literal value in a header whose name says
// it holds a secret shows the literal-secret problem with its remedy, the
// button "Use a secret header", which moves the value (the token of
// "Bearer TOKEN") into the password entry, out of sight, and the problem
// goes.
func TestRemoteSettingsBadHeader(t *testing.T) {
	h := start(t, map[string]any{"r": map[string]any{"url": deadAddress}})
	w := h.w
	f, _ := h.remoteSettings("r", nil)
	r := f.headers.add(kindValue)
	for _, c := range []struct{ name, want string }{
		{"X Bad", `"X Bad" is not a valid header name`},
		{"Mcp-Session-Id", "is set by the transport"},
	} {
		r.name.SetText(c.name)
		test.Type(r.value, "v")
		h.until("the header's problem: "+c.want, func() bool { return strings.Contains(r.err.Text, c.want) })
		if !f.save.Disabled() || f.reason.Text != "Fix the headers to save" {
			t.Errorf("%s: Save disabled %v, reason %q", c.name, f.save.Disabled(), f.reason.Text)
		}
		if f.errs[""].Text != "" || f.errs["headers"].Text != "" {
			t.Errorf("%s: the bar says %q, the field %q: the problem belongs under the row", c.name, f.errs[""].Text, f.errs["headers"].Text)
		}
		test.Tap(f.save)
		h.q.pump()
		if w.form != f {
			t.Fatalf("%s: the form closed: it was saved", c.name)
		}
	}
	if e := h.entry("r"); e["headers"] != nil {
		t.Errorf("the host's entry changed: %v", e)
	}

	r.name.SetText("Authorization")
	r.value.SetText("")
	test.Type(r.value, "Bearer abc123")
	h.until("the literal secret's problem", func() bool { return strings.Contains(r.err.Text, "holds a literal secret") })
	if !strings.Contains(r.err.Text, "use a secret header") || !r.useBox.Visible() {
		t.Errorf("the literal secret's row says %q (button shown %v)", r.err.Text, r.useBox.Visible())
	}
	if !f.save.Disabled() {
		t.Error("Save is enabled with a literal secret")
	}
	test.Tap(r.useSecret)
	if r.kind.Selected != kindSecret || r.secret.Text != "abc123" || r.value.Text != "" || r.value.Visible() {
		t.Fatalf("after Use a secret header: kind %s, secret typed %v, value %q", r.kind.Selected, r.secret.Text == "abc123", r.value.Text)
	}
	secret := config.SuggestSecretName("r", "Authorization")
	if r.secretName.Text != secret || r.sentAs.Text != "Sent as Bearer "+config.KeyringRef(secret) {
		t.Errorf("the keyring name %q, %q", r.secretName.Text, r.sentAs.Text)
	}
	h.until("the problem gone", func() bool { return r.err.Text == "" && !f.save.Disabled() })
	test.Tap(f.save)
	h.until("saved", func() bool { return strings.Contains(w.statusLine.Text, "Saved r") })
	if hd, _ := h.entry("r")["headers"].(map[string]any); hd["Authorization"] != "Bearer "+config.KeyringRef(secret) {
		t.Errorf("the host's headers: %v", hd)
	}
	if got, err := h.store.Get(secret); err != nil || got.Reveal() != "abc123" {
		t.Errorf("the keyring's %s: %v %v", secret, got, err)
	}
}

// TestRemoteSettingsLiteralSecretMasked: a literal secret the entry has
// (written in the config file by hand) is masked in its row, with the
// literal-secret problem and the button; a header referring to several
// secrets is kept as written, its secrets named.
func TestRemoteSettingsLiteralSecretMasked(t *testing.T) {
	w, _ := goldenWindow(t)
	raw := `{"url": "https://mcp.example.com/mcp", "headers": {"X-Api-Key": "sk-handwritten", "X-Pair": "${keyring:a}:${keyring:b}"}}`
	s, err := config.ParseServer("example", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(raw), &base); err != nil {
		t.Fatal(err)
	}
	f, _ := newRemoteSettings(w, "example", s, base)
	r := headerRowOf(t, f, "X-Api-Key")
	if !r.value.Password || r.value.Text != "sk-handwritten" {
		t.Errorf("the literal secret's value: password entry %v", r.value.Password)
	}
	if !strings.Contains(r.err.Text, "holds a literal secret") || !r.useBox.Visible() || !f.save.Disabled() {
		t.Errorf("the row says %q (button %v), Save disabled %v", r.err.Text, r.useBox.Visible(), f.save.Disabled())
	}
	for _, s := range textsIn(r.obj) {
		if s == "sk-handwritten" && s != r.value.Text {
			t.Errorf("the secret shows outside its password entry")
		}
	}
	pair := headerRowOf(t, f, "X-Pair")
	if !pair.kind.Disabled() || !strings.Contains(pair.fixed.Text, "a, b") {
		t.Errorf("the row of two secrets: kind disabled %v, %q", pair.kind.Disabled(), pair.fixed.Text)
	}
	test.Tap(r.useSecret)
	f.validate(false)
	out, secrets, _ := f.entry()
	var e struct{ Headers map[string]string }
	if err := json.Unmarshal(out, &e); err != nil {
		t.Fatal(err)
	}
	want := config.SuggestSecretName("example", "X-Api-Key")
	if e.Headers["X-Api-Key"] != config.KeyringRef(want) || e.Headers["X-Pair"] != "${keyring:a}:${keyring:b}" {
		t.Errorf("the headers written: %v", e.Headers)
	}
	if len(secrets) != 1 || secrets[0].Name != want || secrets[0].Value != "sk-handwritten" {
		t.Errorf("the secrets to store: %d", len(secrets))
	}
	if f.save.Disabled() || r.err.Text != "" {
		t.Errorf("after Use a secret header: Save disabled %v, the row says %q", f.save.Disabled(), r.err.Text)
	}
}

// TestRemoteSettingsUnreadableHeaders: "headers" the config cannot read
// (a value that is not a string) has its problem under the Headers field
// with its key, no row, and no way to add one (which would replace it):
// the entry keeps it as written.
func TestRemoteSettingsUnreadableHeaders(t *testing.T) {
	w, _ := goldenWindow(t)
	raw := `{"url": "https://mcp.example.com/mcp", "headers": {"X-Team": "core", "X-Count": 3}}`
	s, err := config.ParseServer("example", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(raw), &base); err != nil {
		t.Fatal(err)
	}
	f, r := newRemoteSettings(w, "example", s, base)
	if !strings.HasPrefix(f.errs["headers"].Text, "headers.X-Count: ") || f.errs[""].Text != "" {
		t.Errorf("the Headers field says %q, the bar %q", f.errs["headers"].Text, f.errs[""].Text)
	}
	if len(f.headers.rows) != 0 || !f.headers.addPlain.Disabled() || !f.headers.addSecret.Disabled() {
		t.Errorf("%d rows; add buttons disabled %v %v", len(f.headers.rows), f.headers.addPlain.Disabled(), f.headers.addSecret.Disabled())
	}
	r.url.SetText("https://mcp.example.com/other")
	out, _, _ := f.entry()
	var e map[string]json.RawMessage
	if err := json.Unmarshal(out, &e); err != nil {
		t.Fatal(err)
	}
	if string(e["headers"]) != `{"X-Team":"core","X-Count":3}` { // as written, in order
		t.Errorf("the headers written: %s", e["headers"])
	}
}

// TestRemoteSettingsLocalOnlyKeys: a remote entry with keys of a process
// (args, env) has their problems in the bar and a button that names them;
// it removes exactly those keys from the entry the tab saves, the problems
// go, and the host's entry, saved, has them no more and runs.
func TestRemoteSettingsLocalOnlyKeys(t *testing.T) {
	addr := sseServer(t)
	h := start(t, map[string]any{"r": map[string]any{
		"url": addr, "type": "sse", "args": []string{"--verbose"}, "env": map[string]string{"A": "b"},
		"headers": map[string]string{"X-Team": "core"}, "x-note": "kept as written",
	}})
	w := h.w
	h.state("r", hostapi.StateInvalid)
	before := h.entry("r")
	f, _ := h.remoteSettings("r", nil)
	const label = "Remove local-only settings (args, env)"
	btn := findButton(w, label)
	if btn == nil {
		t.Fatalf("the tab shows no button %q", label)
	}
	for _, k := range []string{"args: is an option of a local server", "env: is an option of a local server"} {
		if !strings.Contains(f.errs[""].Text, k) {
			t.Errorf("the bar says %q, want %q", f.errs[""].Text, k)
		}
	}
	if !f.save.Disabled() {
		t.Error("Save is enabled with keys of a process on a remote entry")
	}
	test.Tap(btn)
	if f.errs[""].Text != "" || findButton(w, label) != nil || f.save.Disabled() {
		t.Errorf("after the removal: the bar %q, Save disabled %v", f.errs[""].Text, f.save.Disabled())
	}
	test.Tap(f.save)
	h.until("saved", func() bool { return strings.Contains(w.statusLine.Text, "Saved r") })
	if got, want := h.entry("r"), without(before, "args", "env"); !reflect.DeepEqual(got, want) {
		t.Errorf("the host's entry:\n got %v\nwant %v", got, want)
	}
	h.state("r", hostapi.StateRunning)
}

// TestGoldenRemoteSettingsHeaders is a remote server's Settings tab with
// headers: a secret one with text around its reference (its name shown,
// as sent), a plain one, a new secret typed (masked), and a literal
// secret with its problem and button.
func TestGoldenRemoteSettingsHeaders(t *testing.T) {
	w, _ := goldenWindow(t)
	snap := goldenSnapshot()
	snap.Servers = append(snap.Servers, remoteSnapshot())
	w.apply(snap)
	s, base := parsedEntry(t, "linear", `{"url": "https://mcp.linear.app/mcp", "headers": {"Authorization": "Bearer ${keyring:linear-token}", "X-Team": "core", "X-Api-Key": "typed-in-the-file"}}`)
	f, _ := newRemoteSettings(w, "linear", s, base)
	r := f.headers.add(kindSecret)
	r.name.SetText("X-Org-Secret")
	r.secret.SetText("not shown")
	inSettings(w, "linear", f)
	f.validate(false)
	assertMarkup(t, w, "settings-remote-headers.xml")
}

// TestRemoteAddWithHeaders: the add page's remote form takes headers as
// the Settings tab does: a plain one, and a secret one whose value goes to
// the host's keyring (secrets.set before servers.put) while the entry
// holds ${keyring:NAME}; the keyring name follows the server's name typed
// after the row; a bad header name keeps Save from writing anything; the
// server gets both headers and runs.
func TestRemoteAddWithHeaders(t *testing.T) {
	addr, seen := headerServer(t, "X-Api-Key")
	h := start(t, map[string]any{})
	w := h.w
	r := w.openAddRemote()
	r.url.SetText(addr)
	bad := r.headers.add(kindValue)
	test.Type(bad.name, "X Bad")
	test.Type(bad.value, "1")
	sec := r.headers.add(kindSecret)
	test.Type(sec.name, "X-Api-Key")
	test.Type(r.name, "corp") // after the row: its suggested keyring name follows
	want := config.SuggestSecretName("corp", "X-Api-Key")
	if sec.secretName.Text != want {
		t.Errorf("the suggested keyring name is %q, want %q", sec.secretName.Text, want)
	}
	test.Type(sec.secret, headerSecret)
	test.Tap(r.save)
	if bad.err.Text == "" || !strings.Contains(bad.err.Text, "X Bad") && !strings.Contains(strings.ToLower(bad.err.Text), "name") {
		t.Errorf("a header name with a space: the row says %q", bad.err.Text)
	}
	if !r.save.Disabled() || r.reason.Text != "Fix the headers to save" {
		t.Errorf("a bad header name: Save disabled %v, the bar's reason %q", r.save.Disabled(), r.reason.Text)
	}
	if err := h.call(func(ctx context.Context, c *client.Live) error {
		_, err := c.GetServer(ctx, "corp")
		return err
	}); err == nil {
		t.Fatal("an entry with a bad header name reached the host")
	}

	bad.name.SetText("")
	test.Type(bad.name, "X-Team")
	bad.value.SetText("")
	test.Type(bad.value, "blue")
	h.until("Save enabled", func() bool { r.validate(); return !r.save.Disabled() })
	if r.reason.Visible() || r.reason.Text != "" {
		t.Errorf("Save is enabled and the bar still says %q", r.reason.Text)
	}
	test.Tap(r.save)
	h.until("the server saved", func() bool { return strings.Contains(w.statusLine.Text, "Saved corp") })
	hd, _ := h.entry("corp")["headers"].(map[string]any)
	wantHeaders := map[string]any{"X-Team": "blue", "X-Api-Key": config.KeyringRef(want)}
	if !reflect.DeepEqual(hd, wantHeaders) {
		t.Errorf("the host's headers: %v, want %v", hd, wantHeaders)
	}
	if got, err := h.store.Get(want); err != nil || got.Reveal() != headerSecret {
		t.Errorf("the keyring's %s: %v (%v)", want, got, err)
	}
	disk, err := os.ReadFile(h.opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(disk), headerSecret) {
		t.Errorf("the config file holds the secret:\n%s", disk)
	}
	if sec.secret.Text != "" {
		t.Error("the typed secret stays in the form after it was stored")
	}
	h.until("the server gets the secret header", func() bool { return seen() == headerSecret })
	h.state("corp", hostapi.StateRunning)
}

// TestRemoteAddSaveReason: the remote form's bar says why Save is
// disabled, naming the fields as the command form's does, and asks for a
// field left empty (an untouched form too: issue 27 §22).
func TestRemoteAddSaveReason(t *testing.T) {
	h := start(t, map[string]any{})
	r := h.w.openAddRemote()
	if !r.save.Disabled() || r.reason.Text != "Give the server a name and an address to save" {
		t.Errorf("an untouched form: Save disabled %v, the bar says %q", r.save.Disabled(), r.reason.Text)
	}
	test.Type(r.url, "http://127.0.0.1:9/mcp")
	if !r.save.Disabled() || r.reason.Text != "Give the name to save" {
		t.Errorf("no name: Save disabled %v, the bar's reason %q", r.save.Disabled(), r.reason.Text)
	}
	test.Type(r.name, "corp")
	r.url.SetText("ftp://example.com/mcp")
	bad := r.headers.add(kindValue)
	test.Type(bad.name, "X Bad")
	test.Type(bad.value, "1")
	r.validate()
	if !r.save.Disabled() || r.reason.Text != "Fix the address and the headers to save" {
		t.Errorf("a bad address and header: Save disabled %v, the bar's reason %q", r.save.Disabled(), r.reason.Text)
	}
	r.url.SetText("http://127.0.0.1:9/mcp")
	bad.name.SetText("X-Team")
	r.validate()
	if r.save.Disabled() || r.reason.Visible() {
		t.Errorf("nothing wrong: Save disabled %v, the bar says %q", r.save.Disabled(), r.reason.Text)
	}
}
