package window

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// limits are the numeric options of the Advanced section: the config's
// table (labels, help, defaults), less the options reserved for later.
var limits = slices.DeleteFunc(slices.Clone(config.Options), func(o config.Option) bool { return o.Reserved != "" })

// stderrModes are the stderr select's options, in words, with the value
// the config writes for each ("Stderr: capture" said nothing to a person
// who is not a developer).
var stderrModes = []struct{ label, mode string }{
	{"Keep it for the Logs tab", "capture"},
	{"Discard it", "discard"},
	{"Pass it to Switchboard's own output", "inherit"},
	{"Write it to a file", "file"},
}

// stderrLabels are the select's options.
func stderrLabels() []string {
	out := make([]string, len(stderrModes))
	for i, m := range stderrModes {
		out[i] = m.label
	}
	return out
}

// stderrLabel is a config mode's words; stderrMode a label's mode ("" for
// neither).
func stderrLabel(mode string) string {
	for _, m := range stderrModes {
		if m.mode == mode {
			return m.label
		}
	}
	return ""
}

func stderrMode(label string) string {
	for _, m := range stderrModes {
		if m.label == label {
			return m.mode
		}
	}
	return ""
}

// goos is the system the form is for: options of another system
// (allowBatchFiles is Windows') are not offered. Tests change it.
var goos = runtime.GOOS

// validateDelay is how long the form waits after the last keystroke
// before it checks the entry again: long enough not to flash a message
// at each letter, short enough to follow the typing.
var validateDelay = 300 * time.Millisecond

// fieldWords name the form's fields in the Save bar's reason ("Fix the
// command to save"), by the entry's keys.
var fieldWords = map[string]string{
	"name": "name", "command": "command", "args": "arguments", "env": "environment",
	"cwd": "working directory", "stderr": "stderr", "inheritEnv": "variables to pass",
	"allowBatchFiles": "batch files option", "tools": "tool filter", "trust": "review of changed tools",
	"sandbox": "sandbox", "start": "start",
}

// serverForm adds or edits a server. Every field has an error line under
// it, reserved so that the form does not move when a message appears; a
// problem found by the config's check (or the host's refusal) shows
// there, in the same words as the command line, as the user types. Save
// is in a bar below the scrolling fields, always in view, and disabled
// with the reason while something is wrong.
//
// f.obj is the whole form, its bar included: the one object a page
// embeds.
type serverForm struct {
	w      *Window
	create bool
	orig   string                     // the entry's name on the host ("" for a new one): a different name renames it
	base   map[string]json.RawMessage // the entry as the host had it: keys the form does not show are kept

	name, command, cwd           *escEntry
	stderrFile, inheritEnv       *widget.Entry
	commandHint, renameHint      *widget.Label
	cwdBrowse                    *widget.Button
	stderr                       *widget.Select
	allowBatch                   *widget.Check
	trustAuto                    *widget.Check  // "trust": "auto" (docs/trust.md)
	start                        *widget.Select // "start" (formstart.go)
	startInit                    string         // the start mode as the form opened
	startRow                     fyne.CanvasObject
	idleBox                      *fyne.Container // the idle stop, shown for On first use
	limitEntries                 map[string]*widget.Entry
	args                         *argList
	env                          *envTable
	advanced                     *widget.Accordion
	tools                        *toolFilter
	sandbox                      *sandboxSection
	errs                         map[string]*widget.Label // by key; "" for problems of no field (shown in the bar)
	addArg, addEnv, save, cancel *widget.Button
	// reason says, in the bar, why Save is disabled.
	reason *widget.Label
	// knownSecrets are the secrets the keyring holds (nil until
	// secrets.list answered).
	knownSecrets map[string]bool
	// touched are the fields whose problems show: those typed in, those
	// filled when the form opened, every one after Save was tapped. A
	// problem of a field not touched yet still disables Save.
	touched map[string]bool
	all     bool // every field's problems show
	gen     int  // the last change, for the debounce
	saving  bool // a save is under way
	// editOffered: the status line offers to edit the server whose name
	// the form takes.
	editOffered bool
	// A remote entry's Settings (remotesettings.go): its headers (nil for
	// a local entry), the keys of a process removed from the entry, and
	// what to do after each check.
	headers    *headerTable
	dropped    []string
	afterCheck func(formCheck)
	// opened is the entry and name as the form opened, for edited.
	opened string
	obj    fyne.CanvasObject
}

// openAdd shows an empty form for a new server.
// Beside it, the remote form (remote.go).
func (w *Window) openAdd() {
	w.addPage(false)
}

// openEdit fetches a server's entry (servers.get) and shows it in the form.
func (w *Window) openEdit(name string) {
	var res hostapi.EntryResult
	w.setStatus("Loading "+name+"…", false)
	w.call(func(ctx context.Context) (err error) {
		res.Entry, err = w.live.GetServer(ctx, name)
		return err
	}, func(err error) {
		if err != nil {
			w.setStatus(err.Error(), true)
			return
		}
		base := map[string]json.RawMessage{}
		s, perr := config.ParseServer(name, res.Entry)
		if perr == nil {
			perr = json.Unmarshal(res.Entry, &base)
		}
		if perr != nil {
			w.setStatus(perr.Error(), true)
			return
		}
		f := newServerForm(w, name, false, s, base, nil)
		w.open(&page{title: "Edit " + name, obj: f.obj})
		w.form = f
		w.focus(f.command)
	})
}

