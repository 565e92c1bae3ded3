package window

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// pumpUntil runs the window's UI queue until cond holds: the form's
// checks after a pause in the typing come through it.
func pumpUntil(t *testing.T, q *uiQueue, what string, cond func() bool) {
	t.Helper()
	testkit.Eventually(t, what, func() bool {
		if cond() {
			return true
		}
		q.pump()
		return false
	})
}

// TestFormChecksAsTyped: a bad value's message appears under its field
// once the typing pauses (not at each keystroke: the check waits for the
// UI queue, which only this test runs), goes the moment the field is
// right, and meanwhile Save is disabled with the reason in the bar;
// fields not typed in yet show nothing, though they disable Save.
func TestFormChecksAsTyped(t *testing.T) {
	w, q := goldenWindow(t)
	w.openAdd()
	f := w.form
	if !f.save.Disabled() || f.reason.Text != "Give the server a name and a command to save" {
		t.Errorf("an empty form: Save disabled %v, reason %q", f.save.Disabled(), f.reason.Text)
	}
	if f.errs["name"].Visible() || f.errs["command"].Visible() {
		t.Error("an empty form scolds fields not typed in yet")
	}

	test.Type(f.name, "Files")
	if f.errs["name"].Text != "" {
		t.Errorf("the message shows at the keystroke, before the pause: %q", f.errs["name"].Text)
	}
	pumpUntil(t, q, "the name's message", func() bool { return f.errs["name"].Visible() })
	if !strings.Contains(f.errs["name"].Text, `server name "Files" is invalid`) || !strings.Contains(f.errs["name"].Text, `"files"`) {
		t.Errorf("the name's message: %q", f.errs["name"].Text)
	}
	if f.errs["command"].Visible() {
		t.Errorf("the command, not typed in yet, shows %q", f.errs["command"].Text)
	}
	if !f.save.Disabled() || f.reason.Text != "Fix the name and the command to save" {
		t.Errorf("Save disabled %v, reason %q", f.save.Disabled(), f.reason.Text)
	}

	f.name.SetText("files") // right: the message goes at once
	if f.errs["name"].Visible() || f.errs["name"].Text != "" {
		t.Errorf("the name's message stays once it is right: %q", f.errs["name"].Text)
	}
	if f.reason.Text != "Give the command to save" {
		t.Errorf("reason %q", f.reason.Text)
	}

	test.Type(f.command, "npx -y some-server")
	pumpUntil(t, q, "the command's message", func() bool { return f.errs["command"].Visible() })
	if !strings.Contains(f.errs["command"].Text, "contains whitespace") || !f.save.Disabled() || f.reason.Text != "Fix the command to save" {
		t.Errorf("command message %q, Save disabled %v, reason %q", f.errs["command"].Text, f.save.Disabled(), f.reason.Text)
	}
	test.Tap(f.save) // disabled: nothing happens
	if w.form != f || f.errs[""].Visible() {
		t.Errorf("tapping the disabled Save did something: %q", f.errs[""].Text)
	}
	f.command.SetText("npx")
	if f.errs["command"].Visible() || f.save.Disabled() || f.reason.Visible() {
		t.Errorf("a right command: message %q, Save disabled %v, reason %q", f.errs["command"].Text, f.save.Disabled(), f.reason.Text)
	}

	// A number of the Advanced group, from the option table.
	f.limitEntries["termGrace"].SetText("soon")
	pumpUntil(t, q, "termGrace's message", func() bool { return f.errs["termGrace"].Visible() })
	o, _ := config.OptionByKey("termGrace")
	if want := "Fix the " + strings.ToLower(o.Label[:1]) + o.Label[1:] + " to save"; f.reason.Text != want {
		t.Errorf("reason %q, want %q", f.reason.Text, want)
	}
	f.limitEntries["termGrace"].SetText("")
	if f.errs["termGrace"].Visible() || f.save.Disabled() {
		t.Error("termGrace's message stays once it is empty again")
	}
}

