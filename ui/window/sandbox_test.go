package window

import (
	"encoding/json"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

// sandboxOfForm is the "sandbox" of the entry the form describes ("" for
// none).
func sandboxOfForm(t *testing.T, f *serverForm) string {
	t.Helper()
	raw, _, _ := f.entry()
	var e map[string]json.RawMessage
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatal(err)
	}
	return string(e["sandbox"])
}

func formFor(t *testing.T, w *Window, entry string) *serverForm {
	t.Helper()
	s, base := parsedEntry(t, "box", entry)
	f := newServerForm(w, "box", false, s, base, nil)
	w.open(&page{title: "Settings of box", obj: f.obj})
	w.form = f
	return f
}

// parsedEntry parses an entry as the Settings tab gets it from the host: the
// server, and its keys as written.
func parsedEntry(t *testing.T, name, entry string) (*config.Server, map[string]json.RawMessage) {
	t.Helper()
	s, err := config.ParseServer(name, []byte(entry))
	if err != nil {
		t.Fatal(err)
	}
	base := map[string]json.RawMessage{}
	if err := json.Unmarshal([]byte(entry), &base); err != nil {
		t.Fatal(err)
	}
	return s, base
}

// inSettings shows f as server name's Settings tab, as openSettings
// does.
func inSettings(w *Window, name string, f *serverForm) {
	w.showServer(name, tabSettings)
	w.embedIn = w.servers.detail.boxes[tabSettings]
	w.open(&page{title: "Settings of " + name, obj: f.obj})
	w.embedIn = nil
	w.form = f
}

// TestFormSandboxSection: the choices write the entry's "sandbox" as the
// config takes it; each says what it means in a plain sentence; Files
// shows the folders; an address that is not host:port is named under
// the section and disables Save; an entry without a sandbox stays without
// one while Off is chosen.
func TestFormSandboxSection(t *testing.T) {
	w, q := goldenWindow(t)
	f := formFor(t, w, `{"command": "npx"}`)
	sb := f.sandbox
	if sb.choice.Selected != "Off" || sandboxOfForm(t, f) != "" {
		t.Fatalf("no sandbox: choice %q, entry %s", sb.choice.Selected, sandboxOfForm(t, f))
	}
	if !strings.Contains(sb.sentence.Text, "all your rights") || sb.folders.Visible() || sb.netRow.Visible() {
		t.Errorf("Off: sentence %q, folders shown %v, network shown %v", sb.sentence.Text, sb.folders.Visible(), sb.netRow.Visible())
	}

	sb.choice.SetSelected("Strict")
	if got := sandboxOfForm(t, f); got != `"strict"` {
		t.Errorf("Strict: %s", got)
	}
	if !strings.Contains(sb.sentence.Text, "no internet") || sb.folders.Visible() {
		t.Errorf("Strict: sentence %q, folders shown %v", sb.sentence.Text, sb.folders.Visible())
	}

	sb.choice.SetSelected("Files")
	if !sb.folders.Visible() {
		t.Fatal("Files does not show the folders")
	}
	test.Type(sb.read.add(""), "/srv/notes")
	test.Type(sb.write.add(""), "/srv/site")
	sb.write.add("") // an empty row is not a folder
	if got := sandboxOfForm(t, f); got != `{"preset":"files","read":["/srv/notes"],"write":["/srv/site"]}` {
		t.Errorf("Files with folders: %s", got)
	}

	sb.net.SetSelected(netAllow)
	test.Type(sb.allow, "api.github.com")
	pumpUntil(t, q, "the address's message", func() bool { return f.errs["sandbox"].Visible() })
	if !strings.Contains(f.errs["sandbox"].Text, `"api.github.com" is not host:port`) || !f.save.Disabled() || f.reason.Text != "Fix the sandbox to save" {
		t.Errorf("a bad address: message %q, Save disabled %v, reason %q", f.errs["sandbox"].Text, f.save.Disabled(), f.reason.Text)
	}
	sb.allow.SetText("api.github.com:443, localhost:8080")
	if f.errs["sandbox"].Visible() || f.save.Disabled() {
		t.Errorf("a right address list: message %q, Save disabled %v", f.errs["sandbox"].Text, f.save.Disabled())
	}
	if got := sandboxOfForm(t, f); got != `{"preset":"files","read":["/srv/notes"],"write":["/srv/site"],"net":["api.github.com:443","localhost:8080"]}` {
		t.Errorf("Files with an allow-list: %s", got)
	}

	sb.choice.SetSelected("Network")
	sb.net.SetSelected(netPresetDefault)
	if got := sandboxOfForm(t, f); got != `{"preset":"network","read":["/srv/notes"],"write":["/srv/site"]}` {
		t.Errorf("Network keeps the folders typed (shown, as there are some): %s", got)
	}
}