// newServerForm returns a form filled from s. base is the entry as the
// host has it (nil for a new one); secretValues are values already typed
// for the secret env variables (from a catalog template).
func newServerForm(w *Window, name string, create bool, s *config.Server, base map[string]json.RawMessage, secretValues map[string]string) *serverForm {
	f := &serverForm{w: w, create: create, base: base, errs: map[string]*widget.Label{}, limitEntries: map[string]*widget.Entry{},
		touched: map[string]bool{}}
	if !create {
		f.orig = name
	}
	if f.base == nil {
		f.base = map[string]json.RawMessage{}
	}
	// errFor returns a field's error line: the label, over room for one
	// line kept whether it shows or not.
	errFor := func(key string) fyne.CanvasObject {
		l, obj := reservedError()
		f.errs[key] = l
		return obj
	}
	changed := func(key string) func(string) {
		return func(string) { f.changed(key) }
	}

	f.name = newEscEntry(w)
	f.name.SetPlaceHolder("files (lower-case letters, digits and -)")
	f.name.SetText(name)
	f.renameHint = hintLabel("")
	f.renameHint.Importance = widget.WarningImportance
	f.name.OnChanged = func(string) {
		f.env.suggest()
		f.updateRenameHint()
		f.changed("name")
	}

	f.command = newEscEntry(w)
	f.command.SetPlaceHolder("npx, uvx, or the absolute path of the executable")
	f.command.SetText(s.Command)
	f.commandHint = hintLabel("")
	f.command.OnChanged = func(string) {
		f.updateHint()
		f.changed("command")
	}

	f.args = newArgList(s.Args)
	f.args.changed = func() { f.changed("args") }
	f.addArg = widget.NewButtonWithIcon("Add argument", theme.ContentAddIcon(), func() { w.focus(f.args.add("").entry) })

	f.env = &envTable{box: container.NewVBox(), server: f.serverName, changed: func() { f.changed("env") },
		known: func() map[string]bool { return f.knownSecrets }}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		f.env.addFrom(k, s.Env[k], secretValues[k], create)
	}
	f.addEnv = widget.NewButtonWithIcon("Add variable", theme.ContentAddIcon(), func() {
		w.focus(f.env.add().name)
	})

	f.cwd = newEscEntry(w)
	f.cwd.SetPlaceHolder("the host's working directory")
	f.cwd.SetText(s.Cwd)
	f.cwd.OnChanged = changed("cwd")
	f.cwdBrowse = widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), f.chooseCwd)

	f.stderrFile = widget.NewEntry()
	f.stderrFile.SetPlaceHolder("/absolute/path/of/a/log/file")
	f.stderrFile.OnChanged = changed("stderr")
	f.stderr = widget.NewSelect(stderrLabels(), func(label string) {
		if stderrMode(label) == "file" {
			f.stderrFile.Show()
		} else {
			f.stderrFile.Hide()
		}
		f.changed("stderr")
	})
	mode := "capture"
	if s.Stderr != nil {
		mode = s.Stderr.Kind
		f.stderrFile.SetText(s.Stderr.File)
	}
	f.stderr.SetSelected(stderrLabel(mode))
	if mode != "file" {
		f.stderrFile.Hide()
	}

	// The Advanced group: the rows of the config's option table, then
	// the options that are not numbers.
	adv := []fyne.CanvasObject{}
	for _, o := range limits {
		e := widget.NewEntry()
		e.SetPlaceHolder("default " + o.Format(o.Default))
		if v, ok := s.Numbers[o.Key]; ok {
			e.SetText(strconv.Itoa(v))
		}
		e.OnChanged = changed(o.Key)
		f.limitEntries[o.Key] = e
		if o.Key == idleStopKey { // in the Start row (formstart.go)
			f.errs[o.Key] = errorLabel()
			continue
		}
		adv = append(adv, widget.NewLabel(o.Label), container.NewVBox(e, hintLabel(o.Help), errFor(o.Key)))
	}
	f.inheritEnv = widget.NewEntry()
	f.inheritEnv.SetPlaceHolder("HTTPS_PROXY NODE_EXTRA_CA_CERTS")
	f.inheritEnv.SetText(strings.Join(s.InheritEnv, " "))
	f.inheritEnv.OnChanged = changed("inheritEnv")
	adv = append(adv, widget.NewLabel("Pass these variables too"), container.NewVBox(f.inheritEnv, errFor("inheritEnv")))
	// A Windows option: offered on Windows only. Elsewhere the check
	// still holds the entry's value, which is saved as it was.
	f.allowBatch = widget.NewCheck("Allow a .bat or .cmd command", func(bool) { f.changed("allowBatchFiles") })
	f.allowBatch.SetChecked(s.AllowBatchFiles)
	if goos == "windows" {
		adv = append(adv, widget.NewLabel("Batch files (Windows)"), container.NewVBox(f.allowBatch, errFor("allowBatchFiles")))
	}
	f.advanced = widget.NewAccordion(widget.NewAccordionItem("Advanced: the engine's limits", formGrid(adv...)))

	f.tools = newToolFilter(f, s.Tools)
	f.trustAuto = widget.NewCheck("Show new and changed tools without review", func(bool) { f.changed("trust") })
	f.trustAuto.SetChecked(s.Trust == "auto")

	f.sandbox = newSandboxSection(f, f.base["sandbox"])
	f.newStartRow(s)

	f.save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), f.submit)
	f.save.Importance = widget.HighImportance
	// Enter in a one-line field saves, as Save does, once the form can be
	// saved.
	for _, e := range []*escEntry{f.name, f.command, f.cwd} {
		e.OnSubmitted = func(string) {
			if !f.save.Disabled() {
				f.submit()
			}
		}
	}
	f.cancel = widget.NewButton("Cancel", w.home)
	f.reason = widget.NewLabel("")
	f.reason.Importance = widget.WarningImportance
	f.reason.Hide()
	barErr := errorLabel() // problems of no field, and the host's refusal
	f.errs[""] = barErr

	grid := formGrid(
		widget.NewLabel("Name"), container.NewVBox(f.name, f.renameHint, errFor("name")),
		widget.NewLabel("Command"), container.NewVBox(f.command, reserveLine(f.commandHint), errFor("command")),
		widget.NewLabel("Arguments"), container.NewVBox(f.args.box, container.NewHBox(f.addArg), errFor("args")),
		widget.NewLabel("Environment"), container.NewVBox(f.env.box, container.NewHBox(f.addEnv), errFor("env")),
		widget.NewLabel("Working directory"), container.NewVBox(container.NewBorder(nil, nil, nil, f.cwdBrowse, f.cwd), errFor("cwd")),
		widget.NewLabel("Error output"), container.NewVBox(f.stderr, f.stderrFile, errFor("stderr")),
		widget.NewLabel("Start"), f.startRow,
		widget.NewLabel("Tools in AI apps"), container.NewVBox(f.tools.obj, errFor("tools"), f.trustAuto, errFor("trust")),
		widget.NewLabel("Sandbox"), container.NewVBox(f.sandbox.obj, errFor("sandbox")),
	)
	bar := container.NewBorder(widget.NewSeparator(), nil, nil, container.NewCenter(container.NewHBox(f.cancel, f.save)),
		container.NewVBox(barErr, f.reason))
	f.obj = container.NewBorder(nil, bar, nil, nil, pageScroll(container.NewVBox(grid, f.advanced)))
	f.updateHint()

	// The fields filled when the form opens show their problems at once
	// (an entry being edited, a template's values); the others once
	// typed in.
	if !create {
		f.all = true
	} else {
		raw, _, _ := f.entry()
		var keys map[string]json.RawMessage
		_ = json.Unmarshal(raw, &keys)
		for k := range keys {
			if k != "command" || f.command.Text != "" {
				f.touched[fieldOf(k)] = true
			}
		}
		if f.serverName() != "" {
			f.touched["name"] = true
		}
	}
	f.validate(false)

	// Which secrets exist: a row's "stored" badge, and a new reference
	// to a missing one.
	w.knownSecrets(func(known map[string]bool) {
		f.knownSecrets = known
		f.env.updateBadges()
		if f.headers != nil {
			f.headers.updateBadges()
		}
		f.validate(false)
	})
	f.tools.load()
	f.opened = f.snapshot()
	return f
}

