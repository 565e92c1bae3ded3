package window

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// deadAddress is a loopback address where nothing listens: a remote
// server there is unreachable, and no test reaches out of the machine.
const deadAddress = "http://127.0.0.1:1/mcp"

// sseServer is a go-sdk MCP server with one tool, served over the HTTP+SSE
// transport on a loopback port; it stops with the test. It returns its
// address.
func sseServer(t *testing.T) string {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "settings-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "ping", Description: "answers pong"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "pong"}}}, nil, nil
		})
	srv := httptest.NewServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL + "/sse"
}

// remoteSettings opens a server's Settings tab and returns its form and
// its remote fields, once they show; prev is a form shown before (the tab
// opens again after a save), nil for none.
func (h *harness) remoteSettings(name string, prev *serverForm) (*serverForm, *remoteFields) {
	h.t.Helper()
	d := h.row(name)
	h.tab(d, tabSettings)
	h.until("the settings of "+name, func() bool { return h.w.form != nil && h.w.form != prev && d.remote != nil })
	return h.w.form, d.remote
}

// contains reports whether o is in the tree of objects under root.
func contains(root, o fyne.CanvasObject) bool {
	if root == o {
		return true
	}
	switch x := root.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			if contains(c, o) {
				return true
			}
		}
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			if contains(c, o) {
				return true
			}
		}
	}
	return false
}

// without returns the entry less some keys.
func without(e map[string]any, keys ...string) map[string]any {
	out := map[string]any{}
	for k, v := range e {
		out[k] = v
	}
	for _, k := range keys {
		delete(out, k)
	}
	return out
}

// TestRemoteSettingsAddressAndTransport: a remote server added with a
// wrong address (nothing listens) is corrected in its Settings tab, which
// shows its address and transport where a local server has its command:
// a new address and the SSE transport saved through the host make the
// host's entry change, its other keys (headers, tools, policy, a key
// Switchboard does not know) stay as they were, and the host connects to
// the new address over SSE.
func TestRemoteSettingsAddressAndTransport(t *testing.T) {
	addr := sseServer(t)
	h := start(t, map[string]any{"r": map[string]any{
		"url":     deadAddress,
		"headers": map[string]string{"X-Team": "core"},
		"tools":   map[string]any{"deny": []string{"nothing*"}},
		"policy":  map[string]any{"default": "allow", "tools": map[string]string{"ping": "allow"}},
		"x-note":  "kept as written",
	}})
	w := h.w
	before := h.entry("r")
	d := h.row("r")
	h.until("r unreachable", func() bool {
		return d.state.Text == hostapi.StateUnreachable.Label() || d.state.Text == hostapi.StateFailed.Label()
	})

	f, r := h.remoteSettings("r", nil)
	if r.url.Text != deadAddress || r.typ.Selected != config.RemoteHTTP || r.oauth.Checked || f.name.Text != "r" {
		t.Fatalf("the settings show address %q, transport %q, oauth %v, name %q", r.url.Text, r.typ.Selected, r.oauth.Checked, f.name.Text)
	}
	tab := w.servers.detail.boxes[tabSettings]
	for what, o := range map[string]fyne.CanvasObject{"address": r.url, "transport": r.typ, "the tool filter": f.tools.obj, "the limits": f.advanced} {
		if !contains(tab, o) {
			t.Errorf("the Settings tab does not show %s", what)
		}
	}
	for what, o := range map[string]fyne.CanvasObject{"command": f.command, "arguments": f.args.box, "environment": f.env.box, "working directory": f.cwd, "sandbox": f.sandbox.obj} {
		if contains(tab, o) {
			t.Errorf("the Settings tab of a remote server shows its %s", what)
		}
	}

	test.Type(r.url, "x") // a change, then the right address
	r.url.SetText(addr)
	r.typ.SetSelected(config.RemoteSSE)
	test.Tap(f.save)
	h.until("the settings saved", func() bool { return strings.Contains(w.statusLine.Text, "Saved r") })
	after := h.entry("r")
	if after["url"] != addr || after["type"] != config.RemoteSSE || after["command"] != nil {
		t.Errorf("the host's entry after the save: %v", after)
	}
	if got, want := without(after, "url", "type"), without(before, "url", "type"); !reflect.DeepEqual(got, want) {
		t.Errorf("the other keys changed:\n got %v\nwant %v", got, want)
	}
	h.state("r", hostapi.StateRunning)

	// Opened again, the tab shows what was saved.
	_, r = h.remoteSettings("r", f)
	if r.url.Text != addr || r.typ.Selected != config.RemoteSSE {
		t.Errorf("the settings after the save show %q %q", r.url.Text, r.typ.Selected)
	}
}

