package window

// The "Add a server" place's registry half (catalogview.go has the
// templates): the registries' entries found by the host's registry.search
// (the local indexes, never the network), an entry's card before anything
// of it runs (registry.show), and a form built from the entry's inputs
// whose Add is registry.add (app/install's Add in the host: an npm package
// installed locked, secret values into the keyring only). docs/registry.md
// ("In the window").

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// registryResults is the registry's half of the search: a heading, a
// line saying where the results come from, and a row per entry.
type registryResults struct {
	w      *Window
	box    *fyne.Container
	note   *widget.Label
	seq    int                       // the last search asked; older answers are dropped
	view   map[string]*widget.Button // each result's "View…", by registry and name
	shown  []hostapi.RegistryResult
	failed string
}

func newRegistryResults(w *Window) *registryResults {
	r := &registryResults{w: w, box: container.NewVBox(), note: hintLabel(""), view: map[string]*widget.Button{}}
	return r
}

// search asks the host for q's entries (the local indexes: typing never
// reaches the network) and shows them when the answer is still the
// latest question's.
func (r *registryResults) search(q string) {
	r.seq++
	seq := r.seq
	q = strings.TrimSpace(q)
	if q == "" {
		r.show(nil, "", nil)
		return
	}
	var res hostapi.RegistrySearchResult
	r.w.call(func(ctx context.Context) (err error) {
		res, err = r.w.live.RegistrySearch(ctx, q, 20)
		return err
	}, func(err error) {
		if seq != r.seq {
			return
		}
		if err != nil {
			r.show(nil, "The registries could not be searched: "+err.Error(), nil)
			return
		}
		var kept []hostapi.RegistryResult
		for _, e := range res.Results {
			if e.Registry != registry.CatalogRegistry { // the templates above are the catalog's
				kept = append(kept, e)
			}
		}
		r.show(kept, "", res.Notes)
	})
}

func resultKey(registryName, name string) string { return registryName + "/" + name }