// snapshot is the form's content: its name, its entry, the secrets typed.
func (f *serverForm) snapshot() string {
	e, secrets, _ := f.entry()
	s := f.serverName() + "\x00" + string(e)
	for _, p := range secrets {
		s += "\x00" + p.Name + "\x00" + strconv.Itoa(len(p.Value)) // a length, never the value
	}
	return s
}

// edited says whether anything was typed or chosen since the form opened.
func (f *serverForm) edited() bool { return f.snapshot() != f.opened }

// reservedError returns an error label, and the object to lay out: the
// label over room for one line, kept while it is hidden, so that a
// message appearing or going does not move the fields below.
func reservedError() (*widget.Label, fyne.CanvasObject) {
	l := errorLabel()
	return l, reserveLine(l)
}

// reserveLine returns o over room for one line of text.
func reserveLine(o fyne.CanvasObject) fyne.CanvasObject {
	room := canvas.NewRectangle(color.Transparent)
	room.SetMinSize(fyne.NewSize(0, widget.NewLabel("X").MinSize().Height))
	return container.NewStack(room, o)
}

// changed notes that a field changed: its problems show from now on, and
// the entry is checked again once the typing pauses.
func (f *serverForm) changed(key string) {
	f.touched[key] = true
	if f.obj != nil { // built
		f.quickCheck()
	}
	f.gen++
	gen := f.gen
	time.AfterFunc(validateDelay, func() {
		f.w.opts.Do(func() {
			if f.gen == gen && f.w.ctx.Err() == nil {
				f.validate(false)
			}
		})
	})
}

// updateRenameHint says, while an entry's name is changed, what renaming
// it does.
func (f *serverForm) updateRenameHint() {
	n := f.serverName()
	if f.create || n == f.orig || !config.ValidServerName(n) {
		setText(f.renameHint, "")
		return
	}
	setText(f.renameHint, fmt.Sprintf("Saving renames it: it restarts as %s, and the AI apps see its tools as %s__TOOL instead of %s__TOOL (a prompt or setting that names them needs the new names). Its secrets stay as they are.",
		n, n, f.orig))
}

func (f *serverForm) serverName() string { return strings.TrimSpace(f.name.Text) }

// status returns the server's current status, for an entry the host has.
func (f *serverForm) status() *hostapi.ServerStatus {
	if f.create {
		return nil
	}
	for _, st := range f.w.snap.Servers {
		if st.Name == f.orig {
			return &st
		}
	}
	return nil
}

// nameTaken reports whether another server of the host has the name.
func (f *serverForm) nameTaken(name string) bool {
	if !f.create && name == f.orig {
		return false
	}
	return slices.ContainsFunc(f.w.snap.Servers, func(st hostapi.ServerStatus) bool { return st.Name == name })
}

// updateHint shows where the command resolves, or a warning that it does
// not.
func (f *serverForm) updateHint() {
	text, warn := commandHint(strings.TrimSpace(f.command.Text), f.w.snap.Info.Path, f.status())
	f.commandHint.Importance = widget.LowImportance
	if warn {
		f.commandHint.Importance = widget.WarningImportance
	}
	setText(f.commandHint, text)
}