// TestRemoteSettingsOAuth: OAuth turned on in the Settings tab with a
// client ID and scopes is saved in the host's entry, shows when the tab
// opens again, and turned off goes from the entry.
func TestRemoteSettingsOAuth(t *testing.T) {
	h := start(t, map[string]any{"r": map[string]any{"url": deadAddress, "headers": map[string]string{"X-Team": "core"}}})
	w := h.w
	f, r := h.remoteSettings("r", nil)
	if r.oauthBox.Visible() {
		t.Error("the client ID and scopes show while OAuth is off")
	}
	test.Tap(r.oauth)
	if !r.oauthBox.Visible() {
		t.Fatal("ticking OAuth does not show the client ID and scopes")
	}
	test.Type(r.clientID, "switchboard")
	test.Type(r.scopes, "read write")
	test.Tap(f.save)
	h.until("OAuth saved", func() bool { return strings.Contains(w.statusLine.Text, "Saved r") })
	e := h.entry("r")
	if o, _ := e["oauth"].(map[string]any); o["clientId"] != "switchboard" || !reflect.DeepEqual(toStrings(o["scopes"]), []string{"read", "write"}) {
		t.Fatalf("the host's entry after OAuth was turned on: %v", e)
	}
	if e["headers"] == nil || e["url"] != deadAddress {
		t.Errorf("turning OAuth on changed the rest: %v", e)
	}

	w.setStatus("", false)
	f, r = h.remoteSettings("r", f)
	if !r.oauth.Checked || !r.oauthBox.Visible() || r.clientID.Text != "switchboard" || r.scopes.Text != "read write" {
		t.Fatalf("the settings after the save: oauth %v, client ID %q, scopes %q", r.oauth.Checked, r.clientID.Text, r.scopes.Text)
	}
	if ov := w.servers.detail.ov; ov.oauth == nil || !*ov.oauth {
		t.Error("the Overview does not know the server signs in with OAuth now")
	}
	test.Tap(r.oauth)
	test.Tap(f.save)
	h.until("OAuth off saved", func() bool { return strings.Contains(w.statusLine.Text, "Saved r") })
	if e := h.entry("r"); e["oauth"] != nil || e["url"] != deadAddress || e["headers"] == nil {
		t.Errorf("the host's entry after OAuth was turned off: %v", e)
	}
	// The save closes the form (w.form nil) and the tab opens again once
	// the host returns the entry: until then d.remote is the old fields,
	// which the tap above unticked. Wait for the new form.
	h.until("the settings again, OAuth off", func() bool {
		return w.form != nil && w.form != f && w.servers.detail.remote != nil && !w.servers.detail.remote.oauth.Checked
	})
	if ov := w.servers.detail.ov; ov.oauth == nil || *ov.oauth || ov.signOut.Visible() {
		t.Error("the Overview still takes the server for one that signs in with OAuth")
	}
}

// TestRemoteSettingsBadAddress: an address the config refuses shows its
// problem under the Address field, in the config's words, Save says what
// to fix, and nothing reaches the host; the host's own refusal (a name
// another server has) shows under its field too.
func TestRemoteSettingsBadAddress(t *testing.T) {
	h := start(t, map[string]any{"r": map[string]any{"url": deadAddress}})
	w := h.w
	f, r := h.remoteSettings("r", nil)
	for _, c := range []struct{ addr, want string }{
		{"http://mcp.example.com/mcp", "is not encrypted"},
		{"mcp.example.com", "is not an http(s) address"},
		{"", "is empty"},
	} {
		test.Type(r.url, "x")
		r.url.SetText(c.addr)
		h.until("the address's problem: "+c.want, func() bool { return strings.Contains(f.errs["url"].Text, c.want) })
		if !f.save.Disabled() || f.reason.Text != "Fix the address to save" {
			t.Errorf("%q: Save disabled %v, reason %q", c.addr, f.save.Disabled(), f.reason.Text)
		}
		if f.errs[""].Text != "" {
			t.Errorf("%q: the bar says %q", c.addr, f.errs[""].Text)
		}
		test.Tap(f.save)
		h.q.pump()
		if w.form != f {
			t.Fatalf("%q: the form closed: it was saved", c.addr)
		}
	}
	if e := h.entry("r"); e["url"] != deadAddress || len(e) != 1 {
		t.Errorf("the host's entry changed: %v", e)
	}

	r.url.SetText(deadAddress)
	h.until("the problem gone", func() bool { return f.errs["url"].Text == "" && !f.save.Disabled() })
}