// show lays out the results (nil with failed: the reason there are none).
func (r *registryResults) show(results []hostapi.RegistryResult, failed string, notes []string) {
	if failed == "" && r.failed == "" && len(r.box.Objects) > 0 && slices.EqualFunc(results, r.shown, func(a, b hostapi.RegistryResult) bool {
		return a.Registry == b.Registry && a.Name == b.Name && a.Version == b.Version && a.Status == b.Status
	}) {
		return // the same entries: the rows (and a pointer over one) stay
	}
	r.shown, r.failed = results, failed
	r.view = map[string]*widget.Button{}
	var objs []fyne.CanvasObject
	if r.seq > 0 && (len(results) > 0 || failed != "") {
		h := widget.NewLabelWithStyle("From the registries", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
		h.SizeName = theme.SizeNameSubHeadingText
		objs = append(objs, h)
	}
	if failed != "" {
		l := errorLabel()
		setText(l, failed)
		objs = append(objs, l)
	}
	for _, e := range results {
		objs = append(objs, r.row(e))
	}
	setText(r.note, strings.Join(notes, "\n"))
	if len(results) > 0 {
		objs = append(objs, r.note)
	}
	r.box.Objects = objs
	r.box.Refresh()
}

// row is one entry found: its title and name, its badges (registry,
// version, package kinds, deprecated, not runnable), its description and
// its View button.
func (r *registryResults) row(e hostapi.RegistryResult) fyne.CanvasObject {
	title := e.Name
	if e.Title != "" {
		title = e.Title + "  (" + e.Name + ")"
	}
	kinds := map[string]bool{}
	var kindList []string
	for _, p := range e.Packages {
		k, _, _ := strings.Cut(p, ":")
		if !kinds[k] {
			kinds[k] = true
			kindList = append(kindList, k)
		}
	}
	if e.Remote {
		kindList = append(kindList, "remote")
	}
	badge := "registry " + e.Registry
	if e.Version != "" {
		badge += " · version " + e.Version
	}
	if len(kindList) > 0 {
		badge += " · " + strings.Join(kindList, ", ")
	}
	text := container.NewVBox(bold(title), hintLabel(badge))
	if e.Status == registry.StatusDeprecated {
		msg := e.StatusMessage
		if msg == "" {
			msg = "no reason given"
		}
		d := hintLabel("Deprecated by its registry: " + msg)
		d.Importance = widget.WarningImportance
		text.Add(d)
	}
	if !e.Runnable {
		n := hintLabel("Switchboard cannot run it: " + e.Why)
		n.Importance = widget.WarningImportance
		text.Add(n)
	}
	if e.Description != "" {
		d := widget.NewLabel(e.Description)
		d.Wrapping = fyne.TextWrapWord
		text.Add(d)
	}
	b := widget.NewButtonWithIcon("View…", theme.InfoIcon(), func() { r.w.openRegistryEntry(e.Name, e.Registry) })
	r.view[resultKey(e.Registry, e.Name)] = b
	return container.NewVBox(container.NewBorder(nil, nil, nil, container.NewCenter(b), text), widget.NewSeparator())
}

// entryView is a registry entry's card and its Add form.
type entryView struct {
	w        *Window
	card     registry.Card
	choice   *widget.Select // the package or remote (nil: one only)
	choices  []option
	chosen   option
	details  *fyne.Container // the chosen option's argv, runtime and inputs
	name     *widget.Entry
	fields   map[string]*inputField
	unlocked *widget.Check // an npm package: run with npx (nil otherwise)
	problems *widget.Label
	progress *widget.Label
	add      *widget.Button
	obj      fyne.CanvasObject
}

// option is a package or a remote the entry can be added with.
type option struct {
	label   string
	pkg     *registry.PackageCard
	remote  *registry.RemoteCard
	pkgN    int // 1-based, as the card numbers them
	remoteN int
}

// inputField is the widget of one input: an entry (a password entry for
// a secret), a choice, or a check for a boolean.
type inputField struct {
	in     registry.InputCard
	entry  *widget.Entry
	choice *widget.Select
	check  *widget.Check
}

// value is the field's value, and whether one was given ("" is none: the
// input's default applies).
func (f *inputField) value() (string, bool) {
	switch {
	case f.choice != nil:
		return f.choice.Selected, f.choice.Selected != ""
	case f.check != nil:
		if f.check.Checked {
			return "true", true
		}
		return "false", f.in.Default == "true"
	}
	return f.entry.Text, strings.TrimSpace(f.entry.Text) != ""
}

// openRegistryEntry reads the entry's card from the host and shows it.
func (w *Window) openRegistryEntry(name, reg string) {
	var raw json.RawMessage
	w.setStatus("Reading "+name+"…", false)
	w.call(func(ctx context.Context) (err error) {
		raw, err = w.live.RegistryShow(ctx, name, reg)
		return err
	}, func(err error) {
		var c registry.Card
		if err == nil {
			err = json.Unmarshal(raw, &c)
		}
		if err != nil {
			w.setStatus("Cannot show "+name+": "+err.Error(), true)
			return
		}
		w.showCard(c)
	})
}

// showCard opens the page of a card: what it would run before anything
// of it runs, and the form that adds it.
func (w *Window) showCard(c registry.Card) {
	v := &entryView{w: w, card: c, fields: map[string]*inputField{}}
	for i := range c.Packages {
		p := &c.Packages[i]
		if p.Argv == nil || p.Transport != "stdio" {
			continue
		}
		v.choices = append(v.choices, option{label: fmt.Sprintf("Package %d: %s %s %s", i+1, p.RegistryType, p.Identifier, p.Version), pkg: p, pkgN: i + 1})
	}
	for i := range c.Remotes {
		r := &c.Remotes[i]
		if r.Type != "streamable-http" && r.Type != "sse" {
			continue
		}
		v.choices = append(v.choices, option{label: fmt.Sprintf("Remote %d: %s %s", i+1, r.Type, r.URL), remote: r, remoteN: i + 1})
	}

	desc := widget.NewLabel(c.Description)
	desc.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(desc)
	if c.Status == registry.StatusDeprecated {
		msg := c.StatusMsg
		if msg == "" {
			msg = "no reason given"
		}
		d := selectableLabel("Deprecated by its registry: " + msg)
		d.Wrapping = fyne.TextWrapWord
		d.Importance = widget.WarningImportance
		top.Add(d)
	}
	var rows []fyne.CanvasObject
	line := func(label, text string) {
		l := selectableLabel(text)
		l.Wrapping = fyne.TextWrapWord
		rows = append(rows, widget.NewLabel(label), l)
	}
	line("Name", c.Name)
	line("Registry", c.Registry)
	line("Publisher", c.Namespace+": "+c.VerifiedText)
	if c.Repository != "" {
		repo := c.Repository
		if c.RepositoryID != "" {
			repo += " (id " + c.RepositoryID + ")"
		}
		line("Repository", repo)
	}
	if c.Website != "" {
		line("Website", c.Website)
	}
	switch {
	case c.Age != "":
		line("Version", fmt.Sprintf("%s, published %s ago", c.Version, c.Age))
	case c.Version != "":
		line("Version", c.Version+" (publish date not known)")
	}
	if len(c.Icons) > 0 {
		line("Icons", "not shown: the window fetches nothing from the network for a card")
	}
	if c.Note != "" {
		line("Note", c.Note)
	}
	var others []string
	for i, p := range c.Packages {
		switch {
		case p.Argv == nil:
			others = append(others, fmt.Sprintf("Package %d (%s %s): %s", i+1, p.RegistryType, p.Identifier, p.Unsupported))
		case p.Transport != "stdio":
			others = append(others, fmt.Sprintf("Package %d (%s %s) serves %s itself: Switchboard runs stdio packages only", i+1, p.RegistryType, p.Identifier, p.Transport))
		}
	}
	if len(others) > 0 {
		line("Not offered", strings.Join(others, "\n"))
	}

	v.name = widget.NewEntry()
	_, short := registry.SplitName(c.Name)
	v.name.SetText(config.NormalizeName(short))
	v.details = container.NewVBox()
	v.problems = errorLabel()
	v.progress = hintLabel("")
	v.add = widget.NewButtonWithIcon("Add", theme.ContentAddIcon(), v.submit)
	v.add.Importance = widget.HighImportance
	form := container.NewVBox()
	if len(v.choices) == 0 {
		n := selectableLabel("Switchboard cannot run this entry: none of its packages or remotes is one it can start.")
		n.Wrapping = fyne.TextWrapWord
		n.Importance = widget.WarningImportance
		form.Add(n)
		v.add.Disable()
	} else {
		if len(v.choices) > 1 {
			var labels []string
			for _, o := range v.choices {
				labels = append(labels, o.label)
			}
			v.choice = widget.NewSelect(labels, func(s string) {
				for _, o := range v.choices {
					if o.label == s {
						v.choose(o)
					}
				}
			})
			form.Add(formGrid(widget.NewLabel("Run"), v.choice))
		}
		form.Add(v.details)
	}
	// The problems, the progress and Add stay in view below the card,
	// however long it is (as a server's Settings keep Save).
	bar := container.NewVBox(widget.NewSeparator(), v.problems, v.progress, container.NewHBox(v.add, widget.NewButton("Cancel", w.openCatalog)))
	v.obj = container.NewBorder(nil, bar, nil, nil, pageScroll(container.NewVBox(top, formGrid(rows...), widget.NewSeparator(), form)))
	if v.choice != nil {
		v.choice.SetSelected(v.choices[0].label)
	} else if len(v.choices) == 1 {
		v.choose(v.choices[0])
	}
	title := c.Title
	if title == "" {
		title = short
	}
	w.open(&page{title: "Add " + title, obj: v.obj})
	w.entry = v
	w.focus(v.name)
}

// choose shows what adding option o runs and the fields of its inputs.
func (v *entryView) choose(o option) {
	v.chosen = o
	v.fields = map[string]*inputField{}
	v.unlocked = nil
	var rows []fyne.CanvasObject
	line := func(label string, l *widget.Label) { rows = append(rows, widget.NewLabel(label), l) }
	mono := func(text string) *widget.Label {
		l := widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		l.Selectable = true
		l.Wrapping = fyne.TextWrapBreak
		return l
	}
	wrap := func(text string) *widget.Label {
		l := selectableLabel(text)
		l.Wrapping = fyne.TextWrapWord
		return l
	}
	rows = append(rows, widget.NewLabel("Name *"), v.name)
	var inputs []registry.InputCard
	var extra []fyne.CanvasObject
	if p := o.pkg; p != nil {
		line("Runs", mono(commandLine(p.Argv[0], p.Argv[1:])))
		line("", hintLabel("An argument vector, started without a shell; <NAME> is a value you give below."))
		line("Pinned", wrap(p.Pin))
		needs := fmt.Sprintf("%s (%s): not found in the PATH servers get; install it from %s", p.Runtime, p.Argv[0], p.RuntimeURL)
		if p.RuntimeFound {
			needs = fmt.Sprintf("%s (%s): found, %s", p.Runtime, p.Argv[0], p.RuntimePath)
		}
		nl := wrap(needs)
		if !p.RuntimeFound {
			nl.Importance = widget.WarningImportance
		}
		line("Needs", nl)
		line("Transport", wrap(p.Transport))
		inputs = append(append(inputs, p.Inputs...), p.Env...)
		if p.RegistryType == "npm" {
			v.unlocked = widget.NewCheck("Run with npx (unlocked): no install; npx resolves the package's own dependencies at each start", nil)
			extra = append(extra, hintLabel("Add installs the package locked into Switchboard's folder (install scripts off, every package's integrity recorded in servers.lock) and runs it with node, never through npx."), v.unlocked)
		}
	} else if r := o.remote; r != nil {
		line("Connects to", mono(r.URL))
		line("Transport", wrap(r.Type))
		inputs = append(append(inputs, r.Variables...), r.Headers...)
	}
	hasSecret := false
	for _, in := range inputs {
		if in.Value != "" || v.fields[in.Name] != nil {
			continue // fixed by the publisher, or shown already
		}
		f := v.field(in)
		v.fields[in.Name] = f
		label := in.Name
		if in.Required {
			label += " *"
		}
		cell := container.NewVBox()
		switch {
		case f.choice != nil:
			cell.Add(f.choice)
		case f.check != nil:
			cell.Add(f.check)
		case in.Format == "filepath":
			cell.Add(container.NewBorder(nil, nil, nil, container.NewHBox(
				widget.NewButtonWithIcon("Folder…", theme.FolderOpenIcon(), func() { v.pick(f.entry, true) }),
				widget.NewButtonWithIcon("File…", theme.FileIcon(), func() { v.pick(f.entry, false) })), f.entry))
			cell.Add(hintLabel("This path becomes the server's sandbox grant: the files it may use."))
		default:
			cell.Add(f.entry)
		}
		help := in.Description
		if in.Secret {
			hasSecret = true
			help = strings.TrimSpace(help + " Secret: it goes to the OS keyring only, never into the config file.")
		}
		if in.Default != "" {
			help = strings.TrimSpace(help + " Default: " + in.Default + ".")
		}
		if help != "" {
			cell.Add(hintLabel(help))
		}
		rows = append(rows, widget.NewLabel(label), cell)
	}
	objs := []fyne.CanvasObject{formGrid(rows...)}
	objs = append(objs, extra...)
	if hasSecret {
		objs = append(objs, hintLabel("Secrets go to the OS keyring; the config file only refers to them."))
	}
	objs = append(objs, hintLabel("* required"))
	v.details.Objects = objs
	v.details.Refresh()
}

// field makes the widget of one input.
func (v *entryView) field(in registry.InputCard) *inputField {
	f := &inputField{in: in}
	switch {
	case len(in.Choices) > 0:
		f.choice = widget.NewSelect(in.Choices, nil)
		if in.Default != "" {
			f.choice.SetSelected(in.Default)
		}
	case in.Format == "boolean":
		f.check = widget.NewCheck("", nil)
		f.check.SetChecked(in.Default == "true")
	case in.Secret:
		f.entry = widget.NewPasswordEntry()
	default:
		f.entry = widget.NewEntry()
		f.entry.SetPlaceHolder(in.Default)
	}
	return f
}

// pick opens a folder or file dialog into e.
func (v *entryView) pick(e *widget.Entry, folder bool) { v.w.pickPath(e, folder) }

// pickPath opens a folder or file dialog into e (the registry's form and
// a bundle's).
func (w *Window) pickPath(e *widget.Entry, folder bool) {
	if w.win == nil {
		return
	}
	if folder {
		dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				e.SetText(u.Path())
			}
		}, w.win)
		return
	}
	dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
		if err == nil && r != nil {
			e.SetText(r.URI().Path())
			r.Close()
		}
	}, w.win)
}