// chooseCwd picks the working directory with the folder dialog.
func (f *serverForm) chooseCwd() {
	d := dialog.NewFolderOpen(func(u fyne.ListableURI, err error) {
		if err == nil && u != nil {
			f.cwd.SetText(u.Path())
		}
	}, f.w.win)
	if cur := strings.TrimSpace(f.cwd.Text); cur != "" {
		if l, err := storage.ListerForURI(storage.NewFileURI(cur)); err == nil {
			d.SetLocation(l)
		}
	}
	d.Show()
}

// entry returns the entry the form describes, the secrets to store, and
// the problems of env rows that only the form sees (a variable named
// twice, a new secret with no value).
func (f *serverForm) entry() (json.RawMessage, []pendingSecret, []rowProblem) {
	e := maps.Clone(f.base)
	set := func(key string, v any, keep bool) {
		if keep {
			e[key] = marshal(v)
		} else {
			delete(e, key)
		}
	}
	cmd := strings.TrimSpace(f.command.Text)
	if _, remote := f.base["url"]; remote && cmd == "" {
		delete(e, "command") // a remote entry's settings (remote.go): its url, type and oauth stay as they are
	} else {
		e["command"] = marshal(cmd)
	}
	args := f.args.values()
	set("args", args, len(args) > 0)
	env, secrets, rowPs := f.env.collect(f.knownSecrets)
	set("env", env, len(env) > 0)
	cwd := strings.TrimSpace(f.cwd.Text)
	set("cwd", cwd, cwd != "")
	switch m := stderrMode(f.stderr.Selected); m {
	case "file":
		e["stderr"] = marshal(map[string]string{"file": strings.TrimSpace(f.stderrFile.Text)})
	case "", "capture":
		delete(e, "stderr")
	default:
		e["stderr"] = marshal(m)
	}
	inherit := strings.FieldsFunc(f.inheritEnv.Text, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
	set("inheritEnv", inherit, len(inherit) > 0)
	set("allowBatchFiles", true, f.allowBatch.Checked)
	for _, o := range limits {
		t := strings.TrimSpace(f.limitEntries[o.Key].Text)
		if n, err := strconv.Atoi(t); err == nil {
			e[o.Key] = marshal(n)
		} else {
			// Not a number: sent as written, so that the config's check
			// names the problem in its words.
			set(o.Key, t, t != "")
		}
	}
	allow, deny := f.tools.lists()
	set("tools", config.Tools{Allow: allow, Deny: deny}, len(allow)+len(deny) > 0)
	// Unticked, an entry's "pin" (or a value the config's check names)
	// stays as written; only "auto" goes.
	switch {
	case f.trustAuto.Checked:
		e["trust"] = marshal("auto")
	case string(f.base["trust"]) == `"auto"`:
		delete(e, "trust")
	}
	f.sandbox.apply(e)
	f.applyStart(e)
	for _, k := range f.dropped {
		delete(e, k)
	}
	if f.headers != nil {
		secrets = append(secrets, f.headers.apply(e)...)
	}
	return marshal(e), secrets, rowPs
}

// formCheck is what checking the form found.
type formCheck struct {
	raw     json.RawMessage
	secrets []pendingSecret
	nameMsg string           // the name's problem
	taken   bool             // the name is another server's
	ps      []config.Problem // the config's check's
	rowPs   []rowProblem     // the env rows' that only the form sees
	bad     []string         // the fields wrong, in the form's order
	sandbox string           // the Sandbox section's own problem
}

// check checks the entry the form describes as the host will: the name,
// then the config's check (config.ParseServer), then what only the form
// sees. It shows nothing.
func (f *serverForm) check() formCheck {
	var c formCheck
	name := f.serverName()
	c.raw, c.secrets, c.rowPs = f.entry()
	c.nameMsg, c.ps = checkEntry(name, c.raw)
	switch {
	case name == "":
		c.nameMsg = "give the server a name: lower-case letters, digits and -, such as files"
	case c.nameMsg == "" && f.nameTaken(name):
		c.taken = true
		c.nameMsg = fmt.Sprintf("a server named %q already exists: choose another name, or edit %s", name, name)
	}
	var bad []string
	mark := func(key string) {
		if !slices.Contains(bad, key) {
			bad = append(bad, key)
		}
	}
	if c.nameMsg != "" {
		mark("name")
	}
	for _, p := range c.ps {
		mark(problemField(p))
	}
	if len(c.rowPs) > 0 {
		mark("env")
	}
	if c.sandbox = f.sandbox.problem(); c.sandbox != "" {
		mark("sandbox")
	}
	if f.headers != nil && len(f.headers.own) > 0 {
		mark("headers")
	}
	c.bad = f.order(bad)
	return c
}

// problemField is the form's field of a problem: its top-level key, or
// "name".
func problemField(p config.Problem) string {
	if p.Key == hostapi.KeyName {
		return "name"
	}
	return fieldOf(p.Key)
}

// validate checks the form (check) and shows each problem under its
// field (every field's with all, else the fields touched); Save is
// enabled, or disabled with the reason in the bar. It returns the entry,
// the secrets to store, and whether they can be saved.
func (f *serverForm) validate(all bool) (json.RawMessage, []pendingSecret, bool) {
	if all {
		f.all = true
	}
	shows := func(key string) bool { return f.all || f.touched[key] }
	c := f.check()
	f.clearErrors()
	if c.nameMsg != "" && shows("name") {
		f.showError("name", c.nameMsg)
	}
	for _, p := range c.ps {
		if shows(problemField(p)) {
			f.showProblem(p)
		}
	}
	if shows("env") {
		for _, rp := range c.rowPs {
			rp.row.showError(rp.msg)
		}
	}
	if c.sandbox != "" && shows("sandbox") {
		f.showError("sandbox", c.sandbox)
	}
	if f.headers != nil && shows("headers") {
		f.headers.showOwn()
	}
	f.offerEdit(c.taken && shows("name"))
	f.showReason(c)
	return c.raw, c.secrets, len(c.bad) == 0
}

// quickCheck follows a keystroke at once: the messages of the fields now
// right go, and Save and its reason follow; new messages wait for the
// pause (validate), so as not to scold each letter typed.
func (f *serverForm) quickCheck() {
	c := f.check()
	for key, l := range f.errs {
		if !slices.Contains(c.bad, key) && (key != "" || len(c.bad) == 0) {
			setText(l, "")
		}
	}
	if !slices.Contains(c.bad, "env") {
		f.env.clearErrors()
	}
	if f.headers != nil && !slices.Contains(c.bad, "headers") {
		f.headers.clearErrors()
	}
	if !c.taken {
		f.offerEdit(false)
	}
	f.showReason(c)
}

// showReason enables Save, or disables it with the reason in the bar.
func (f *serverForm) showReason(c formCheck) {
	noName, noCommand := f.serverName() == "", strings.TrimSpace(f.command.Text) == ""
	reason := saveReason(c.bad, func(key string) bool { return key == "name" && noName || key == "command" && noCommand })
	if slices.Equal(c.bad, []string{"name", "command"}) && noName && noCommand {
		reason = "Give the server a name and a command to save"
	}
	if !f.saving {
		setText(f.reason, reason)
	}
	enable(f.save, reason == "" && !f.saving)
	if f.afterCheck != nil {
		f.afterCheck(c)
	}
}

// offerEdit offers, beside the status line, to edit the server whose name
// a new entry takes (as the host's already_exists refusal does).
func (f *serverForm) offerEdit(on bool) {
	if on == f.editOffered {
		return
	}
	f.editOffered = on
	if !on {
		f.w.showRemedies(nil)
		return
	}
	name := f.serverName()
	f.w.showRemedies(&hostapi.Error{Code: hostapi.CodeAlreadyExists, Problems: []hostapi.Problem{{
		Server: name, Key: hostapi.KeyName, Remedy: &hostapi.Remedy{Kind: hostapi.RemedyEdit, Server: name}}}})
}

// order sorts field keys as the form shows them.
func (f *serverForm) order(keys []string) []string {
	rank := func(k string) int {
		for i, x := range []string{"name", "command", "args", "env", "cwd", "stderr", "start", "idleStop", "tools"} {
			if x == k {
				return i
			}
		}
		if i := slices.IndexFunc(limits, func(o config.Option) bool { return o.Key == k }); i >= 0 {
			return 10 + i
		}
		return 100
	}
	out := slices.Clone(keys)
	slices.SortStableFunc(out, func(a, b string) int { return rank(a) - rank(b) })
	return out
}

// fieldWord names a field in the bar's reason.
// saveReason is the Save bar's reason for the fields bad (entry keys, in
// the form's order; none: ""): one field left empty is asked for ("Give
// the name to save"), otherwise each is named ("Fix the address and the
// headers to save").
func saveReason(bad []string, empty func(key string) bool) string {
	if len(bad) == 0 {
		return ""
	}
	words := make([]string, 0, len(bad))
	for _, k := range bad {
		words = append(words, "the "+fieldWord(k))
	}
	if len(bad) == 1 && empty(bad[0]) {
		return "Give " + words[0] + " to save"
	}
	return "Fix " + english.List(words) + " to save"
}

// fieldWord names a field in the Save bar's reason.
func fieldWord(key string) string {
	if w, ok := fieldWords[key]; ok {
		return w
	}
	if o, ok := config.OptionByKey(key); ok {
		return strings.ToLower(o.Label[:1]) + o.Label[1:]
	}
	if key == "" {
		return "entry"
	}
	return key
}

// submit checks the form and saves it through the host: servers.put of
// the entry under the name it has on the host, then, when the name was
// changed, servers.rename.
func (f *serverForm) submit() {
	raw, secrets, ok := f.validate(true)
	if !ok {
		return // the fields say what is wrong, the bar what to fix
	}
	name := f.serverName()
	putName, rename := name, false
	if !f.create && name != f.orig {
		putName, rename = f.orig, true
	}
	f.saving = true
	enable(f.save, false)
	setText(f.reason, "Saving "+name+"…")
	f.w.showRemedies(nil)
	f.w.saveEntry(putName, raw, f.create, secrets, func(err error) {
		if err == nil && rename {
			f.renameTo(name)
			return
		}
		f.saved(name, err)
	})
}

// renameTo renames the saved entry (servers.rename), then ends the save.
func (f *serverForm) renameTo(name string) {
	// The window stays on the server under its new name: the list shows
	// it once the host lists it (the old name leaves first, or at once).
	sp := f.w.servers
	sp.want = name
	f.w.call(func(ctx context.Context) error {
		return f.w.live.RenameServer(ctx, f.orig, name)
	}, func(err error) {
		if err == nil {
			f.saved(name, nil)
			sp.update(f.w.snap)
			return
		}
		sp.want = ""
		// The fields were saved under the old name; only the name was
		// refused.
		f.saving = false
		f.validate(false)
		f.showSaveError(name, err)
		setText(f.errs[""], fmt.Sprintf("Saved under the name %s, but not renamed: %v", f.orig, err))
	})
}

// saved ends a save: the form closes, or shows the host's refusal.
func (f *serverForm) saved(name string, err error) {
	f.saving = false
	if err != nil {
		f.validate(false)
		f.showSaveError(name, err)
		return
	}
	f.env.clearSecrets()
	if f.headers != nil {
		f.headers.clearSecrets()
	}
	f.w.home()
	f.w.setStatus("Saved "+name+".", false)
}

func (f *serverForm) clearErrors() {
	for _, l := range f.errs {
		setText(l, "")
	}
	f.env.clearErrors()
	if f.headers != nil {
		f.headers.clearErrors()
	}
}

func (f *serverForm) showError(key, msg string) {
	l := f.errs[key]
	if l == nil {
		l, msg = f.errs[""], key+": "+msg
	}
	if l.Text != "" {
		msg = l.Text + "\n" + msg
	}
	setText(l, msg)
	if key != "" && key != idleStopKey && f.errs[key] != nil && slices.ContainsFunc(limits, func(o config.Option) bool { return o.Key == key }) {
		f.advanced.Open(0) // show the field the error is next to
	}
}

// showProblem shows a problem of the config's check next to its field.
func (f *serverForm) showProblem(p config.Problem) {
	field := fieldOf(p.Key)
	switch {
	case p.Key == "":
		f.showError("", p.Message)
	case p.Key == hostapi.KeyName:
		f.showError("name", p.Message)
	case field == "env":
		if name, isVar := strings.CutPrefix(p.Key, "env."); isVar {
			if r := f.env.row(name); r != nil {
				r.showError(p.Message)
				return
			}
		} else if rs := f.env.badNames(); len(rs) > 0 {
			// A variable's name is wrong (the key is "env" itself): the
			// rows whose names the config refuses are the ones it means.
			for _, r := range rs {
				r.showError(p.Message)
			}
			return
		}
		f.showError("env", p.Message)
	case field == "headers" && f.headers != nil && f.headers.showProblem(p):
		// under the header's row (remoteheaders.go)
	case field == "headers" && p.Key != "headers":
		f.showError("headers", p.Key+": "+p.Message)
	case field == "args" && p.Key != "args":
		f.showError("args", p.Key+": "+p.Message)
	case f.errs[field] != nil && field != "":
		f.showError(field, p.Message)
	default:
		f.showError("", p.Key+": "+p.Message)
	}
}

// showSaveError shows the host's refusal next to the fields its problems
// name (by their keys), "Not saved" in the bar, and its remedies as
// buttons.
func (f *serverForm) showSaveError(name string, err error) {
	setText(f.errs[""], "Not saved: correct the fields marked in red.")
	f.w.showRemedies(err)
	if v, ok := isSecretError(err); ok {
		if r := f.env.row(v); r != nil {
			r.showError(err.Error())
			return
		}
		if r := f.headers.rowOf(v); r != nil {
			r.showError(err.Error())
			return
		}
	}
	he, ok := hostError(err)
	switch {
	case ok && len(he.Problems) > 0:
		for _, p := range he.Problems {
			f.showProblem(configProblem(p))
		}
	case ok && (he.Code == hostapi.CodeAlreadyExists || he.Code == hostapi.CodeInvalidName):
		f.showError("name", err.Error()) // an older host: a code without problems
	default:
		setText(f.errs[""], "Not saved: "+err.Error())
	}
}

// argList is the editable list of arguments: one entry per argument, each
// with buttons to move it up or down or remove it. An argument is never
// split on spaces.
type argList struct {
	rows    []*argRow
	box     *fyne.Container
	changed func() // after any change; nil while the form is built
}

type argRow struct {
	entry         *widget.Entry
	up, down, del *widget.Button
	obj           fyne.CanvasObject
}

func newArgList(args []string) *argList {
	l := &argList{box: container.NewVBox()}
	for _, a := range args {
		l.add(a)
	}
	return l
}

// add appends a row and returns it.
func (l *argList) add(v string) *argRow {
	r := &argRow{entry: widget.NewEntry()}
	r.entry.SetText(v)
	r.entry.SetPlaceHolder("one argument, spaces and all")
	r.entry.OnChanged = func(string) { l.notify() }
	r.up = widget.NewButtonWithIcon("", theme.MoveUpIcon(), func() { l.move(r, -1) })
	r.down = widget.NewButtonWithIcon("", theme.MoveDownIcon(), func() { l.move(r, 1) })
	r.del = widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { l.remove(r) })
	r.obj = container.NewBorder(nil, nil, nil, container.NewHBox(r.up, r.down, r.del), r.entry)
	l.rows = append(l.rows, r)
	l.relayout()
	return r
}