// TestFormReservesErrorLines: a message appearing under a field does not
// move the fields below it (the line is reserved), and the Save bar is
// outside the scrolling fields.
func TestFormReservesErrorLines(t *testing.T) {
	w, q := goldenWindow(t)
	w.openAdd()
	f := w.form
	// Where the working directory field is in the form (the window's
	// banners above the form may change meanwhile).
	d := fyne.CurrentApp().Driver()
	at := func() fyne.Position {
		settle(w.win.Canvas())
		return d.AbsolutePositionForObject(f.cwd).Subtract(d.AbsolutePositionForObject(f.obj))
	}
	before := at()
	test.Type(f.command, "a b")
	pumpUntil(t, q, "the command's message", func() bool { return f.errs["command"].Visible() })
	if after := at(); after != before {
		t.Errorf("the working directory field moved from %v to %v in the form when the command's message appeared", before, after)
	}
	// The bar (Save, Cancel) is not inside the scroll.
	if !slices.Contains(objectsOf(f.obj), fyne.CanvasObject(f.save)) {
		t.Fatal("Save is not in the form's object")
	}
	for _, sc := range scrollsIn(f.obj) {
		if slices.Contains(objectsOf(sc.Content), fyne.CanvasObject(f.save)) {
			t.Fatal("Save scrolls with the fields")
		}
	}
}

