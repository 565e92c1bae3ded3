package window

// Defects found by using the window as a person would (the app under
// Xvfb, driven with xdotool), each with the test that failed before its
// fix.

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
)

// TestActionStatusFollowsState: after Start or Stop, the status line says
// what became of the server, as the header and the list do: not "ghost:
// started" under a server whose command is not found and that failed
// again, nor "alpha: stopping" long after it stopped.
func TestActionStatusFollowsState(t *testing.T) {
	h := start(t, map[string]any{
		"alpha": helperEntry(),
		"ghost": map[string]any{"command": "sb-no-such-command", "maxReconnects": 0},
	})
	g := h.state("ghost", hostapi.StateFailed)
	before, _ := statusOf(h.w.snap, "ghost")
	test.Tap(g.primary) // Start
	h.until("ghost answered and failed again", func() bool {
		st, _ := statusOf(h.w.snap, "ghost")
		return h.w.statusLine.Visible() && st.State == hostapi.StateFailed && st.FailedAt.After(before.FailedAt)
	})
	if !h.w.bottom.Visible() {
		t.Error("the status line's row is hidden")
	}
	if h.w.statusLine.Text != "ghost: failed" || h.w.statusLine.Importance != widget.DangerImportance {
		t.Errorf("after Start of a server that failed again, the status line says %q (importance %v); want \"ghost: failed\" in red",
			h.w.statusLine.Text, h.w.statusLine.Importance)
	}

	a := h.state("alpha", hostapi.StateRunning)
	test.Tap(a.primary) // Stop
	h.until("alpha stopped", func() bool {
		st, _ := statusOf(h.w.snap, "alpha")
		return h.w.statusLine.Visible() && st.State == hostapi.StateStopped
	})
	if h.w.statusLine.Text != "alpha: stopped" || !h.w.bottom.Visible() {
		t.Errorf("after Stop, with alpha stopped, the status line says %q; want \"alpha: stopped\"", h.w.statusLine.Text)
	}

	// Another message replaces it, and it follows the server no more.
	h.w.setStatus("Copied 3 lines to the clipboard.", false)
	h.w.apply(h.live.Snapshot())
	if h.w.statusLine.Text != "Copied 3 lines to the clipboard." {
		t.Errorf("a later message was replaced by the followed server's state: %q", h.w.statusLine.Text)
	}
}

// TestKeyringNameFits: in a server's Settings tab (the list beside it
// takes room), a secret variable's keyring name shows whole; it was a box
// of a few letters ("ever") beside its label and the "stored" badge.
func TestKeyringNameFits(t *testing.T) {
	for _, size := range []fyne.Size{{Width: 1120, Height: 720}, {Width: 800, Height: 600}} {
		w, _ := goldenWindow(t)
		w.win.Resize(size)
		s, _ := parsedEntry(t, "everything", `{"command": "npx", "env": {"API_TOKEN": "${keyring:everything-api_token}"}}`)
		f := newServerForm(w, "everything", false, s, nil, nil)
		inSettings(w, "everything", f)
		r := f.env.row("API_TOKEN")
		r.stored.Show() // the keyring has it
		settle(w.win.Canvas())
		need := fyne.MeasureText(r.secretName.Text, theme.TextSize(), r.secretName.TextStyle).Width + 2*theme.InnerPadding()
		if got := r.secretName.Size().Width; got < need {
			t.Errorf("at %v, the keyring name entry is %.0f wide; %q needs %.0f", size, got, r.secretName.Text, need)
		}
	}
}

// TestSettingsCommandHintInWords: the Settings tab of a server whose
// command is not found says so under the command in the words of its
// Overview (the host's install remedy), not the host's raw message with
// its PATH spelled out ("server \"typo\": command ... was not found in
// PATH (/usr/local/sbin:...): install it, or set command to its absolute
// path"), which the add form does not show either.
func TestSettingsCommandHintInWords(t *testing.T) {
	raw := `server "typo": command "mcp-server-everythng" was not found in PATH (/usr/local/sbin:/usr/bin:/bin): install it, or set command to its absolute path`
	issue := hostapi.Problem{Server: "typo", Key: "command", Message: raw,
		Fact:   `"mcp-server-everythng" was not found in the PATH the host gives servers`,
		Remedy: &hostapi.Remedy{Kind: hostapi.RemedyInstall, Server: "typo", Command: "mcp-server-everythng"}}
	w, _ := goldenWindow(t)
	snap := goldenSnapshot()
	snap.Servers = append(snap.Servers, hostapi.ServerStatus{Name: "typo", State: hostapi.StateFailed, Command: "mcp-server-everythng",
		LastError: raw, ResolveError: raw, ResolveInLastError: true, Issues: []hostapi.Problem{issue}})
	w.apply(snap)
	s, err := config.ParseServer("typo", []byte(`{"command": "mcp-server-everythng"}`))
	if err != nil {
		t.Fatal(err)
	}
	f := newServerForm(w, "typo", false, s, nil, nil)
	f.updateHint()
	want := phrase.Beside(issue)
	if f.commandHint.Text != want || f.commandHint.Importance != widget.WarningImportance {
		t.Errorf("the Settings tab's hint under the command: %q (importance %v); want %q", f.commandHint.Text, f.commandHint.Importance, want)
	}
	if !strings.Contains(want, "Install mcp-server-everythng") {
		t.Errorf("the remedy's words: %q", want)
	}
	// Changed, the command is looked up again as the add form does.
	f.command.SetText("sb-another-missing-command")
	f.updateHint()
	if !strings.Contains(f.commandHint.Text, `"sb-another-missing-command" was not found`) {
		t.Errorf("a changed command's hint: %q", f.commandHint.Text)
	}
}