func (l *argList) index(r *argRow) int { return slices.Index(l.rows, r) }

// move moves a row by delta places.
func (l *argList) move(r *argRow, delta int) {
	i := l.index(r)
	j := i + delta
	if i < 0 || j < 0 || j >= len(l.rows) {
		return
	}
	l.rows[i], l.rows[j] = l.rows[j], l.rows[i]
	l.relayout()
}

func (l *argList) remove(r *argRow) {
	if i := l.index(r); i >= 0 {
		l.rows = slices.Delete(l.rows, i, i+1)
		l.relayout()
	}
}

func (l *argList) relayout() {
	l.box.Objects = l.box.Objects[:0]
	for i, r := range l.rows {
		enable(r.up, i > 0)
		enable(r.down, i < len(l.rows)-1)
		l.box.Objects = append(l.box.Objects, r.obj)
	}
	l.box.Refresh()
	l.notify()
}

func (l *argList) notify() {
	if l.changed != nil {
		l.changed()
	}
}

// values returns the arguments, in order, skipping rows left empty (an
// empty argument can still be written in the config file).
func (l *argList) values() []string {
	var out []string
	for _, r := range l.rows {
		if r.entry.Text != "" {
			out = append(out, r.entry.Text)
		}
	}
	return out
}

// envTable is the environment: one row per variable, each either a plain
// value or a secret. A secret's value goes to the keyring through the
// host (secrets.set); the entry gets ${keyring:NAME}.
type envTable struct {
	rows    []*envRow
	box     *fyne.Container
	server  func() string          // the server's name, for suggested secret names
	changed func()                 // after any change
	known   func() map[string]bool // the keyring's secrets, nil while unknown
}

