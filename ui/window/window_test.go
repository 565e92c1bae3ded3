package window

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestAddServerThroughForm adds a server through the form, with a plain
// variable and a secret one, and sees it reach the host: the config file
// on disk refers to the secret and never holds its value, the keyring
// holds the value, and the server runs with it.
func TestAddServerThroughForm(t *testing.T) {
	h := start(t, nil)
	w := h.w
	test.Tap(w.addBtn)
	f := w.form
	if f == nil {
		t.Fatal("Add server did not open the form")
	}
	test.Type(f.name, "helper")
	test.Type(f.command, testExe)
	if f.commandHint.Text != "Found" || f.commandHint.Importance == widget.WarningImportance {
		t.Errorf("hint for an existing executable: %q", f.commandHint.Text)
	}
	for _, a := range []string{"--first", "two words", "third"} {
		test.Tap(f.addArg)
		test.Type(f.args.rows[len(f.args.rows)-1].entry, a)
	}
	test.Tap(f.args.rows[2].up) // third moves above "two words"
	test.Tap(f.args.rows[0].del)
	if got := f.args.values(); !slices.Equal(got, []string{"third", "two words"}) {
		t.Fatalf("args after reordering and removing: %q", got)
	}

	test.Tap(f.addEnv)
	test.Type(f.env.rows[0].name, helperEnv)
	test.Type(f.env.rows[0].value, "server")
	test.Tap(f.addEnv)
	sec := f.env.rows[1]
	test.Type(sec.name, tokenEnv)
	sec.kind.SetSelected(kindSecret)
	if sec.value.Visible() || !sec.secretBox.Visible() || !sec.secret.Password {
		t.Fatal("a secret row shows a password entry instead of the plain value")
	}
	wantSecret := config.SuggestSecretName("helper", tokenEnv)
	if sec.secretName.Text != wantSecret {
		t.Errorf("suggested secret name %q; want %q", sec.secretName.Text, wantSecret)
	}
	test.Type(sec.secret, "s3cret-value")
	test.Tap(f.save)
	h.until("the form saves and closes", func() bool { return w.form == nil })
	if !strings.Contains(w.statusLine.Text, "Saved helper") || !w.statusLine.Visible() {
		t.Errorf("status line: %q (shown %v)", w.statusLine.Text, w.statusLine.Visible())
	}

	e := h.entry("helper")
	if e["command"] != testExe || !slices.Equal(toStrings(e["args"]), []string{"third", "two words"}) {
		t.Errorf("entry on the host: %v", e)
	}
	env, _ := e["env"].(map[string]any)
	if env[tokenEnv] != config.KeyringRef(wantSecret) || env[helperEnv] != "server" {
		t.Errorf("env on the host: %v", env)
	}
	disk, err := os.ReadFile(h.opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(disk), `"${keyring:`+wantSecret+`}"`) || strings.Contains(string(disk), "s3cret-value") {
		t.Errorf("the config file must refer to the secret, never hold it:\n%s", disk)
	}
	got, err := h.store.Get(wantSecret)
	if err != nil || got.Reveal() != "s3cret-value" {
		t.Errorf("keyring %s = %v, %v", wantSecret, got, err)
	}

	// It runs, and the secret reached its process. The new server is the
	// one shown, once the host's snapshot that lists it has come (under
	// load it may come after the form closed: CI saw it).
	h.until("the new server shown", func() bool { d := w.servers.detail; return d != nil && d.name == "helper" })
	r := h.state("helper", hostapi.StateRunning)
	h.until("the tool count", func() bool { return strings.HasPrefix(r.ov.offers.Text, "2 tools") })
	h.tab(r, tabTools)
	h.until("the tools", func() bool { return w.tools != nil && len(w.tools.tools) == 2 })
	test.Tap(w.tools.buttons["secret"])
	test.Tap(w.tools.try.call)
	h.until("the secret tool's result", func() bool { return strings.Contains(w.tools.try.result.Text, tokenEnv+"=") })
	// The server saw the value; the window shows it redacted, named.
	if w.tools.try.result.Text != tokenEnv+"=[secret "+wantSecret+"]" {
		t.Errorf("the server saw %q, want the secret's value, shown as [secret %s]", w.tools.try.result.Text, wantSecret)
	}

	// Settings: the secret row comes back as a reference kept in the
	// keyring.
	test.Tap(w.addBtn) // leave the tools tab through a page over the place
	w.home()
	if w.tools == nil {
		t.Error("Back from the form did not open the tools tab again")
	}
	h.tab(r, tabSettings)
	h.until("the settings form", func() bool { return w.form != nil })
	f = w.form
	if f.name.Disabled() || f.name.Text != "helper" || f.command.Text != testExe {
		t.Errorf("edit form: name %q (disabled %v), command %q", f.name.Text, f.name.Disabled(), f.command.Text)
	}
	if f.commandHint.Text != "Runs "+testExe {
		t.Errorf("edit hint: %q (the host's own resolution)", f.commandHint.Text)
	}
	sec = f.env.row(tokenEnv)
	if sec == nil || sec.kind.Selected != kindSecret || sec.secretName.Text != wantSecret || sec.secret.Text != "" {
		t.Fatalf("the secret row of the edited entry: %+v", sec)
	}
	f.limitEntries["callTimeout"].SetText("60000")
	test.Tap(f.save)
	h.until("the edit saves", func() bool { return strings.Contains(w.statusLine.Text, "Saved helper") })
	h.until("the settings again", func() bool { return w.form != nil && w.form != f })
	if w.form.limitEntries["callTimeout"].Text != "60000" {
		t.Errorf("the settings after saving show callTimeout %q", w.form.limitEntries["callTimeout"].Text)
	}
	if e := h.entry("helper"); e["callTimeout"] != float64(60000) || e["env"].(map[string]any)[tokenEnv] != config.KeyringRef(wantSecret) {
		t.Errorf("after the edit: %v", e)
	}
	if got, _ := h.store.Get(wantSecret); got.Reveal() != "s3cret-value" {
		t.Error("saving the form without typing the secret changed it")
	}
}

