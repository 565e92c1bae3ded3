package window

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// limits are the numeric options of the Advanced section: the config's
// table (labels, help, defaults), less the options reserved for later.
var limits = slices.DeleteFunc(slices.Clone(config.Options), func(o config.Option) bool { return o.Reserved != "" })

// stderrModes are the stderr select's options, as the config writes them.
var stderrModes = []string{"capture", "discard", "inherit", "file"}

// serverForm adds or edits a server. Every field has an error label next
// to it; a problem found by the config's check (or the host's refusal)
// shows there, in the same words as the command line.
type serverForm struct {
	w      *Window
	create bool
	base   map[string]json.RawMessage // the entry as the host had it: keys the form does not show are kept

	name, command, cwd, stderrFile, inheritEnv *widget.Entry
	commandHint                                *widget.Label
	cwdBrowse                                  *widget.Button
	stderr                                     *widget.Select
	allowBatch                                 *widget.Check
	limitEntries                               map[string]*widget.Entry
	args                                       *argList
	env                                        *envTable
	advanced                                   *widget.Accordion
	errs                                       map[string]*widget.Label // by key; "" for problems of no field
	addArg, addEnv, save, cancel               *widget.Button
	// knownSecrets are the secrets the keyring holds (nil until
	// secrets.list answered).
	knownSecrets map[string]bool
	obj          fyne.CanvasObject
}

// openAdd shows an empty form for a new server.
func (w *Window) openAdd() {
	f := newServerForm(w, "", true, &config.Server{}, nil, nil)
	w.open(&page{title: "Add a server", obj: f.obj})
	w.form = f
	w.focus(f.name)
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
	f := &serverForm{w: w, create: create, base: base, errs: map[string]*widget.Label{}, limitEntries: map[string]*widget.Entry{}}
	if f.base == nil {
		f.base = map[string]json.RawMessage{}
	}
	errFor := func(key string) *widget.Label {
		l := errorLabel()
		f.errs[key] = l
		return l
	}

	f.name = widget.NewEntry()
	f.name.SetPlaceHolder("files (lower-case letters, digits and -)")
	f.name.SetText(name)
	if !create {
		f.name.Disable()
	}
	f.name.OnChanged = func(string) { f.env.suggest() }

	f.command = widget.NewEntry()
	f.command.SetPlaceHolder("npx, uvx, or the absolute path of the executable")
	f.command.SetText(s.Command)
	f.commandHint = hintLabel("")
	f.command.OnChanged = func(string) { f.updateHint() }

	f.args = newArgList(s.Args)
	f.addArg = widget.NewButtonWithIcon("Add argument", theme.ContentAddIcon(), func() { w.focus(f.args.add("").entry) })

	f.env = &envTable{box: container.NewVBox(), server: f.serverName}
	for _, k := range slices.Sorted(maps.Keys(s.Env)) {
		f.env.addFrom(k, s.Env[k], secretValues[k], create)
	}
	f.addEnv = widget.NewButtonWithIcon("Add variable", theme.ContentAddIcon(), func() {
		w.focus(f.env.add().name)
	})

	f.cwd = widget.NewEntry()
	f.cwd.SetPlaceHolder("the host's working directory")
	f.cwd.SetText(s.Cwd)
	f.cwdBrowse = widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), f.chooseCwd)

	f.stderrFile = widget.NewEntry()
	f.stderrFile.SetPlaceHolder("/absolute/path/of/a/log/file")
	f.stderr = widget.NewSelect(stderrModes, func(m string) {
		if m == "file" {
			f.stderrFile.Show()
		} else {
			f.stderrFile.Hide()
		}
	})
	mode := "capture"
	if s.Stderr != nil {
		mode = s.Stderr.Kind
		f.stderrFile.SetText(s.Stderr.File)
	}
	f.stderr.SetSelected(mode)
	if mode != "file" {
		f.stderrFile.Hide()
	}

	adv := []fyne.CanvasObject{}
	for _, o := range limits {
		e := widget.NewEntry()
		e.SetPlaceHolder("default " + o.Format(o.Default))
		if v, ok := s.Numbers[o.Key]; ok {
			e.SetText(strconv.Itoa(v))
		}
		f.limitEntries[o.Key] = e
		adv = append(adv, widget.NewLabel(o.Label), container.NewVBox(e, hintLabel(o.Help), errFor(o.Key)))
	}
	f.inheritEnv = widget.NewEntry()
	f.inheritEnv.SetPlaceHolder("HTTPS_PROXY NODE_EXTRA_CA_CERTS")
	f.inheritEnv.SetText(strings.Join(s.InheritEnv, " "))
	f.allowBatch = widget.NewCheck("Allow a .bat or .cmd command (Windows)", nil)
	f.allowBatch.SetChecked(s.AllowBatchFiles)
	adv = append(adv,
		widget.NewLabel("Pass these variables too"), container.NewVBox(f.inheritEnv, errFor("inheritEnv")),
		widget.NewLabel("Batch files"), container.NewVBox(f.allowBatch, errFor("allowBatchFiles")))
	f.advanced = widget.NewAccordion(widget.NewAccordionItem("Advanced: the engine's limits", formGrid(adv...)))

	f.save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), f.submit)
	f.save.Importance = widget.HighImportance
	f.cancel = widget.NewButton("Cancel", w.home)

	grid := formGrid(
		widget.NewLabel("Name"), container.NewVBox(f.name, errFor("name")),
		widget.NewLabel("Command"), container.NewVBox(f.command, f.commandHint, errFor("command")),
		widget.NewLabel("Arguments"), container.NewVBox(f.args.box, container.NewHBox(f.addArg), errFor("args")),
		widget.NewLabel("Environment"), container.NewVBox(f.env.box, container.NewHBox(f.addEnv), errFor("env")),
		widget.NewLabel("Working directory"), container.NewVBox(container.NewBorder(nil, nil, nil, f.cwdBrowse, f.cwd), errFor("cwd")),
		widget.NewLabel("Stderr"), container.NewVBox(f.stderr, f.stderrFile, errFor("stderr")),
	)
	f.obj = pageScroll(container.NewVBox(grid, f.advanced, errFor(""), container.NewHBox(f.save, f.cancel)))
	f.updateHint()

	// Which secrets exist, to tell a new reference to a missing one.
	var list []hostapi.SecretInfo
	w.call(func(ctx context.Context) (err error) {
		list, err = w.live.Secrets(ctx)
		return err
	}, func(err error) {
		if err == nil {
			f.knownSecrets = map[string]bool{}
			for _, s := range list {
				f.knownSecrets[s.Name] = true
			}
		}
	})
	return f
}