// The kinds of an env row.
const (
	kindValue  = "Value"
	kindSecret = "Secret"
)

type envRow struct {
	*secretRow
	err  *widget.Label
	ref  string // the secret the entry referred to when the form opened
	auto string // the secret name last suggested (not typed)
	obj  fyne.CanvasObject
}

// secretRow is what an environment variable's row and a header's row
// share: the name, the kind (a plain value or a secret), the value, the
// secret's fields (secretFields) and Delete, wired to the table's hooks.
type secretRow struct {
	name       *widget.Entry
	kind       *widget.Select
	value      *widget.Entry // a plain value, as written in the config
	secret     *widget.Entry // a password entry: the secret's value
	secretName *widget.Entry // its name in the keyring
	stored     *widget.Label // "stored": the keyring has a secret of that name
	secretBox  *fyne.Container
	del        *widget.Button
}

// rowHooks are what a table does when one of its rows changes.
type rowHooks struct {
	toSecret    func() // the row became a secret: show its fields, suggest a keyring name
	suggest     func() // a secret row's name changed: its suggested keyring name follows
	secretNamed func() // the keyring name changed
	changed     func() // after every edit
	remove      func() // Delete
}

// newSecretRow makes a plain row (kindValue): a name entry with the
// placeholder given, the value entry given, the secret's fields with
// extra under them, and wires them to h.
func newSecretRow(namePlaceHolder string, value *widget.Entry, h rowHooks, extra ...fyne.CanvasObject) *secretRow {
	r := &secretRow{name: widget.NewEntry(), value: value}
	r.name.SetPlaceHolder(namePlaceHolder)
	r.value.SetPlaceHolder("value")
	r.secret, r.secretName, r.stored, r.secretBox = secretFields(extra...)
	r.kind = widget.NewSelect([]string{kindValue, kindSecret}, func(k string) {
		if k == kindSecret {
			h.toSecret()
		} else {
			r.secretBox.Hide()
			r.value.Show()
		}
		h.changed()
	})
	r.kind.SetSelected(kindValue)
	r.name.OnChanged = func(string) {
		if r.kind.Selected == kindSecret {
			h.suggest()
		}
		h.changed()
	}
	r.value.OnChanged = func(string) { h.changed() }
	r.secret.OnChanged = func(string) { h.changed() }
	r.secretName.OnChanged = func(string) {
		h.secretNamed()
		h.changed()
	}
	r.del = widget.NewButtonWithIcon("", theme.DeleteIcon(), h.remove)
	return r
}

