package window

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/catalog"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// catalogView is the "Add a server" place: the built-in templates
// ([catalog.All]) under their categories, with a search box that filters
// them as a person types (by name, description or package) and a choice
// of one category, and below them the registries' entries that the same
// search finds (addserver.go).
type catalogView struct {
	reg      *registryResults
	add      map[string]*widget.Button // each template's Add button, by name
	search   *escEntry
	category *widget.Select
	box      *fyne.Container
	bundle   *widget.Button               // "Install a bundle (.mcpb)…" (bundleview.go)
	rows     map[string]fyne.CanvasObject // each template's row, by name
	heads    map[catalog.Category]fyne.CanvasObject
	none     *widget.Label // "no template matches"
	obj      fyne.CanvasObject
}

// allCategories is the category choice that shows every category.
const allCategories = "All categories"

func (w *Window) openCatalog() {
	v := &catalogView{
		add:   map[string]*widget.Button{},
		rows:  map[string]fyne.CanvasObject{},
		heads: map[catalog.Category]fyne.CanvasObject{},
		box:   container.NewVBox(),
	}
	for _, c := range catalog.Categories() {
		h := widget.NewLabelWithStyle(string(c), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		h.SizeName = theme.SizeNameSubHeadingText
		v.heads[c] = h
	}
	for _, s := range catalog.All() {
		v.rows[s.Name] = v.row(w, s)
	}
	v.none = widget.NewLabel("")
	v.none.Wrapping = fyne.TextWrapWord
	v.search = newEscEntry(w)
	v.search.SetPlaceHolder("Search the templates and the registries by name, description or package")
	v.reg = newRegistryResults(w)
	v.search.OnChanged = func(q string) {
		v.filter()
		v.reg.search(q)
	}
	opts := []string{allCategories}
	for _, c := range catalog.Categories() {
		opts = append(opts, string(c))
	}
	v.category = widget.NewSelect(opts, func(string) { v.filter() })
	v.category.SetSelected(allCategories)
	v.filter()
	v.bundle = widget.NewButtonWithIcon("Install a bundle (.mcpb)…", theme.FileIcon(), w.chooseBundle)
	bar := container.NewVBox(container.NewBorder(nil, nil, nil, container.NewHBox(wideEnough(v.category, opts), v.bundle), v.search),
		hintLabel("Switchboard's templates (reviewed, pinned) and, as you type, the registries' entries: searched in their local indexes, never over the network ('switchboard registry sync' refreshes them)."))
	v.obj = container.NewBorder(bar, nil, nil, nil, pageScroll(container.NewVBox(v.box, v.reg.box)))
	w.open(&page{title: "Add a server", obj: v.obj})
	w.catalog = v
	w.focus(v.search)
}

// wideEnough returns a select laid out as wide as its longest option
// needs (Fyne's Select is as wide as its placeholder and cuts the rest).
func wideEnough(sel *widget.Select, opts []string) fyne.CanvasObject {
	var w float32
	for _, o := range opts {
		w = max(w, fyne.MeasureText(o, theme.TextSize(), fyne.TextStyle{}).Width)
	}
	w += 2*theme.InnerPadding() + theme.IconInlineSize() + 2*theme.Padding()
	return container.NewGridWrap(fyne.NewSize(w, sel.MinSize().Height), sel)
}

// row is a template's row: its title, the command it runs (in full, in a
// fixed-width font, wrapped rather than cut), its description, its note,
// and its Add button.
func (v *catalogView) row(w *Window, s catalog.Server) fyne.CanvasObject {
	spec := widget.NewLabelWithStyle(s.Registry.Runner()+" "+s.Spec(), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	spec.Selectable = true
	spec.Wrapping = fyne.TextWrapBreak
	desc := widget.NewLabel(s.Description)
	desc.Wrapping = fyne.TextWrapWord
	text := container.NewVBox(bold(s.Title), desc, spec, hintLabel(s.SandboxWords()))
	if s.Note != "" {
		n := hintLabel(s.Note)
		n.Importance = widget.WarningImportance
		text.Add(n)
	}
	b := widget.NewButtonWithIcon("Add…", theme.ContentAddIcon(), func() { w.openTemplate(s) })
	v.add[s.Name] = b
	return container.NewVBox(container.NewBorder(nil, nil, nil, container.NewCenter(b), text), widget.NewSeparator())
}

// filter shows the templates that match the search and the category,
// under their categories' headings.
func (v *catalogView) filter() {
	if v.category == nil {
		return // SetSelected while the view is built
	}
	q := v.search.Text
	only := v.category.Selected
	var objs []fyne.CanvasObject
	for _, c := range catalog.Categories() {
		if only != allCategories && only != string(c) {
			continue
		}
		var rows []fyne.CanvasObject
		for _, s := range catalog.All() {
			if s.Category == c && s.Matches(q) {
				rows = append(rows, v.rows[s.Name])
			}
		}
		if len(rows) > 0 {
			objs = append(append(objs, v.heads[c]), rows...)
		}
	}
	if len(objs) == 0 {
		where := "the catalog"
		if only != allCategories {
			where = only
		}
		v.none.SetText("No server in " + where + " matches \"" + strings.TrimSpace(q) + "\". Try fewer words, or add it yourself with Add server.")
		objs = []fyne.CanvasObject{v.none}
	}
	v.box.Objects = objs
	v.box.Refresh()
}

// shown returns the names of the templates the catalog shows, in order.
func (v *catalogView) shown() []string {
	var names []string
	for _, s := range catalog.All() {
		if slices.Contains(v.box.Objects, v.rows[s.Name]) {
			names = append(names, s.Name)
		}
	}
	return names
}

// templateView asks for exactly the settings a template needs and adds
// the server; Customize opens the full form with them filled in.
type templateView struct {
	w         *Window
	tpl       catalog.Server
	name      *widget.Entry
	inputs    map[string]*fieldInput // by Field.ID
	errs      map[string]*widget.Label
	save      *widget.Button
	customize *widget.Button
	obj       fyne.CanvasObject
}

// fieldInput is the widgets of one template field: one entry, or a list
// of them for a Dirs field.
type fieldInput struct {
	field   catalog.Field
	entries []*widget.Entry
	rows    *fyne.Container
}

func (w *Window) openTemplate(s catalog.Server) {
	v := &templateView{w: w, tpl: s, inputs: map[string]*fieldInput{}, errs: map[string]*widget.Label{}}
	errFor := func(key string) *widget.Label {
		l := errorLabel()
		v.errs[key] = l
		return l
	}
	v.name = widget.NewEntry()
	v.name.SetText(s.Name)
	cmd, args := s.Command()
	objs := []fyne.CanvasObject{
		widget.NewLabel("Name"), container.NewVBox(v.name, errFor("name")),
		widget.NewLabel("Runs"), selectableLabel(commandLine(cmd, args)),
	}
	for _, f := range s.Fields {
		in := &fieldInput{field: f, rows: container.NewVBox()}
		v.inputs[f.ID] = in
		cell := container.NewVBox(in.rows)
		in.addRow(w, "")
		if f.Kind == catalog.Dirs {
			cell.Add(container.NewHBox(widget.NewButtonWithIcon("Add directory", theme.ContentAddIcon(), func() {
				w.focus(in.addRow(w, ""))
			})))
		}
		help := f.Help
		if f.Optional {
			help = "Optional: " + help
		}
		cell.Add(hintLabel(help))
		cell.Add(errFor(f.ID))
		label := f.Label
		if !f.Optional {
			label += " *"
		}
		objs = append(objs, widget.NewLabel(label), cell)
	}
	v.save = widget.NewButtonWithIcon("Add server", theme.ContentAddIcon(), v.submit)
	v.save.Importance = widget.HighImportance
	v.customize = widget.NewButtonWithIcon("Customize…", theme.DocumentCreateIcon(), v.openForm)
	desc := widget.NewLabel(s.Description)
	desc.Wrapping = fyne.TextWrapWord
	note := hintLabel(s.Note)
	note.Importance = widget.WarningImportance
	secretNote := hintLabel("")
	if slices.ContainsFunc(s.Fields, func(f catalog.Field) bool { return f.Kind == catalog.Secret }) {
		setText(secretNote, "Secrets go to the OS keyring; the config file only refers to them.")
	}
	v.obj = pageScroll(container.NewVBox(desc, note, formGrid(objs...), hintLabel(s.SandboxWords()), secretNote, errFor(""),
		container.NewHBox(v.save, v.customize, widget.NewButton("Cancel", w.openCatalog))))
	w.open(&page{title: "Add " + s.Title, obj: v.obj})
	w.template = v
	if len(s.Fields) > 0 {
		w.focus(v.inputs[s.Fields[0].ID].entries[0])
	} else {
		w.focus(v.name)
	}
}

// addRow adds an entry to a field (a Dirs field has one per directory)
// and returns it.
func (in *fieldInput) addRow(w *Window, text string) *widget.Entry {
	e := widget.NewEntry()
	if in.field.Kind == catalog.Secret {
		e = widget.NewPasswordEntry()
	}
	e.SetPlaceHolder(in.field.Placeholder)
	e.SetText(text)
	in.entries = append(in.entries, e)
	var row fyne.CanvasObject = e
	switch in.field.Kind {
	case catalog.Dir, catalog.Dirs:
		choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), func() {
			dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
				if err == nil && u != nil {
					e.SetText(u.Path())
				}
			}, w.win)
		})
		right := container.NewHBox(choose)
		if in.field.Kind == catalog.Dirs && len(in.entries) > 1 {
			right.Add(widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
				if i := slices.Index(in.entries, e); i >= 0 {
					in.entries = slices.Delete(in.entries, i, i+1)
					in.rows.Objects = slices.Delete(in.rows.Objects, i, i+1)
					in.rows.Refresh()
				}
			}))
		}
		row = container.NewBorder(nil, nil, nil, right, e)
	}
	in.rows.Add(row)
	return e
}