// TestFormWindowsOnlyOptions: "Batch files (Windows)" is offered on
// Windows only; elsewhere an entry that has it keeps it.
func TestFormWindowsOnlyOptions(t *testing.T) {
	defer func(g string) { goos = g }(goos)
	s, err := config.ParseServer("b", []byte(`{"command": "run.bat", "allowBatchFiles": true}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, sys := range []string{"linux", "darwin", "windows"} {
		goos = sys
		w, _ := goldenWindow(t)
		f := newServerForm(w, "b", false, s, nil, nil)
		shown := slices.Contains(labelsIn(f.obj), "Batch files (Windows)")
		if shown != (sys == "windows") {
			t.Errorf("%s: Batch files offered %v", sys, shown)
		}
		raw, _, _ := f.entry()
		var e map[string]any
		_ = json.Unmarshal(raw, &e)
		if e["allowBatchFiles"] != true {
			t.Errorf("%s: the entry lost allowBatchFiles: %s", sys, raw)
		}
	}
}

// TestFormSecretRows: a secret row has a labelled keyring name and a
// "stored" badge while the keyring (secrets.list of a real host) has a
// secret of that name.
func TestFormSecretRows(t *testing.T) {
	e := helperEntry()
	e["env"] = map[string]string{helperEnv: "server", tokenEnv: "${keyring:helper-token}"}
	h := start(t, map[string]any{"a": e})
	if err := h.store.Set("helper-token", secrets.New("v1")); err != nil {
		t.Fatal(err)
	}
	w := h.w
	w.openEdit("a")
	h.until("the edit form", func() bool { return w.form != nil })
	f := w.form
	r := f.env.row(tokenEnv)
	if r == nil || r.kind.Selected != kindSecret {
		t.Fatalf("no secret row for %s", tokenEnv)
	}
	h.until("the stored badge", func() bool { return r.stored.Visible() })
	if !slices.Contains(labelsIn(r.secretBox), "Keyring name") || r.secretName.Text != "helper-token" {
		t.Errorf("the secret row: labels %q, keyring name %q", labelsIn(r.secretBox), r.secretName.Text)
	}
	if r.secret.Text != "" || r.secret.PlaceHolder != "type a new value to replace it" {
		t.Errorf("a stored secret's value field: %q, placeholder %q", r.secret.Text, r.secret.PlaceHolder)
	}
	r.secretName.SetText("not-stored")
	if r.stored.Visible() {
		t.Error("the badge stays for a name the keyring lacks")
	}
	r.secretName.SetText("helper-token")
	if !r.stored.Visible() {
		t.Error("no badge for the stored name")
	}
	// A new secret row: no badge until its value is stored.
	test.Tap(f.addEnv)
	n := f.env.rows[len(f.env.rows)-1]
	test.Type(n.name, "OTHER")
	n.kind.SetSelected(kindSecret)
	if n.stored.Visible() || n.secretName.Text != config.SuggestSecretName("a", "OTHER") {
		t.Errorf("a new secret row: badge %v, name %q", n.stored.Visible(), n.secretName.Text)
	}
}

// objectsOf returns o and every object under it.
func objectsOf(o fyne.CanvasObject) []fyne.CanvasObject {
	out := []fyne.CanvasObject{o}
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			out = append(out, objectsOf(c)...)
		}
	case *container.Scroll:
		out = append(out, objectsOf(x.Content)...)
	case *widget.Accordion:
		for _, it := range x.Items {
			out = append(out, objectsOf(it.Detail)...)
		}
	}
	return out
}

// scrollsIn returns the scroll containers under o.
func scrollsIn(o fyne.CanvasObject) []*container.Scroll {
	var out []*container.Scroll
	for _, x := range objectsOf(o) {
		if sc, ok := x.(*container.Scroll); ok {
			out = append(out, sc)
		}
	}
	return out
}

// TestFormToolFilter edits tools.allow and tools.deny in the form: the
// running server's tools (servers.tools of a real host) show as checks
// that follow the globs; unticking a tool denies it by name, ticking it
// again lets it through; saved, the gateway hides the denied tool.
func TestFormToolFilter(t *testing.T) {
	h := start(t, map[string]any{"a": helperEntry()})
	r := h.state("a", hostapi.StateRunning)
	h.until("a's tools", func() bool { return strings.HasPrefix(r.ov.offers.Text, "2 tools") })
	w := h.w
	w.openEdit("a")
	h.until("the edit form", func() bool { return w.form != nil })
	f := w.form
	tf := f.tools
	h.until("the live tools as checks", func() bool { return len(tf.boxes) == 2 })
	checked := func() (out []string) {
		for _, n := range tf.names {
			if tf.boxes[n].Checked {
				out = append(out, n)
			}
		}
		return out
	}
	if got := checked(); !slices.Equal(got, []string{"echo", "secret"}) {
		t.Fatalf("with no filter, ticked %v", got)
	}

	test.Tap(tf.boxes["secret"]) // untick: denied by name
	if tf.deny.Text != "secret" || tf.allow.Text != "" || !slices.Equal(checked(), []string{"echo"}) {
		t.Errorf("after unticking secret: allow %q deny %q, ticked %v", tf.allow.Text, tf.deny.Text, checked())
	}
	test.Tap(tf.boxes["secret"]) // tick again: out of the deny list
	if tf.deny.Text != "" || !slices.Equal(checked(), []string{"echo", "secret"}) {
		t.Errorf("after ticking secret again: deny %q, ticked %v", tf.deny.Text, checked())
	}
	// The checks follow typed globs.
	tf.allow.SetText("ec*")
	if !slices.Equal(checked(), []string{"echo"}) {
		t.Errorf("allow ec*: ticked %v", checked())
	}
	test.Tap(tf.boxes["secret"]) // tick: added to the allow list by name
	if tf.allow.Text != "ec* secret" || !slices.Equal(checked(), []string{"echo", "secret"}) {
		t.Errorf("ticking secret under allow ec*: allow %q, ticked %v", tf.allow.Text, checked())
	}
	// A malformed glob is the config's problem, under the filter.
	tf.allow.SetText("[ec")
	h.until("the glob's message", func() bool { return f.errs["tools"].Visible() })
	if !strings.Contains(f.errs["tools"].Text, "not a valid pattern") || f.reason.Text != "Fix the tool filter to save" {
		t.Errorf("a malformed glob: %q, reason %q", f.errs["tools"].Text, f.reason.Text)
	}

	tf.allow.SetText("")
	tf.deny.SetText("sec*")
	h.until("Save enabled", func() bool { return !f.save.Disabled() })
	test.Tap(f.save)
	h.until("saved", func() bool { return w.form == nil })
	tools, _ := h.entry("a")["tools"].(map[string]any)
	if b, _ := json.Marshal(tools); string(b) != `{"deny":["sec*"]}` {
		t.Errorf("tools on the host: %s", b)
	}
	h.until("the gateway hides a__secret", func() bool {
		var info hostapi.GatewayInfo
		_ = h.call(func(ctx context.Context, c *client.Live) (err error) { info, err = c.Gateway(ctx); return err })
		hidden, shown := false, false
		for _, n := range info.Mapping.Tools {
			hidden = hidden || n.Exposed == "a__secret" && n.Hidden != ""
			shown = shown || n.Exposed == "a__echo" && n.Hidden == ""
		}
		return hidden && shown
	})

	// Cleared in the form: the key goes.
	w.openEdit("a")
	h.until("the edit form", func() bool { return w.form != nil })
	f = w.form
	if f.tools.deny.Text != "sec*" {
		t.Errorf("the saved filter in the form: deny %q", f.tools.deny.Text)
	}
	f.tools.deny.SetText("")
	h.until("Save enabled", func() bool { return !f.save.Disabled() })
	test.Tap(f.save)
	h.until("saved", func() bool { return w.form == nil })
	if e := h.entry("a"); e["tools"] != nil {
		t.Errorf("tools after clearing the filter: %v", e["tools"])
	}
}