// TestRemoteSettingsKeepsKeys: the entry the Settings tab writes for a
// remote server keeps every key it does not show exactly as the host has
// it (headers, tools, policy, sandbox, the oauth's clientSecret and
// clientMetadataUrl, keys Switchboard does not know), while its address,
// transport, client ID and scopes change; a transport spelled otherwise
// ("streamable-http") is kept while it is not changed.
func TestRemoteSettingsKeepsKeys(t *testing.T) {
	w, _ := goldenWindow(t)
	raw := `{"url": "https://mcp.example.com/mcp", "type": "streamable-http",
		"headers": {"X-Team": "core", "X-Api-Key": "${keyring:example-key}"},
		"tools": {"allow": ["get_*"]}, "policy": {"default": "ask"}, "sandbox": "strict", "x-note": {"any": ["thing", 1]},
		"oauth": {"clientId": "a", "clientSecret": "${keyring:example-client}", "clientMetadataUrl": "https://sb.example/oauth/client.json", "scopes": ["read"]}}`
	s, err := config.ParseServer("example", []byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(raw), &base); err != nil {
		t.Fatal(err)
	}
	var orig map[string]any
	if err := json.Unmarshal([]byte(raw), &orig); err != nil {
		t.Fatal(err)
	}
	f, r := newRemoteSettings(w, "example", s, base)
	written := func() map[string]any {
		t.Helper()
		out, _, _ := f.entry()
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		return got
	}

	r.url.SetText("https://mcp.example.com/other") // the address only
	got := written()
	if got["url"] != "https://mcp.example.com/other" {
		t.Errorf("the address written: %v", got["url"])
	}
	if want := without(orig, "url"); !reflect.DeepEqual(without(got, "url"), want) {
		t.Errorf("changing the address changed other keys:\n got %v\nwant %v", without(got, "url"), want)
	}

	r.typ.SetSelected(config.RemoteSSE)
	r.clientID.SetText("b")
	r.scopes.SetText("read write")
	got = written()
	o, _ := got["oauth"].(map[string]any)
	if got["type"] != config.RemoteSSE || o["clientId"] != "b" || !reflect.DeepEqual(toStrings(o["scopes"]), []string{"read", "write"}) {
		t.Errorf("the entry written: %v", got)
	}
	if o["clientSecret"] != "${keyring:example-client}" || o["clientMetadataUrl"] != "https://sb.example/oauth/client.json" || len(o) != 4 {
		t.Errorf("the oauth keys not shown are not kept: %v", o)
	}
	if want := without(orig, "url", "type", "oauth"); !reflect.DeepEqual(without(got, "url", "type", "oauth"), want) {
		t.Errorf("other keys changed:\n got %v\nwant %v", without(got, "url", "type", "oauth"), want)
	}

	r.typ.SetSelected(config.RemoteHTTP) // back as it was: kept as spelled
	if got := written(); got["type"] != "streamable-http" {
		t.Errorf("the transport as it was is written %v", got["type"])
	}
	r.oauth.SetChecked(false)
	if got := written(); got["oauth"] != nil {
		t.Errorf("OAuth off still writes %v", got["oauth"])
	}
	r.oauth.SetChecked(true) // on again: the keys not shown come back
	if o, _ := written()["oauth"].(map[string]any); o["clientSecret"] != "${keyring:example-client}" || o["clientMetadataUrl"] == nil {
		t.Errorf("OAuth on again: %v", o)
	}
	// The sandbox is a problem on a remote entry: named in the bar, as
	// the config names it, since the tab has no sandbox field.
	f.validate(true)
	if !strings.HasPrefix(f.errs[""].Text, "sandbox: ") {
		t.Errorf("the bar says %q, want the sandbox's problem", f.errs[""].Text)
	}
}

// TestGoldenRemoteSettings is a remote server's Settings tab, as
// openSettings fills it from the entry the host returns: its name, its
// address, transport and sign-in, its tool filter, the limits.
func TestGoldenRemoteSettings(t *testing.T) {
	w, _ := goldenWindow(t)
	snap := goldenSnapshot()
	snap.Servers = append(snap.Servers, remoteSnapshot())
	w.apply(snap)
	s, base := parsedEntry(t, "linear", `{"url": "https://mcp.linear.app/sse", "type": "sse", "oauth": {"clientId": "switchboard", "scopes": ["read", "write"]}}`)
	f, _ := newRemoteSettings(w, "linear", s, base)
	inSettings(w, "linear", f)
	assertMarkup(t, w, "settings-remote.xml")
}

// TestRemoteFormEmptyAddress: the add page's remote form saved with no
// address says so under Address, in the config's words, and nothing in
// the bar (before, the config took the entry for a local one and the bar
// asked for a command).
func TestRemoteFormEmptyAddress(t *testing.T) {
	w, _ := goldenWindow(t)
	r := w.openAddRemote()
	r.name.SetText("corp")
	r.submit()
	if !strings.Contains(r.errs["url"].Text, "is empty: give the server's address") || r.errs[""].Text != "" {
		t.Errorf("the address's error line says %q, the bar %q", r.errs["url"].Text, r.errs[""].Text)
	}
	if !r.save.Disabled() {
		t.Error("Save is enabled with no address")
	}
}