// installBound bounds registry.add: a locked npm install can take
// minutes on a slow network.
const installBound = 10 * time.Minute

// submit adds the entry through the host (registry.add). The values of
// secret inputs travel only in this request, over the host's socket.
func (v *entryView) submit() {
	setText(v.problems, "")
	p := hostapi.RegistryAddParams{Name: v.card.Name, Version: v.card.Version, Registry: v.card.Registry,
		Local: strings.TrimSpace(v.name.Text), Values: map[string]string{}, Package: v.chosen.pkgN, Remote: v.chosen.remoteN}
	for key, f := range v.fields {
		if val, ok := f.value(); ok {
			p.Values[key] = val
		}
	}
	p.Unlocked = v.unlocked != nil && v.unlocked.Checked
	if pk := v.chosen.pkg; pk != nil && pk.RegistryType == "npm" && !p.Unlocked {
		setText(v.progress, fmt.Sprintf("Installing %s@%s with npm, locked and with install scripts off… this can take a minute; the window stays usable.", pk.Identifier, pk.Version))
	} else {
		setText(v.progress, "Adding "+p.Local+"…")
	}
	v.add.Disable()
	w := v.w
	var res hostapi.RegistryAddResult
	w.callWithin(installBound, func(ctx context.Context) (err error) {
		res, err = w.live.RegistryAdd(ctx, p)
		return err
	}, func(err error) {
		setText(v.progress, "")
		v.add.Enable()
		if w.entry != v {
			// The page was left meanwhile: say the outcome on the status line.
			if err != nil {
				w.setStatus(p.Local+" was not added: "+err.Error(), true)
			} else {
				w.setStatus("Added "+res.Local+".", false)
			}
			return
		}
		if err != nil {
			v.showError(err)
			w.setStatus("Not added: see the problems above the Add button.", true)
			return
		}
		msg := "Added " + res.Local + "."
		if res.Locked != nil {
			msg = fmt.Sprintf("Added %s: %s@%s installed locked (%d packages), run with node.", res.Local, res.Locked.Package, res.Locked.Version, res.Locked.Packages)
		}
		if v.chosen.remote != nil {
			msg += " If it asks for a sign-in, Sign in is its first button."
		}
		w.showAdded(res.Local, msg, res.Warnings, res.Notes, res.LockError, res.FirstStart)
	})
}