// TestNoShowLogsForCommandNotFound: the Overview of a server whose
// command is not found offers "Change the command in Settings" and not
// "Show logs": nothing ran, so its Logs tab said only "(no output captured
// yet)". A server that failed after it ran still offers its logs.
func TestNoShowLogsForCommandNotFound(t *testing.T) {
	w, _ := goldenWindow(t)
	snap := goldenSnapshot()
	raw := `server "typo": command "mcp-server-everythng" was not found in PATH (/usr/bin): install it, or set command to its absolute path`
	for _, state := range []hostapi.State{hostapi.StateFailed, hostapi.StateRestarting} {
		snap.Servers = append(snap.Servers, hostapi.ServerStatus{Name: "typo-" + string(state), State: state, Command: "mcp-server-everythng",
			LastError: raw, ResolveError: raw, ResolveInLastError: true})
	}
	w.apply(snap)
	for _, state := range []hostapi.State{hostapi.StateFailed, hostapi.StateRestarting} {
		w.servers.choose("typo-" + string(state))
		ov := w.servers.detail.ov
		if ov.logs.Visible() || !ov.edit.Visible() {
			t.Errorf("%s, its command not found: Show logs shown %v, %q shown %v", state, ov.logs.Visible(), ov.edit.Text, ov.edit.Visible())
		}
	}
	w.servers.choose("files") // failed after it ran
	if !w.servers.detail.ov.logs.Visible() {
		t.Error("a server that failed after it ran does not offer its logs")
	}
}

// TestEscapeDismissesDialogs: Escape closes the dialog shown (Remove…,
// Disable…, Set secret) as its Cancel would, before it goes Back from a
// page, also while a field has the keyboard (the add form's name, the
// paste page's text, the secret's value have it when they open); it did
// nothing, so a person on the keyboard had to find the dialog's button,
// or Tab to Back.
func TestEscapeDismissesDialogs(t *testing.T) {
	w, _ := goldenWindow(t)
	c := w.win.Canvas()
	// As the driver does: the key goes to the widget that has the
	// keyboard, else to the window's handler.
	escape := func() {
		ev := &fyne.KeyEvent{Name: fyne.KeyEscape}
		if f := c.Focused(); f != nil {
			f.TypedKey(ev)
		} else {
			c.OnTypedKey()(ev)
		}
	}
	w.servers.choose("everything")
	d := w.servers.detail
	for _, item := range []string{"Remove…", "Disable…"} {
		d.menuItem(item).Action()
		if c.Overlays().Top() == nil {
			t.Fatalf("%s showed no dialog", item)
		}
		escape()
		if top := c.Overlays().Top(); top != nil {
			t.Errorf("Escape left the %s dialog shown", item)
			w.confirm.Hide()
		}
	}
	// A page over the place: the dialog first, then Back.
	w.openAdd()
	w.askSecret("gh")
	escape()
	if c.Overlays().Top() != nil || w.form == nil {
		t.Errorf("Escape with the Set secret dialog over the add page: dialog shown %v, the add page left %v", c.Overlays().Top() != nil, w.form == nil)
	}
	w.focus(w.form.name) // as the add page opens
	escape()
	if w.form != nil {
		t.Error("Escape in the add page's name did not go back")
	}
	w.openPaste()
	if c.Focused() == nil {
		t.Fatal("the paste page gives no field the keyboard")
	}
	escape()
	if w.paste != nil {
		t.Error("Escape in the paste page's text did not go back")
	}
}