func (f *serverForm) serverName() string { return strings.TrimSpace(f.name.Text) }

// status returns the server's current status, for an entry the host has.
func (f *serverForm) status() *hostapi.ServerStatus {
	if f.create {
		return nil
	}
	for _, st := range f.w.snap.Servers {
		if st.Name == f.serverName() {
			return &st
		}
	}
	return nil
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
// whether the form's own checks passed (they show their errors).
func (f *serverForm) entry() (json.RawMessage, []pendingSecret, bool) {
	e := maps.Clone(f.base)
	set := func(key string, v any, keep bool) {
		if keep {
			e[key] = marshal(v)
		} else {
			delete(e, key)
		}
	}
	cmd := strings.TrimSpace(f.command.Text)
	e["command"] = marshal(cmd)
	args := f.args.values()
	set("args", args, len(args) > 0)
	env, secrets, ok := f.env.collect(f.knownSecrets)
	set("env", env, len(env) > 0)
	cwd := strings.TrimSpace(f.cwd.Text)
	set("cwd", cwd, cwd != "")
	switch m := f.stderr.Selected; m {
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
	return marshal(e), secrets, ok
}

// submit checks the form and saves it through the host.
func (f *serverForm) submit() {
	f.clearErrors()
	name := f.serverName()
	raw, secrets, ok := f.entry()
	nameMsg, ps := checkEntry(name, raw)
	if nameMsg != "" {
		f.showError("name", nameMsg)
		ok = false
	}
	for _, p := range ps {
		f.showProblem(p)
		ok = false
	}
	if !ok {
		f.w.setStatus("Not saved: correct the fields marked in red.", true)
		return
	}
	f.save.Disable()
	f.w.setStatus("Saving "+name+"…", false)
	f.w.saveEntry(name, raw, f.create, secrets, func(err error) {
		f.save.Enable()
		if err != nil {
			f.showSaveError(name, err)
			return
		}
		f.env.clearSecrets()
		f.w.home()
		f.w.setStatus("Saved "+name+".", false)
	})
}

func (f *serverForm) clearErrors() {
	for _, l := range f.errs {
		setText(l, "")
	}
	f.env.clearErrors()
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
	if key != "" && f.errs[key] != nil && slices.ContainsFunc(limits, func(o config.Option) bool { return o.Key == key }) {
		f.advanced.Open(0) // show the field the error is next to
	}
}

// showProblem shows a problem of the config's check next to its field.
func (f *serverForm) showProblem(p config.Problem) {
	field := fieldOf(p.Key)
	switch {
	case p.Key == "":
		f.showError("", p.Msg)
	case p.Key == hostapi.KeyName:
		f.showError("name", p.Msg)
	case field == "env":
		if name, isVar := strings.CutPrefix(p.Key, "env."); isVar {
			if r := f.env.row(name); r != nil {
				r.showError(p.Msg)
				return
			}
		} else if rs := f.env.badNames(); len(rs) > 0 {
			// A variable's name is wrong (the key is "env" itself): the
			// rows whose names the config refuses are the ones it means.
			for _, r := range rs {
				r.showError(p.Msg)
			}
			return
		}
		f.showError("env", p.Msg)
	case field == "args" && p.Key != "args":
		f.showError("args", p.Key+": "+p.Msg)
	case f.errs[field] != nil && field != "":
		f.showError(field, p.Msg)
	default:
		f.showError("", p.Key+": "+p.Msg)
	}
}

// showSaveError shows the host's refusal next to the fields its problems
// name (by their keys), and its remedies as buttons.
func (f *serverForm) showSaveError(name string, err error) {
	f.w.setStatus("Not saved: correct the fields marked in red.", true)
	f.w.showRemedies(err)
	if v, ok := isSecretError(err); ok {
		if r := f.env.row(v); r != nil {
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
		f.showError("", err.Error())
	}
}

// argList is the editable list of arguments: one entry per argument, each
// with buttons to move it up or down or remove it. An argument is never
// split on spaces.
type argList struct {
	rows []*argRow
	box  *fyne.Container
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
	rows   []*envRow
	box    *fyne.Container
	server func() string // the server's name, for suggested secret names
}

// The kinds of an env row.
const (
	kindValue  = "Value"
	kindSecret = "Secret"
)

type envRow struct {
	name       *widget.Entry
	kind       *widget.Select
	value      *widget.Entry // a plain value, as written in the config
	secret     *widget.Entry // a password entry: the secret's value
	secretName *widget.Entry // its name in the keyring
	secretBox  *fyne.Container
	del        *widget.Button
	err        *widget.Label
	ref        string // the secret the entry referred to when the form opened
	auto       string // the secret name last suggested (not typed)
	obj        fyne.CanvasObject
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
			r.secret.SetPlaceHolder("kept in the keyring; type to replace it")
		}
		r.kind.SetSelected(kindSecret)
		return r
	}
	r.value.SetText(value)
	return r
}

// add appends an empty row.
func (t *envTable) add() *envRow {
	r := &envRow{name: widget.NewEntry(), value: widget.NewEntry(), secret: widget.NewPasswordEntry(), secretName: widget.NewEntry()}
	r.name.SetPlaceHolder("NAME")
	r.value.SetPlaceHolder("value")
	r.secret.SetPlaceHolder("secret value")
	r.secretName.SetPlaceHolder("name in the keyring")
	r.secretBox = container.NewGridWithColumns(2, r.secret, r.secretName)
	r.secretBox.Hide()
	r.kind = widget.NewSelect([]string{kindValue, kindSecret}, func(k string) {
		if k == kindSecret {
			r.value.Hide()
			r.secretBox.Show()
			t.suggestFor(r)
		} else {
			r.secretBox.Hide()
			r.value.Show()
		}
	})
	r.kind.SetSelected(kindValue)
	r.name.OnChanged = func(string) {
		if r.kind.Selected == kindSecret {
			t.suggestFor(r)
		}
	}
	r.del = widget.NewButtonWithIcon("", theme.DeleteIcon(), func() { t.remove(r) })
	r.err = errorLabel()
	values := container.NewStack(r.value, r.secretBox)
	r.obj = container.NewBorder(nil, r.err, nil, container.NewHBox(r.kind, r.del), container.NewGridWithColumns(2, r.name, values))
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

// collect returns the env of the entry and the secrets to store; rows left
// wholly empty are skipped. ok is false when a row is refused here: a
// variable named twice, or a new secret with no value (known lists the
// keyring's secrets; nil when unknown, and then any name is accepted).
func (t *envTable) collect(known map[string]bool) (env map[string]string, secrets []pendingSecret, ok bool) {
	env, ok = map[string]string{}, true
	for _, r := range t.rows {
		name := strings.TrimSpace(r.name.Text)
		if r.kind.Selected != kindSecret {
			if name == "" && r.value.Text == "" {
				continue
			}
			if _, dup := env[name]; dup {
				r.showError("appears more than once: keep one (the last one is used)")
				ok = false
			}
			env[name] = r.value.Text
			continue
		}
		secret := strings.TrimSpace(r.secretName.Text)
		if name == "" && secret == "" && r.secret.Text == "" {
			continue
		}
		if _, dup := env[name]; dup {
			r.showError("appears more than once: keep one (the last one is used)")
			ok = false
		}
		if secret == "" {
			secret = config.SuggestSecretName(t.server(), name)
			r.secretName.SetText(secret)
		}
		env[name] = config.KeyringRef(secret)
		switch {
		case r.secret.Text != "":
			secrets = append(secrets, pendingSecret{Var: name, Name: secret, Value: r.secret.Text})
		case secret != r.ref && known != nil && !known[secret]:
			r.showError(fmt.Sprintf("type the secret's value: the keyring has no secret %q yet (the value goes to the keyring, never to the config file)", secret))
			ok = false
		}
	}
	return env, secrets, ok
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
