package window

import (
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// remoteSnapshot is the golden snapshot with a remote server that needs a
// sign-in.
func remoteSnapshot() hostapi.ServerStatus {
	return hostapi.ServerStatus{Name: "linear", State: hostapi.StateSignInNeeded, URL: "https://mcp.linear.app/mcp", Transport: "http",
		LastError: "signed out: run 'switchboard servers login linear'"}
}

// TestGoldenRemote: the add page on its remote form, with a plain http
// address that is not this machine's refused under its field; a remote
// server's Overview with its address, its state in words and Sign in.
func TestGoldenRemote(t *testing.T) {
	w, _ := goldenWindow(t)
	r := w.openAddRemote()
	r.name.SetText("linear")
	r.url.SetText("http://mcp.linear.app/mcp")
	r.oauth.SetChecked(true)
	r.scopes.SetText("read write")
	r.submit()
	if !strings.Contains(r.errs["url"].Text, "not encrypted") {
		t.Errorf("the url's error line says %q, want the config's refusal of plain http", r.errs["url"].Text)
	}
	assertMarkup(t, w, "remote-form.xml")

	snap := goldenSnapshot()
	snap.Servers = append(snap.Servers, remoteSnapshot())
	w.apply(snap)
	w.home()
	w.servers.choose("linear")
	d := w.servers.detail
	if d == nil || !d.ov.signIn.Visible() || d.ov.signOut.Visible() {
		t.Fatalf("a server in sign-in needed has no Sign in button (or has Sign out)")
	}
	assertMarkup(t, w, "overview-remote.xml")
}

// TestRemoteFormEntry: the entry the remote form writes, as the config
// reads it; a loopback http address is accepted.
func TestRemoteFormEntry(t *testing.T) {
	w, _ := goldenWindow(t)
	r := w.openAddRemote()
	r.name.SetText("corp")
	r.url.SetText("http://127.0.0.1:8080/mcp")
	r.typ.SetSelected("sse")
	if _, _, ok := r.validate(); !ok {
		t.Fatalf("a loopback http address is refused: %q", r.errs["url"].Text)
	}
	r.oauth.SetChecked(true)
	r.clientID.SetText("switchboard")
	r.scopes.SetText(" read  write ")
	raw, _, ok := r.validate()
	if !ok {
		t.Fatalf("the entry has problems: %v", r.errs)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := `{"oauth":{"clientId":"switchboard","scopes":["read","write"]},"type":"sse","url":"http://127.0.0.1:8080/mcp"}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("entry %s, want %s", b, want)
	}
	r.url.SetText("ftp://example.com")
	if _, _, ok := r.validate(); ok || r.errs["url"].Text == "" {
		t.Errorf("an ftp address is accepted (error line %q)", r.errs["url"].Text)
	}
	test.Tap(r.save)
}

// TestRemoteSettingsKeepsURL: the Settings form of a remote entry writes
// no command: its url, type and oauth stay, and a tool filter typed there
// is saved with them.
func TestRemoteSettingsKeepsURL(t *testing.T) {
	w, _ := goldenWindow(t)
	raw := json.RawMessage(`{"url": "https://mcp.linear.app/sse", "type": "sse", "oauth": {}}`)
	s, err := config.ParseServer("linear", raw)
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &base); err != nil {
		t.Fatal(err)
	}
	f := newServerForm(w, "linear", false, s, base, nil)
	f.limitEntries["callTimeout"].SetText("60000")
	out, _, _ := f.entry()
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if _, has := got["command"]; has || got["url"] != "https://mcp.linear.app/sse" || got["type"] != "sse" || got["oauth"] == nil || got["callTimeout"] != float64(60000) {
		t.Errorf("the entry written: %s", out)
	}
	if nameMsg, ps := checkEntry("linear", out); nameMsg != "" || len(ps) > 0 {
		t.Errorf("the entry has problems: %s %v", nameMsg, ps)
	}
}

// TestRemoteFormEmptySave: the remote add form, empty, does not offer
// Save, and its bar says what to give, as the command form does; Save is
// offered once the name and the address are valid (issue 27 §22).
func TestRemoteFormEmptySave(t *testing.T) {
	w, _ := goldenWindow(t)
	f, _ := w.addPage(false)
	if !f.save.Disabled() {
		t.Errorf("the command form offers Save on an empty form")
	}
	r := w.openAddRemote()
	if !r.save.Disabled() || r.reason.Text != "Give the server a name and an address to save" {
		t.Errorf("the empty remote form: Save disabled %v, the bar says %q", r.save.Disabled(), r.reason.Text)
	}
	if r.errs["name"].Text != "" || r.errs["url"].Text != "" {
		t.Errorf("an untouched field says what is wrong: %q %q", r.errs["name"].Text, r.errs["url"].Text)
	}
	r.name.SetText("corp")
	if !r.save.Disabled() || r.reason.Text != "Give the address to save" {
		t.Errorf("without an address: Save disabled %v, the bar says %q", r.save.Disabled(), r.reason.Text)
	}
	r.url.SetText("https://mcp.example.com/mcp")
	if r.save.Disabled() || r.reason.Text != "" {
		t.Errorf("a valid form: Save disabled %v, the bar says %q", r.save.Disabled(), r.reason.Text)
	}
	for _, size := range []fyne.Size{{Width: 1120, Height: 720}, {Width: 800, Height: 600}} {
		shoot(t, w, "add-remote-empty", size, func() {
			snap := goldenSnapshot()
			snap.Info.Config.Error = ""
			w.apply(snap)
			w.openAddRemote() // untouched
		})
	}
}

// TestRemoteWordsUnauthorized: an unauthorized server's state line says
// no more than the state does; the host's reason (credentials refused,
// none sent, another origin) is under What is wrong. It once said "the
// server refused the credentials" of an entry that sent none (issue 27 §6).
func TestRemoteWordsUnauthorized(t *testing.T) {
	w := remoteWords(hostapi.ServerStatus{State: hostapi.StateUnauthorized,
		LastError: "https://mcp.example.test/ answered HTTP 401, and the entry sends no credentials"})
	if w == "" || strings.Contains(w, "credentials") || !strings.Contains(w, "What is wrong") {
		t.Fatalf("the unauthorized state's words: %q", w)
	}
}