func toStrings(v any) []string {
	var out []string
	l, _ := v.([]any)
	for _, x := range l {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestInvalidFieldsInline sees invalid fields refused next to the field,
// in the words the host (and so the command line) uses, with nothing
// sent.
func TestInvalidFieldsInline(t *testing.T) {
	h := start(t, nil)
	w := h.w
	test.Tap(w.addBtn)
	f := w.form
	test.Type(f.name, "Bad Name")
	test.Type(f.command, "npx -y some-server")
	test.Type(f.cwd, "relative/dir")
	test.Tap(f.addEnv)
	test.Type(f.env.rows[0].name, "X")
	test.Type(f.env.rows[0].value, "${HOME}")
	f.limitEntries["termGrace"].SetText("soon")
	h.until("the messages, as the typing paused", func() bool {
		return f.errs["name"].Text != "" && f.errs["cwd"].Text != "" && f.errs["termGrace"].Text != "" && f.env.rows[0].err.Text != ""
	})
	if !f.save.Disabled() || f.reason.Text != "Fix the name, the command, the environment, the working directory and the "+fieldWord("termGrace")+" to save" {
		t.Errorf("Save: disabled %v, reason %q", f.save.Disabled(), f.reason.Text)
	}
	test.Tap(f.save)
	h.q.pump()
	if w.form != f {
		t.Fatal("an invalid form was saved")
	}

	// The host's words for the same entry, as the command line prints them.
	entry, _, _ := f.entry()
	var lastErr error
	putErr := func(name string) string {
		err := h.call(func(ctx context.Context, c *client.Live) error { return c.PutServer(ctx, name, entry, true) })
		if err == nil {
			t.Fatalf("the host accepted %s", entry)
		}
		lastErr = err
		return err.Error()
	}
	nameErr := putErr("Bad Name")
	nameHostErr := lastErr
	if got := f.errs["name"].Text; got != nameErr || !f.errs["name"].Visible() {
		t.Errorf("name error %q; the host says %q", got, nameErr)
	}
	hostErr := putErr("bad-name")
	for key, want := range map[string]string{
		"command":   `"npx -y some-server" contains whitespace: put only the executable in command ("npx") and the rest in args (["-y","some-server"])`,
		"cwd":       `"relative/dir" is not absolute: give an absolute path`,
		"termGrace": `"soon" is not a whole number: give a number of milliseconds, like 2000`,
	} {
		l := f.errs[key]
		if l.Text != want || !l.Visible() {
			t.Errorf("%s error %q; want %q", key, l.Text, want)
		}
		if !strings.Contains(hostErr, "mcpServers.bad-name."+key+": "+want) {
			t.Errorf("the host's words for %s differ: %s", key, hostErr)
		}
	}
	envErr := f.env.rows[0].err.Text
	if !strings.HasPrefix(envErr, `"${HOME}" is not supported`) || !strings.Contains(hostErr, "env.X: "+envErr) {
		t.Errorf("env row error %q; the host says %s", envErr, hostErr)
	}
	if !f.advanced.Items[0].Open {
		t.Error("the Advanced section stays closed over its error")
	}
	if err := h.call(func(ctx context.Context, c *client.Live) error {
		_, err := c.GetServer(ctx, "bad-name")
		return err
	}); err == nil {
		t.Error("an invalid entry reached the host")
	}

	// The host's own refusal, as data from a real host, is put back onto
	// the fields by its problems' keys (no message is read).
	refusal := lastErr
	he, ok := hostError(refusal)
	if !ok || he.Code != hostapi.CodeInvalidConfig {
		t.Fatalf("the host's refusal is not an invalid_config *hostapi.Error: %v (%T)", refusal, refusal)
	}
	keys := map[string]bool{}
	for _, p := range he.Problems {
		keys[p.Key] = true
	}
	for _, k := range []string{"command", "cwd", "env.X", "termGrace"} {
		if !keys[k] {
			t.Errorf("the host's problems lack %s: %+v", k, he.Problems)
		}
	}
	f.clearErrors()
	f.showSaveError("bad-name", refusal)
	if f.errs["cwd"].Text != `"relative/dir" is not absolute: give an absolute path` {
		t.Errorf("the host's cwd problem shows as %q", f.errs["cwd"].Text)
	}
	if got := f.env.rows[0].err.Text; got != envErr {
		t.Errorf("the host's env.X problem shows as %q beside its row; want %q", got, envErr)
	}
	if got := f.errs["termGrace"].Text; !strings.HasPrefix(got, `"soon" is not a whole number`) {
		t.Errorf("the host's termGrace problem shows as %q", got)
	}
	// The name's problem goes beside the name, by its key.
	f.clearErrors()
	f.showSaveError("Bad Name", nameHostErr)
	if got := f.errs["name"].Text; got != nameErr {
		t.Errorf("the host's name problem shows as %q beside the name; want %q", got, nameErr)
	}
	if strings.Contains(f.errs[""].Text, nameErr) {
		t.Errorf("the name's problem also shows in the bar: %q", f.errs[""].Text)
	}

	// A secret row with no value for a secret the keyring lacks.
	f.clearErrors()
	f.name.SetText("fine")
	f.command.SetText(testExe)
	f.cwd.SetText("")
	f.limitEntries["termGrace"].SetText("")
	f.env.rows[0].value.SetText("ok")
	test.Tap(f.addEnv)
	r := f.env.rows[1]
	test.Type(r.name, "API_KEY")
	r.kind.SetSelected(kindSecret)
	h.until("the secret list", func() bool { return f.knownSecrets != nil })
	h.until("the row's message, as the typing paused", func() bool { return strings.Contains(r.err.Text, "type the secret's value") })
	if !f.save.Disabled() || f.reason.Text != "Fix the environment to save" {
		t.Errorf("Save with a new secret without a value: disabled %v, reason %q", f.save.Disabled(), f.reason.Text)
	}
	test.Tap(f.save)
	h.q.pump()
	if w.form != f {
		t.Error("a new secret without a value was saved")
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestStateFromHost sees state changes made by another client reflected
// in the list, and drives start, disable and remove from it.
func TestStateFromHost(t *testing.T) {
	beta := helperEntry()
	beta["disabled"] = true
	h := start(t, map[string]any{"alpha": helperEntry(), "beta": beta})
	r := h.state("alpha", hostapi.StateRunning)
	if r.state.Importance != widget.SuccessImportance || r.primary.Text != "Stop" || r.primary.Disabled() {
		t.Errorf("running: importance %v, primary %q (disabled %v)", r.state.Importance, r.primary.Text, r.primary.Disabled())
	}
	if err := h.call(func(ctx context.Context, c *client.Live) error { return c.Stop(ctx, "alpha", true) }); err != nil {
		t.Fatal(err)
	}
	h.state("alpha", hostapi.StateStopped)
	if r.state.Importance != widget.LowImportance || r.primary.Text != "Start" || r.primary.Disabled() || r.ov.process.Text != "not running · 0 restarts" {
		t.Errorf("stopped: importance %v, primary %q (disabled %v), process %q", r.state.Importance, r.primary.Text, r.primary.Disabled(), r.ov.process.Text)
	}
	test.Tap(r.primary)
	h.state("alpha", hostapi.StateRunning)
	if !strings.HasPrefix(r.ov.protocol.Text, "MCP 20") {
		t.Errorf("protocol %q", r.ov.protocol.Text)
	}

	// Disable asks first, naming what it does, on a button of words.
	r.menuItem("Disable…").Action()
	if h.w.confirm == nil || findButton(h.w, "Disable alpha") == nil {
		t.Fatal("Disable did not ask first with a \"Disable alpha\" button")
	}
	h.w.confirm.Confirm()
	h.state("alpha", hostapi.StateDisabled)
	if r.primary.Text != "Enable" || r.menuItem("Enable") == nil {
		t.Errorf("a disabled server: primary %q, menu %v", r.primary.Text, r.menu().Items)
	}
	test.Tap(r.primary)
	h.state("alpha", hostapi.StateRunning)

	// The config file is broken by hand: the banner says so; the list
	// keeps the last good config.
	if err := os.WriteFile(h.opts.ConfigPath, []byte(`{"mcpServers": {`), 0o600); err != nil {
		t.Fatal(err)
	}
	h.until("the config banner", func() bool { return h.w.cfgBanner.Visible() })
	if !strings.Contains(h.w.cfgBanner.Text, "last good config stays in force") || !strings.Contains(h.w.cfgBanner.Text, h.opts.ConfigPath) {
		t.Errorf("banner: %q", h.w.cfgBanner.Text)
	}
	if h.w.servers.index("alpha") < 0 {
		t.Error("the list lost the server of the last good config")
	}
	// Removing needs a file the host can change: it says so until then.
	r.menuItem("Remove…").Action()
	if h.w.confirm == nil || findButton(h.w, "Remove alpha") == nil {
		t.Fatal("Remove did not ask first with a \"Remove alpha\" button")
	}
	h.w.confirm.Confirm()
	h.until("the refusal", func() bool { return h.w.statusLine.Importance == widget.DangerImportance })
	if !strings.Contains(h.w.statusLine.Text, "is not changed until it can be read") {
		t.Errorf("removing with a broken file: %q", h.w.statusLine.Text)
	}
	good, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{"alpha": helperEntry(), "beta": beta}})
	if err := os.WriteFile(h.opts.ConfigPath, good, 0o600); err != nil {
		t.Fatal(err)
	}
	h.until("the banner goes", func() bool { return !h.w.cfgBanner.Visible() })

	// A problem of the file that belongs to no server (the gateway's
	// port): the banner words it; the servers run on.
	badPort, _ := json.Marshal(map[string]any{"version": 1, "gateway": map[string]any{"httpPort": "eighty"}, "mcpServers": map[string]any{"alpha": helperEntry(), "beta": beta}})
	if err := os.WriteFile(h.opts.ConfigPath, badPort, 0o600); err != nil {
		t.Fatal(err)
	}
	h.until("the file's problem in the banner", func() bool { return strings.Contains(h.w.cfgBanner.Text, "gateway.httpPort") })
	if !strings.Contains(h.w.cfgBanner.Text, "has 1 problem; the rest of it is in force") || !strings.Contains(h.w.cfgBanner.Text, "is not a port") {
		t.Errorf("banner: %q", h.w.cfgBanner.Text)
	}
	h.state("alpha", hostapi.StateRunning)
	if err := os.WriteFile(h.opts.ConfigPath, good, 0o600); err != nil {
		t.Fatal(err)
	}
	h.until("the banner goes again", func() bool { return !h.w.cfgBanner.Visible() })

	// beta never ran. (Removing a running server can leave it in the list
	// as "stopped": the host publishes its stop ladder's states after the
	// "removed" event, and the live view takes them for a new server.)
	rb := h.state("beta", hostapi.StateDisabled)
	rb.menuItem("Remove…").Action()
	h.w.confirm.Confirm()
	h.until("the row goes", func() bool { return h.w.servers.index("beta") < 0 })
	if h.w.servers.index("alpha") < 0 || strings.Contains(string(must(os.ReadFile(h.opts.ConfigPath))), "beta") {
		t.Error("removing beta touched alpha, or left beta in the file")
	}
}

// TestToolsTryIt builds arguments from a tool's schema and calls it.
func TestToolsTryIt(t *testing.T) {
	h := start(t, map[string]any{"alpha": helperEntry()})
	r := h.state("alpha", hostapi.StateRunning)
	h.until("tools", func() bool { return strings.HasPrefix(r.ov.offers.Text, "2 tools") })
	h.tab(r, tabTools)
	w := h.w
	h.until("the tools view", func() bool { return w.tools != nil && w.tools.buttons["echo"] != nil })
	test.Tap(w.tools.buttons["echo"])
	p := w.tools.try
	if p.tool.Name != "echo" || p.raw != nil || len(p.inputs) != 3 {
		t.Fatalf("echo's form: %+v", p)
	}
	in := map[string]*argInput{}
	for _, i := range p.inputs {
		in[i.name] = i
	}
	if !in["message"].required || in["times"].required || in["times"].typ != "integer" || in["loud"].check == nil {
		t.Errorf("fields from the schema: message %+v, times %+v, loud %+v", in["message"], in["times"], in["loud"])
	}
	test.Tap(p.call)
	if in["message"].err.Text != "is required" {
		t.Errorf("a missing required argument: %q", in["message"].err.Text)
	}
	test.Type(in["message"].entry, "hi there")
	test.Type(in["times"].entry, "two")
	test.Tap(p.call)
	if in["times"].err.Text != `"two" is not a whole number` {
		t.Errorf("a bad integer: %q", in["times"].err.Text)
	}
	in["times"].entry.SetText("2")
	test.Tap(in["loud"].check)
	test.Tap(p.call)
	h.until("the result", func() bool { return p.result.Text == "HI THERE HI THERE" })

	// Raw JSON for a schema without properties; a call error shows too.
	test.Tap(w.tools.buttons["secret"])
	p = w.tools.try
	if p.raw == nil {
		t.Fatal("no raw JSON entry for a schema without properties")
	}
	p.raw.SetText("[1]")
	test.Tap(p.call)
	if !strings.HasPrefix(p.rawErr.Text, "is not a JSON object") {
		t.Errorf("raw JSON error: %q", p.rawErr.Text)
	}
	p.raw.SetText("{}")
	if err := h.call(func(ctx context.Context, c *client.Live) error { return c.Stop(ctx, "alpha", true) }); err != nil {
		t.Fatal(err)
	}
	test.Tap(p.call)
	h.until("the error", func() bool { return p.result.Importance == widget.DangerImportance })
	if !strings.Contains(p.result.Text, `server "alpha" is stopped`) {
		t.Errorf("the host's error: %q", p.result.Text)
	}
}

// TestLogsFollow shows the kept stderr, then new lines as they come,
// filtered and copied.
func TestLogsFollow(t *testing.T) {
	h := start(t, map[string]any{"alpha": helperEntry()})
	r := h.state("alpha", hostapi.StateRunning)
	h.tab(r, tabLogs)
	v := h.w.logs
	h.until("the kept lines", func() bool { return strings.Contains(v.text.Text, "helper: serving") })
	for _, m := range []string{"one", "two"} {
		if err := h.call(func(ctx context.Context, c *client.Live) error {
			_, err := c.Call(ctx, "alpha", "echo", json.RawMessage(`{"message":"`+m+`"}`))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	h.until("the followed lines", func() bool { return strings.Contains(v.text.Text, "helper: echo two") })
	if n := strings.Count(v.text.Text, "helper: echo one"); n != 1 {
		t.Errorf("a line shows %d times:\n%s", n, v.text.Text)
	}
	test.Type(v.filter, "ECHO")
	// Each line after the local time the host read it: today's, to the second.
	timed := regexp.MustCompile(`^\d\d:\d\d:\d\d  helper: echo one\n\d\d:\d\d:\d\d  helper: echo two$`)
	if !timed.MatchString(v.text.Text) || v.count.Text != "2 of "+itoa(len(v.lines))+" lines" {
		t.Errorf("filtered: %q (%s)", v.text.Text, v.count.Text)
	}
	test.Tap(v.copyB)
	if got := h.w.app.Clipboard().Content(); got != v.text.Text {
		t.Errorf("clipboard: %q, not what is shown", got)
	}
	if !v.text.Selectable {
		t.Error("the log text is not selectable")
	}
	h.tab(r, tabOverview)
	if h.w.logs != nil {
		t.Error("the logs view stays open behind the Overview tab")
	}
	if err := h.call(func(ctx context.Context, c *client.Live) error {
		_, err := c.Call(ctx, "alpha", "echo", json.RawMessage(`{"message":"after"}`))
		return err
	}); err != nil {
		t.Fatal(err)
	}
	h.q.pump() // a line for a closed view is dropped, not a crash
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestPasteImport imports a Claude-style block, moving its literal secret
// into the keyring.
func TestPasteImport(t *testing.T) {
	h := start(t, nil)
	w := h.w
	test.Tap(w.pasteBtn)
	v := w.paste
	test.Tap(v.previewB)
	if !v.err.Visible() || !strings.HasPrefix(v.err.Text, "no servers found") && !strings.Contains(v.err.Text, "JSON") {
		t.Errorf("an empty paste: %q", v.err.Text)
	}
	block := `{"mcpServers": {
	  "My Helper": {"command": ` + jsonString(testExe) + `, "env": {"` + helperEnv + `": "server", "` + tokenEnv + `": "tok-123"}},
	  "remote": {"command": "npx", "args": ["-y", "mcp-remote", "http://127.0.0.1:9/mcp?key=qk-4242", "--header", "Authorization: Bearer rt-5555"]}
	}}`
	v.text.SetText(block)
	test.Tap(v.previewB)
	if v.importB.Disabled() || len(v.secrets) != 2 || !v.secrets[0].check.Checked || !v.secrets[1].check.Checked {
		t.Fatalf("preview: import disabled %v, secrets %d", v.importB.Disabled(), len(v.secrets))
	}
	// The mcp-remote wrapper shows as the remote server it stands for,
	// without its address's query (its key).
	var shown []string
	for _, o := range v.preview.Objects {
		if l, ok := o.(*widget.Label); ok {
			shown = append(shown, l.Text)
		}
	}
	if !slices.Contains(shown, "remote: http://127.0.0.1:9/mcp (remote)") || strings.Contains(strings.Join(shown, "\n"), "qk-4242") {
		t.Errorf("the preview: %q", shown)
	}
	test.Tap(v.importB)
	h.until("the import", func() bool { return strings.Contains(v.results.Text, "imported My Helper as my-helper") })
	secret := config.SuggestSecretName("my-helper", tokenEnv)
	if !strings.Contains(v.results.Text, `moved My Helper.env.`+tokenEnv+` into the keyring as "`+secret+`"`) {
		t.Errorf("results: %s", v.results.Text)
	}
	env := h.entry("my-helper")["env"].(map[string]any)
	if env[tokenEnv] != config.KeyringRef(secret) {
		t.Errorf("env: %v", env)
	}
	if got, _ := h.store.Get(secret); got.Reveal() != "tok-123" {
		t.Errorf("keyring %s = %q", secret, got.Reveal())
	}
	rsecret := config.SuggestSecretName("remote", "Authorization")
	e := h.entry("remote")
	if hd, _ := e["headers"].(map[string]any); e["url"] != "http://127.0.0.1:9/mcp?key=qk-4242" || hd["Authorization"] != "Bearer "+config.KeyringRef(rsecret) || e["command"] != nil {
		t.Errorf("the remote entry: %v", e)
	}
	if got, _ := h.store.Get(rsecret); got.Reveal() != "rt-5555" {
		t.Errorf("keyring %s = %q", rsecret, got.Reveal())
	}
	h.state("my-helper", hostapi.StateRunning)
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestCatalogTemplate adds a server from a template: a required field
// missing and a bad value show inline; a good one becomes an entry with
// the pinned package. PATH is emptied so that npx does not resolve and
// nothing is downloaded; the warning shows instead.
func TestCatalogTemplate(t *testing.T) {
	empty := t.TempDir()
	h := start(t, nil, "SHELL", "/bin/false", "PATH", empty)
	w := h.w
	test.Tap(w.catalogBtn)
	test.Tap(w.catalog.add["filesystem"])
	v := w.template
	test.Tap(v.save)
	if !strings.HasPrefix(v.errs["dirs"].Text, "is required") {
		t.Errorf("missing directories: %q", v.errs["dirs"].Text)
	}
	test.Type(v.inputs["dirs"].entries[0], "rel")
	test.Tap(v.save)
	if v.errs["dirs"].Text != `"rel" is not absolute: give an absolute path` {
		t.Errorf("a relative directory: %q", v.errs["dirs"].Text)
	}
	dir := t.TempDir()
	v.inputs["dirs"].entries[0].SetText(dir)
	test.Tap(v.save)
	h.until("added", func() bool { return w.template == nil })
	e := h.entry("filesystem")
	if e["command"] != "npx" || !slices.Equal(toStrings(e["args"]), []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", dir}) {
		t.Errorf("entry: %v", e)
	}
	if w.place.id != placeServers {
		t.Errorf("after adding from the catalog, the window shows %s", w.place.id)
	}
	r := h.row("filesystem")
	h.until("the resolve error", func() bool { return strings.Contains(r.ov.problem.Text, "npx") })
	if !r.ov.edit.Visible() {
		t.Error("a command not found offers no way to change it")
	}

	// The form warns about a command that does not resolve.
	test.Tap(w.addBtn)
	test.Type(w.form.command, "npx")
	if w.form.commandHint.Importance != widget.WarningImportance || !strings.Contains(w.form.commandHint.Text, `"npx" was not found`) {
		t.Errorf("hint: %q", w.form.commandHint.Text)
	}

	// A template with a secret, through Customize: the full form carries
	// the typed secret.
	test.Tap(w.catalogBtn)
	test.Tap(w.catalog.add["brave-search"])
	v = w.template
	test.Type(v.inputs["key"].entries[0], "BSA-abc")
	test.Tap(v.customize)
	f := w.form
	r2 := f.env.row("BRAVE_API_KEY")
	if f == nil || r2 == nil || r2.kind.Selected != kindSecret || r2.secret.Text != "BSA-abc" || r2.secretName.Text != "brave-search-brave_api_key" {
		t.Fatalf("customized form: %+v", r2)
	}
	test.Tap(f.save)
	h.until("saved", func() bool { return w.form == nil })
	if got, _ := h.store.Get("brave-search-brave_api_key"); got.Reveal() != "BSA-abc" {
		t.Errorf("keyring: %q", got.Reveal())
	}
}

// TestShortcutsAndHide covers the keyboard shortcuts and hiding on close.
func TestShortcutsAndHide(t *testing.T) {
	h := start(t, nil)
	w := h.w
	if w.servers.body.Objects[0] != w.servers.empty.obj {
		t.Error("an empty list does not say how to add a server")
	}
	c := w.win.Canvas()
	c.(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyN, Modifier: fyne.KeyModifierShortcutDefault})
	if w.form == nil || c.Focused() != w.form.name {
		t.Fatal("Ctrl+N did not open the form with the name focused")
	}
	c.Unfocus()
	c.OnTypedKey()(&fyne.KeyEvent{Name: fyne.KeyEscape})
	if w.page != nil {
		t.Error("Escape did not go back to the list")
	}
	c.(fyne.Shortcutable).TypedShortcut(&desktop.CustomShortcut{KeyName: fyne.KeyW, Modifier: fyne.KeyModifierShortcutDefault})
	if w.visible {
		t.Error("Ctrl+W did not hide the window")
	}
	w.Show()
	if !w.visible {
		t.Error("Show after Hide")
	}
}