func (v *templateView) values() catalog.Values {
	vals := catalog.Values{}
	for id, in := range v.inputs {
		for _, e := range in.entries {
			vals[id] = append(vals[id], e.Text)
		}
	}
	return vals
}

// entry returns the entry a build makes under name, and its secrets: each
// secret field's variable refers to ${keyring:<server>-<variable>}.
func entryOf(name string, b catalog.Built) (json.RawMessage, []pendingSecret) {
	env := maps.Clone(b.Env)
	var secrets []pendingSecret
	for _, k := range slices.Sorted(maps.Keys(b.Secrets)) {
		sn := config.SuggestSecretName(name, k)
		env[k] = config.KeyringRef(sn)
		secrets = append(secrets, pendingSecret{Var: k, Name: sn, Value: b.Secrets[k]})
	}
	e := map[string]any{"command": b.Command, "args": b.Args}
	if len(env) > 0 {
		e["env"] = env
	}
	if b.Sandbox != nil {
		e["sandbox"] = b.Sandbox
	}
	if b.SandboxOptional {
		e["sandboxRequired"] = false
	}
	return marshal(e), secrets
}

// submit checks the values and adds the server.
func (v *templateView) submit() {
	for _, l := range v.errs {
		setText(l, "")
	}
	name := strings.TrimSpace(v.name.Text)
	b, ferrs := v.tpl.Build(v.values())
	ok := len(ferrs) == 0
	for _, fe := range ferrs {
		v.showError(fe.Field, fe.Msg)
	}
	entry, secrets := entryOf(name, b)
	nameMsg, ps := checkEntry(name, entry)
	if nameMsg != "" {
		v.showError("name", nameMsg)
		ok = false
	}
	for _, p := range ps {
		v.showProblem(p, b)
		ok = false
	}
	if !ok {
		v.w.setStatus("Not added: correct the fields marked in red.", true)
		return
	}
	v.save.Disable()
	v.w.setStatus("Adding "+name+"…", false)
	v.w.saveEntry(name, entry, true, secrets, func(err error) {
		v.save.Enable()
		if err == nil {
			v.w.home()
			v.w.setStatus("Added "+name+".", false)
			return
		}
		v.w.setStatus("Not added: correct the fields marked in red.", true)
		if variable, ok := isSecretError(err); ok {
			v.showError(v.fieldOfEnv(variable), err.Error())
			return
		}
		v.w.showRemedies(err)
		he, ok := hostError(err)
		switch {
		case ok && len(he.Problems) > 0:
			for _, p := range he.Problems {
				v.showProblem(configProblem(p), b)
			}
		case ok && (he.Code == hostapi.CodeAlreadyExists || he.Code == hostapi.CodeInvalidName):
			v.showError("name", err.Error()) // an older host: a code without problems
		default:
			v.showError("", err.Error())
		}
	})
}