// An entry's sandbox keeps what the section does not show: an unknown key
// of the object, a value it cannot read, "off" written on purpose.
func TestFormSandboxKeeps(t *testing.T) {
	w, _ := goldenWindow(t)
	f := formFor(t, w, `{"command": "npx", "sandbox": {"read": ["/r"], "net": "outbound", "x-later": 1}}`)
	if f.sandbox.choice.Selected != customChoice || !f.sandbox.folders.Visible() {
		t.Errorf("a hand-written object: choice %q", f.sandbox.choice.Selected)
	}
	if got := sandboxOfForm(t, f); got != `{"read":["/r"],"net":"outbound","x-later":1}` {
		t.Errorf("the object came back as %s", got)
	}
	f.sandbox.choice.SetSelected("Off")
	if got := sandboxOfForm(t, f); got != `"off"` {
		t.Errorf("Off on an entry that had a sandbox: %s", got)
	}

	// "sandboxRequired": kept as written until the box is ticked or not.
	f = formFor(t, w, `{"command": "npx", "sandbox": "strict", "sandboxRequired": false}`)
	if !f.sandbox.optional.Checked {
		t.Error(`"sandboxRequired": false is not shown ticked`)
	}
	raw, _, _ := f.entry()
	if !strings.Contains(string(raw), `"sandboxRequired":false`) {
		t.Errorf("the entry lost sandboxRequired: %s", raw)
	}
	f.sandbox.optional.SetChecked(false)
	if raw, _, _ := f.entry(); strings.Contains(string(raw), "sandboxRequired") {
		t.Errorf("unticked, sandboxRequired stays: %s", raw)
	}
	f.sandbox.optional.SetChecked(true)
	if raw, _, _ := f.entry(); !strings.Contains(string(raw), `"sandboxRequired":false`) {
		t.Errorf("ticked, no sandboxRequired false: %s", raw)
	}

	f = formFor(t, w, `{"command": "npx", "sandbox": 42}`)
	if got := sandboxOfForm(t, f); got != `42` {
		t.Errorf("an unreadable value was not kept: %s", got)
	}
}

// TestSettingsSandboxSaves: the Settings tab of a host's server saves the
// sandbox through the host (servers.put), and the file has it.
func TestSettingsSandboxSaves(t *testing.T) {
	e := helperEntry()
	e["disabled"] = true // the sandbox's enforcement is not what is tested
	h := start(t, map[string]any{"box": e})
	d := h.row("box")
	h.tab(d, tabSettings)
	h.until("the Settings form", func() bool { return h.w.form != nil })
	f := h.w.form
	f.sandbox.choice.SetSelected("Files")
	test.Type(f.sandbox.write.add(""), "/srv/site")
	test.Tap(f.save)
	h.until("the sandbox is saved", func() bool {
		s, _ := json.Marshal(h.entry("box")["sandbox"])
		return string(s) == `{"preset":"files","write":["/srv/site"]}`
	})
	if env, _ := h.entry("box")["env"].(map[string]any); env[helperEnv] != "server" {
		t.Errorf("the save lost the env: %v", h.entry("box"))
	}
}

// TestCatalogTemplateSandbox: a template added from the catalog has its
// sandbox in the entry (filesystem: files with the chosen directory in
// its write list), and Customize carries it into the form.
func TestCatalogTemplateSandbox(t *testing.T) {
	empty := t.TempDir()
	h := start(t, nil, "SHELL", "/bin/false", "PATH", empty) // npx not found: nothing runs
	w := h.w
	test.Tap(w.catalogBtn)
	test.Tap(w.catalog.add["filesystem"])
	dir := t.TempDir()
	w.template.inputs["dirs"].entries[0].SetText(dir)
	test.Tap(w.template.save)
	h.until("added", func() bool { return w.template == nil })
	got, _ := json.Marshal(h.entry("filesystem")["sandbox"])
	if want := `{"preset":"files","write":[` + jsonString(dir) + `]}`; string(got) != want {
		t.Errorf("the added entry's sandbox: %s, want %s", got, want)
	}

	test.Tap(w.catalogBtn)
	test.Tap(w.catalog.add["fetch"])
	test.Tap(w.template.customize)
	if f := w.form; f == nil || f.sandbox.choice.Selected != "Network" || sandboxOfForm(t, f) != `"network"` {
		t.Fatalf("Customize lost the template's sandbox")
	}
}