// addFrom adds a row for a variable of an entry: a value that is exactly
// one ${keyring:NAME} reference is a secret row. For an entry the host
// has (not fresh), the secret is taken to be in the keyring already.
func (t *envTable) addFrom(name, value, secretValue string, fresh bool) *envRow {
	r := t.add()
	r.name.SetText(name)
	if ev, err := config.ParseEnvValue(value); err == nil && len(ev) == 1 && ev[0].Secret != "" {
		r.secretName.SetText(ev[0].Secret)
		r.secret.SetText(secretValue)
		if !fresh {
			r.ref = ev[0].Secret
			r.secret.SetPlaceHolder("type a new value to replace it")
		}
		r.kind.SetSelected(kindSecret)
		return r
	}
	r.value.SetText(value)
	return r
}

// knownSecrets asks the host which secrets the keyring holds and gives
// their names to done, on the window's goroutine; a failure gives nothing
// (the forms then take any name).
func (w *Window) knownSecrets(done func(map[string]bool)) {
	var list []hostapi.SecretInfo
	w.call(func(ctx context.Context) (err error) {
		list, err = w.live.Secrets(ctx)
		return err
	}, func(err error) {
		if err != nil {
			return
		}
		known := make(map[string]bool, len(list))
		for _, s := range list {
			known[s.Name] = true
		}
		done(known)
	})
}