// fieldOfEnv returns the field that sets an env variable, or "".
func (v *templateView) fieldOfEnv(variable string) string {
	for _, f := range v.tpl.Fields {
		if f.Env == variable {
			return f.ID
		}
	}
	return ""
}

// showProblem shows a problem of the built entry next to the field it
// came from.
func (v *templateView) showProblem(p config.Problem, b catalog.Built) {
	if p.Key == hostapi.KeyName {
		v.showError("name", p.Message)
		return
	}
	field := ""
	if variable, ok := strings.CutPrefix(p.Key, "env."); ok {
		field = v.fieldOfEnv(variable)
	}
	if rest, ok := strings.CutPrefix(p.Key, "args["); ok {
		if i, err := strconv.Atoi(strings.TrimSuffix(rest, "]")); err == nil {
			field = b.ArgField[i]
		}
	}
	if field == "" {
		v.showError("", p.Error())
		return
	}
	v.showError(field, p.Message)
}

func (v *templateView) showError(key, msg string) {
	l := v.errs[key]
	if l == nil {
		l = v.errs[""]
	}
	if l.Text != "" {
		msg = l.Text + "\n" + msg
	}
	setText(l, msg)
}

// openForm opens the full form with the template's command line, env and
// secrets filled in (what is missing stays to be filled there).
func (v *templateView) openForm() {
	name := strings.TrimSpace(v.name.Text)
	b, _ := v.tpl.Build(v.values())
	entry, secrets := entryOf(name, b)
	var e map[string]any
	_ = json.Unmarshal(entry, &e)
	env, _ := e["env"].(map[string]any)
	for _, f := range v.tpl.Fields {
		if f.Kind == catalog.Secret && f.Env != "" && !f.Optional && b.Secrets[f.Env] == "" {
			if env == nil {
				env = map[string]any{}
			}
			env[f.Env] = config.KeyringRef(config.SuggestSecretName(name, f.Env))
		}
	}
	if env != nil {
		e["env"] = env
	}
	s, err := config.ParseServer(config.NormalizeName(name), marshal(e))
	if err != nil {
		v.showError("", err.Error())
		return
	}
	values := map[string]string{}
	for _, ps := range secrets {
		values[ps.Var] = ps.Value
	}
	w := v.w
	var base map[string]json.RawMessage
	if b.Sandbox != nil {
		base = map[string]json.RawMessage{"sandbox": b.Sandbox}
		if b.SandboxOptional {
			base["sandboxRequired"] = marshal(false)
		}
	}
	f := newServerForm(w, name, true, s, base, values)
	w.open(&page{title: "Add " + v.tpl.Title, obj: f.obj})
	w.form = f
	w.focus(f.name)
}