// TestLongNameFitsSmallScreen: a server with a long name (31 letters, the
// most a name has) in a long state ("waiting for secret") does not make
// its page ask for more than 800 pixels: the header's name gave the
// window its full width, so that choosing it widened the window beyond an
// 800-pixel screen and squeezed the list. The name is cut with an
// ellipsis where the header has no room.
func TestLongNameFitsSmallScreen(t *testing.T) {
	w, _ := goldenWindow(t)
	long := strings.Repeat("w", 31)
	snap := goldenSnapshot()
	snap.Servers = append(snap.Servers, hostapi.ServerStatus{Name: long, State: hostapi.StateWaiting, Command: "npx"})
	w.apply(snap)
	w.servers.choose(long)
	if m := w.win.Content().MinSize(); m.Width > 800 {
		t.Errorf("the Overview of %s asks for %v pixels", long, m.Width)
	}
	if d := w.servers.detail; d.title.Text != long {
		t.Errorf("the header's name: %q", d.title.Text)
	}
	// With room, the name shows whole, the state beside it.
	w.win.Resize(fyne.NewSize(1400, 900))
	settle(w.win.Canvas())
	d := w.servers.detail
	need := fyne.MeasureText(long, theme.Size(theme.SizeNameSubHeadingText), fyne.TextStyle{Bold: true}).Width
	abs := fyne.CurrentApp().Driver().AbsolutePositionForObject
	if d.title.Size().Width < need || abs(d.state).X < abs(d.title).X+need || abs(d.state).X > abs(d.title).X+d.title.Size().Width+theme.Padding() {
		t.Errorf("at 1400 pixels the name is %v wide (needs %v) at %v, the state at %v", d.title.Size().Width, need, abs(d.title), abs(d.state))
	}
}

// TestSecretDialogKeyboard: the Set secret dialog takes the keyboard in
// its value, wide enough to show its placeholder, and Enter stores; it
// opened with no field focused (what was typed went nowhere), a value box
// of a few letters ("the secret's v"), and Enter did nothing.
func TestSecretDialogKeyboard(t *testing.T) {
	w, _ := goldenWindow(t)
	c := w.win.Canvas()
	w.askSecret("gh")
	v := w.secretDlg.value
	if c.Focused() != v {
		t.Errorf("the dialog's focus: %v; want its value", c.Focused())
	}
	settle(c)
	need := fyne.MeasureText(v.PlaceHolder, theme.TextSize(), v.TextStyle).Width + 2*theme.InnerPadding()
	if got := v.Size().Width; got < need {
		t.Errorf("the value is %.0f wide; its placeholder %q needs %.0f", got, v.PlaceHolder, need)
	}
	// Its eye shows what was typed, and hides it again.
	reveal, ok := v.ActionItem.(*widget.Button)
	if !ok || !v.Password {
		t.Fatalf("the value: password %v, action %T", v.Password, v.ActionItem)
	}
	test.Tap(reveal)
	if v.Password {
		t.Error("the eye did not show the value")
	}
	test.Tap(reveal)
	if !v.Password {
		t.Error("the eye did not hide the value again")
	}
	test.Type(v, "the-value")
	v.TypedKey(&fyne.KeyEvent{Name: fyne.KeyReturn})
	if c.Overlays().Top() != nil {
		t.Error("Enter left the dialog open")
	}
	if !strings.HasPrefix(w.statusLine.Text, "Storing secret gh") {
		t.Errorf("Enter did not store: status line %q", w.statusLine.Text)
	}
}

// TestEnterSavesForm: Enter in the add form's name or command saves, as
// Save does, once the form can be saved; before, it did nothing, so a
// person on the keyboard had to Tab through every field to Save.
func TestEnterSavesForm(t *testing.T) {
	h := start(t, nil)
	w := h.w
	enter := &fyne.KeyEvent{Name: fyne.KeyReturn}
	test.Tap(w.addBtn)
	f := w.form
	test.Type(f.name, "typed")
	f.name.TypedKey(enter) // no command yet: nothing to save
	if w.form != f || !f.save.Disabled() {
		t.Fatal("Enter with no command left the form")
	}
	test.Type(f.command, testExe)
	f.command.TypedKey(enter)
	h.until("the form saves and closes", func() bool { return w.form == nil })
	if e := h.entry("typed"); e["command"] != testExe {
		t.Errorf("the entry saved: %v", e)
	}
}