// secretFields are a row's secret (an environment variable's, a
// header's): its value in a password entry, below it the label "Keyring
// name" with the "stored" badge when the keyring has it, the name it has
// in the keyring in an entry of the column's full width (beside the label,
// in a server's Settings tab, it was a few letters wide), then extra; the
// box starts hidden.
func secretFields(extra ...fyne.CanvasObject) (secret, name *widget.Entry, stored *widget.Label, box *fyne.Container) {
	secret, name = widget.NewPasswordEntry(), widget.NewEntry()
	secret.SetPlaceHolder("the secret's value")
	name.SetPlaceHolder("such as github-token")
	stored = widget.NewLabelWithStyle("stored", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	stored.Importance = widget.SuccessImportance
	stored.Hide()
	box = container.NewVBox(append([]fyne.CanvasObject{secret,
		container.NewHBox(widget.NewLabel("Keyring name"), stored), name}, extra...)...)
	box.Hide()
	return secret, name, stored, box
}

// add appends an empty row.
func (t *envTable) add() *envRow {
	r := &envRow{}
	r.secretRow = newSecretRow("NAME", widget.NewEntry(), rowHooks{
		toSecret: func() {
			r.value.Hide()
			r.secretBox.Show()
			t.suggestFor(r)
		},
		suggest:     func() { t.suggestFor(r) },
		secretNamed: func() { t.updateBadge(r) },
		changed:     t.notify,
		remove:      func() { t.remove(r) },
	})
	var errLine fyne.CanvasObject
	r.err, errLine = reservedError()
	values := container.NewStack(r.value, r.secretBox)
	// The row's cells keep their own heights, aligned at the top: a
	// secret's two lines do not stretch the name or the buttons.
	r.obj = container.NewBorder(nil, errLine, nil, container.NewVBox(container.NewHBox(r.kind, r.del)),
		container.NewGridWithColumns(2, container.NewVBox(r.name), values))
	t.rows = append(t.rows, r)
	t.box.Objects = append(t.box.Objects, r.obj)
	t.box.Refresh()
	return r
}

func (t *envTable) remove(r *envRow) {
	if i := slices.Index(t.rows, r); i >= 0 {
		t.rows = slices.Delete(t.rows, i, i+1)
		t.box.Objects = slices.Delete(t.box.Objects, i, i+1)
		t.box.Refresh()
		t.notify()
	}
}

func (t *envTable) notify() {
	if t.changed != nil {
		t.changed()
	}
}

// updateBadge shows a secret row's "stored" badge when the keyring has a
// secret of its name.
func (t *envTable) updateBadge(r *envRow) {
	var known map[string]bool
	if t.known != nil {
		known = t.known()
	}
	if known[strings.TrimSpace(r.secretName.Text)] {
		r.stored.Show()
	} else {
		r.stored.Hide()
	}
}

// updateBadges updates every row's badge (the keyring's list came).
func (t *envTable) updateBadges() {
	for _, r := range t.rows {
		t.updateBadge(r)
	}
}

// row returns the row of a variable.
func (t *envTable) row(name string) *envRow {
	for _, r := range t.rows {
		if strings.TrimSpace(r.name.Text) == name {
			return r
		}
	}
	return nil
}

// suggest renames the suggested secret names of new secret rows after the
// server's name changed.
func (t *envTable) suggest() {
	for _, r := range t.rows {
		if r.kind.Selected == kindSecret {
			t.suggestFor(r)
		}
	}
}

// suggestFor fills a secret row's keyring name with the suggested one
// (config.SuggestSecretName), unless a name was typed or the row refers to
// an existing secret.
func (t *envTable) suggestFor(r *envRow) {
	v := strings.TrimSpace(r.name.Text)
	if r.ref != "" || v == "" || r.secretName.Text != "" && r.secretName.Text != r.auto {
		return
	}
	r.auto = config.SuggestSecretName(t.server(), v)
	r.secretName.SetText(r.auto)
}

func (r *envRow) showError(msg string) {
	if r.err.Text != "" {
		msg = r.err.Text + "\n" + msg
	}
	setText(r.err, msg)
}

func (t *envTable) clearErrors() {
	for _, r := range t.rows {
		setText(r.err, "")
	}
}

// clearSecrets forgets the typed secret values once they are stored.
func (t *envTable) clearSecrets() {
	for _, r := range t.rows {
		r.secret.SetText("")
	}
}

// rowProblem is a problem of an env row that only the form sees.
type rowProblem struct {
	row *envRow
	msg string
}

// collect returns the env of the entry and the secrets to store; rows left
// wholly empty are skipped. ps are the rows refused here: a variable
// named twice, or a new secret with no value (known lists the keyring's
// secrets; nil when unknown, and then any name is accepted).
func (t *envTable) collect(known map[string]bool) (env map[string]string, secrets []pendingSecret, ps []rowProblem) {
	env = map[string]string{}
	const twice = "appears more than once: keep one (the last one is used)"
	for _, r := range t.rows {
		name := strings.TrimSpace(r.name.Text)
		if r.kind.Selected != kindSecret {
			if name == "" && r.value.Text == "" {
				continue
			}
			if _, dup := env[name]; dup {
				ps = append(ps, rowProblem{r, twice})
			}
			env[name] = r.value.Text
			continue
		}
		secret := strings.TrimSpace(r.secretName.Text)
		if name == "" && secret == "" && r.secret.Text == "" {
			continue
		}
		if _, dup := env[name]; dup {
			ps = append(ps, rowProblem{r, twice})
		}
		if secret == "" {
			secret = config.SuggestSecretName(t.server(), name)
		}
		env[name] = config.KeyringRef(secret)
		switch {
		case r.secret.Text != "":
			secrets = append(secrets, pendingSecret{Var: name, Name: secret, Value: r.secret.Text})
		case secret != r.ref && known != nil && !known[secret]:
			ps = append(ps, rowProblem{r, fmt.Sprintf("type the secret's value: the keyring has no secret %q yet (the value goes to the keyring, never to the config file)", secret)})
		}
	}
	return env, secrets, ps
}

// badNames returns the rows whose variable names the config refuses.
func (t *envTable) badNames() []*envRow {
	var out []*envRow
	for _, r := range t.rows {
		if n := strings.TrimSpace(r.name.Text); n != "" && config.CheckEnvName(n) != nil {
			out = append(out, r)
		}
	}
	return out
}