// showAdded goes to the server just added (from a registry or a
// bundle) and says in the status line what was added, its warnings and
// notes, and its first start.
func (w *Window) showAdded(local, msg string, warnings, notes []string, lockError string, fs *hostapi.FirstStart) {
	w.leave()
	w.servers.want = local
	w.showPlace(placeServers)
	w.servers.update(w.snap)
	for _, s := range append(slices.Clone(warnings), notes...) {
		msg += "\n" + s
	}
	if lockError != "" {
		msg += "\nIts lock could not be written: " + lockError
	}
	bad := len(warnings) > 0
	if fs != nil {
		msg += "\n" + firstStartLine(fs)
		bad = bad || fs.Error != ""
	}
	w.setStatus(msg, bad)
}

// showError puts every problem of a refused add beside the form, at once.
func (v *entryView) showError(err error) {
	he, ok := hostError(err)
	if !ok || len(he.Problems) == 0 {
		setText(v.problems, err.Error())
		return
	}
	var lines []string
	for _, p := range he.Problems {
		msg := p.Message
		if p.Fact != "" {
			msg = p.Fact // without the command line's remedy: the fields are the remedy
		}
		lines = append(lines, msg)
	}
	if len(lines) == 1 {
		setText(v.problems, lines[0])
		return
	}
	setText(v.problems, fmt.Sprintf("%d problems:\n• %s", len(lines), strings.Join(lines, "\n• ")))
}

// firstStartLine says a first start's outcome: its sandbox, its tools
// and their annotations counted, or why it failed.
func firstStartLine(fs *hostapi.FirstStart) string {
	if fs.Error != "" {
		return fmt.Sprintf("Its first start (sandbox: %s) failed: %s. It stays added: its Logs tab shows what it wrote; widen its sandbox in Settings if it needs more.", fs.Sandbox, fs.Error)
	}
	hints := map[string]int{}
	for _, t := range fs.Tools {
		for _, h := range t.Hints {
			hints[h]++
		}
	}
	var said []string
	for _, h := range []string{"read-only", "destructive", "open world"} {
		if hints[h] > 0 {
			said = append(said, fmt.Sprintf("%d %s", hints[h], h))
		}
	}
	counted := ""
	if len(said) > 0 {
		counted = " (" + strings.Join(said, ", ") + ")"
	}
	return fmt.Sprintf("First start (sandbox: %s): %s%s, pinned: a later change is held for review. Its Tools tab lists them.", fs.Sandbox, english.Plural(len(fs.Tools), "tool"), counted)
}