// TestConnectListsLongNames: the Connect dialog's servers stay within the
// window when a name is long: the list was a row of equal cells as wide as
// the longest name, so that with a server of 31 letters the row was over
// 2,000 pixels wide and the servers after the second or third were off the
// window's edge, checked but out of sight.
func TestConnectListsLongNames(t *testing.T) {
	files := goldenAppFiles(t)
	useAppFiles(t, files)
	w, _ := goldenWindow(t)
	snap := goldenSnapshot()
	long := strings.Repeat("w", 31)
	snap.Servers = append(snap.Servers, hostapi.ServerStatus{Name: long, State: hostapi.StateRunning, Command: "npx"})
	w.apply(snap)
	w.showPlace(placeApps)
	w.apps.show(loadApps(files), must(files.exe()), nil)
	test.Tap(w.apps.rows["cursor"].connect)
	c := w.apps.change
	if c == nil || c.servers == nil || !slices.Contains(c.servers.Options, long) {
		t.Fatalf("the Connect dialog's servers: %+v", c)
	}
	if got, room := c.d.MinSize().Width, w.win.Canvas().Size().Width; got > room {
		t.Errorf("the Connect dialog asks for %.0f pixels; the window has %.0f", got, room)
	}
	if got := c.servers.MinSize().Width; got > 760 {
		t.Errorf("the list of servers is %.0f pixels wide", got)
	}
}

// TestStderrChoiceInWords: the form's choice of where a server's error
// output goes is in words ("Stderr: capture, discard, inherit, file" said
// nothing to a person who is not a developer), and each still writes the
// config's value.
func TestStderrChoiceInWords(t *testing.T) {
	w, _ := goldenWindow(t)
	s, err := config.ParseServer("files", []byte(`{"command": "npx", "stderr": {"file": "/tmp/files.log"}}`))
	if err != nil {
		t.Fatal(err)
	}
	f := newServerForm(w, "files", false, s, nil, nil)
	for _, o := range f.stderr.Options {
		if slices.Contains([]string{"capture", "discard", "inherit", "file"}, o) {
			t.Errorf("the choice offers the config's word %q", o)
		}
	}
	if f.stderr.Selected != "Write it to a file" || !f.stderrFile.Visible() || f.stderrFile.Text != "/tmp/files.log" {
		t.Errorf("an entry that writes to a file: %q, file %q (shown %v)", f.stderr.Selected, f.stderrFile.Text, f.stderrFile.Visible())
	}
	want := map[string]string{
		"Write it to a file":                  `{"file":"/tmp/files.log"}`,
		"Discard it":                          `"discard"`,
		"Pass it to Switchboard's own output": `"inherit"`,
		"Keep it for the Logs tab":            "",
	}
	for label, v := range want {
		f.stderr.SetSelected(label)
		raw, _, _ := f.entry()
		var e map[string]json.RawMessage
		if err := json.Unmarshal(raw, &e); err != nil {
			t.Fatal(err)
		}
		if got := string(e["stderr"]); got != v {
			t.Errorf("%q writes stderr %s; want %s", label, got, v)
		}
	}
}

// TestBackAsksBeforeLosingTyping: Back (or Escape, one key away from the
// fields) from a new server's form that has something typed in asks
// before what was typed is gone; an untouched form goes back at once.
func TestBackAsksBeforeLosingTyping(t *testing.T) {
	w, _ := goldenWindow(t)
	c := w.win.Canvas()
	w.openAdd()
	w.escape()
	if w.form != nil || c.Overlays().Top() != nil {
		t.Fatal("Escape from an untouched add form did not go back at once")
	}
	w.openAdd()
	f := w.form
	test.Type(f.name, "my-server")
	test.Type(f.command, "my-server-command")
	w.escape()
	if w.form != f || c.Overlays().Top() == nil || w.confirm == nil {
		t.Fatal("Escape left the typed form without asking")
	}
	w.escape() // the question's Cancel: Keep editing
	if w.form != f || c.Overlays().Top() != nil || f.name.Text != "my-server" {
		t.Fatalf("Keep editing: form %v, dialog %v, name %q", w.form == f, c.Overlays().Top() != nil, f.name.Text)
	}
	test.Tap(w.page.back)
	if w.form != f || w.confirm == nil {
		t.Fatal("Back left the typed form without asking")
	}
	w.confirm.Confirm() // Discard
	if w.form != nil {
		t.Error("Discard did not leave the form")
	}
}

// TestWaitingProblemInWarningColour: what a server waiting for a secret
// needs is said in the amber of its state (a warning: it has not failed,
// and starts by itself once the secret is stored), not in a failure's
// red beside an amber state.
func TestWaitingProblemInWarningColour(t *testing.T) {
	w, _ := goldenWindow(t)
	w.servers.choose("github") // waiting for secret
	ov := w.servers.detail.ov
	if ov.problem.Text == "" || ov.problem.Importance != widget.WarningImportance {
		t.Errorf("github's problem %q in importance %v; want the warning's", ov.problem.Text, ov.problem.Importance)
	}
	w.servers.choose("files") // failed
	if ov := w.servers.detail.ov; ov.problem.Importance != widget.DangerImportance {
		t.Errorf("a failed server's problem in importance %v", ov.problem.Importance)
	}
}