// Where the OS does not enforce a sandbox, the section says a server with
// one does not start unless the box is ticked.
func TestFormSandboxWarnsElsewhere(t *testing.T) {
	defer func(g string) { goos = g }(goos)
	w, _ := goldenWindow(t)
	for _, g := range []string{"linux", "darwin", "windows"} {
		goos = g
		f := formFor(t, w, `{"command": "npx", "sandbox": "strict"}`)
		warned := false
		for _, o := range f.sandbox.optionalRow.Objects {
			if l, ok := o.(*widget.Label); ok && strings.Contains(l.Text, "does not enforce a sandbox yet") {
				warned = true
			}
		}
		if warned != (g != "linux") {
			t.Errorf("%s: warned %v", g, warned)
		}
	}
}

// TestFormSandboxUnixAndNote: the section lists the Unix sockets the
// server may connect to (written as "unix", kept from the entry, a
// relative one named under the section); Strict on an entry whose
// arguments name a folder says that "files" gives it, and the note goes
// with Files or without such an argument.
func TestFormSandboxUnixAndNote(t *testing.T) {
	w, q := goldenWindow(t)
	dir := t.TempDir()
	f := formFor(t, w, `{"command": "npx", "args": ["-y", "pkg", "`+dir+`"]}`)
	sb := f.sandbox
	if sb.note.Visible() || sb.unixBox.Visible() {
		t.Errorf("Off: note shown %v, sockets shown %v", sb.note.Visible(), sb.unixBox.Visible())
	}
	sb.choice.SetSelected("Strict")
	if !sb.note.Visible() || !strings.Contains(sb.note.Text, `trict gives the server none of its folders: "files" does`) || !strings.Contains(sb.note.Text, dir) {
		t.Errorf("Strict with a folder in the arguments: note %q shown %v", sb.note.Text, sb.note.Visible())
	}
	if !sb.unixBox.Visible() {
		t.Error("Strict does not show the sockets")
	}
	test.Type(sb.unix.add(""), "/run/agent.sock")
	if got := sandboxOfForm(t, f); got != `{"preset":"strict","unix":["/run/agent.sock"]}` {
		t.Errorf("Strict with a socket: %s", got)
	}
	sb.choice.SetSelected("Files")
	if sb.note.Visible() {
		t.Errorf("Files: the note is shown: %q", sb.note.Text)
	}
	sb.choice.SetSelected("Strict")
	for _, r := range f.args.rows {
		if r.entry.Text == dir {
			r.entry.SetText("/does/not/exist")
		}
	}
	pumpUntil(t, q, "the note goes with the folder", func() bool { return !sb.note.Visible() })

	test.Type(sb.unix.add(""), "agent.sock")
	pumpUntil(t, q, "the socket's message", func() bool { return f.errs["sandbox"].Visible() })
	if !strings.Contains(f.errs["sandbox"].Text, "the socket agent.sock is not an absolute path") || !f.save.Disabled() {
		t.Errorf("a relative socket: message %q, Save disabled %v", f.errs["sandbox"].Text, f.save.Disabled())
	}

	f = formFor(t, w, `{"command": "npx", "sandbox": {"preset": "strict", "unix": ["/run/a.sock"], "x-later": 1}}`)
	if got := sandboxOfForm(t, f); got != `{"preset":"strict","unix":["/run/a.sock"],"x-later":1}` {
		t.Errorf("an entry's sockets came back as %s", got)
	}
}

// TestOverviewSandboxFromHost: against a real host, a server whose strict
// sandbox this machine does not enforce (SWITCHBOARD_LANDLOCK_ABI=0 and
// "sandboxRequired": false: it runs unconfined) and whose arguments name a
// folder: its Overview says the host's line for its sandbox (the one
// 'switchboard status' prints, not one the window composes) and the
// host's note that strict gives it none of the folders (issue 27 §19).
func TestOverviewSandboxFromHost(t *testing.T) {
	dir := t.TempDir()
	e := helperEntry()
	e["args"] = []string{dir}
	e["sandbox"] = "strict"
	e["sandboxRequired"] = false
	h := start(t, map[string]any{"boxed": e}, sandbox.ABIEnv, "0")
	d := h.state("boxed", hostapi.StateRunning)
	st, _ := statusOf(h.w.snap, "boxed")
	line := st.Sandbox.Line()
	if st.Sandbox == nil || !st.Sandbox.Unconfined || line == "" {
		t.Fatalf("the host's sandbox status: %+v", st.Sandbox)
	}
	ov := d.ov
	if ov.sandbox.Text != line || !strings.Contains(line, "NOT enforced") {
		t.Errorf("the Sandbox row says %q; the host says %q", ov.sandbox.Text, line)
	}
	var note string
	for _, p := range st.Issues {
		if p.Warning && p.Key == "sandbox" {
			note = p.Message
		}
	}
	if note == "" || !strings.Contains(ov.sandboxNote.Text, dir) || !ov.sandboxNote.Visible() {
		t.Errorf("the strict note: %q (shown %v); the host's: %q", ov.sandboxNote.Text, ov.sandboxNote.Visible(), note)
	}
}
