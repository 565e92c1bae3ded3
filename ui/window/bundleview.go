package window

// A bundle's page (.mcpb): its card, read by the host's bundles.inspect
// before anything of it is kept, and a form built from its user_config
// whose Install is bundles.install (app/install's AddBundle in the host:
// sensitive values into the keyring only, directory and file values the
// server's sandbox grants). It opens from the "Add a server" place's
// "Install a bundle (.mcpb)…" and from 'switchboard bundles open FILE'
// ("Open with Switchboard"). docs/bundles.md ("In the window and the
// host API").

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/bundle"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
)

// bundleView is a bundle's card and its install form.
type bundleView struct {
	w        *Window
	path     string
	card     install.BundleCard
	name     *widget.Entry
	fields   []*bundleField // in the file's order
	insist   *widget.Check  // an invalid signature: "Install anyway" (nil otherwise)
	problems *widget.Label
	progress *widget.Label
	install  *widget.Button
	obj      fyne.CanvasObject
}

// bundleField is one user_config option's widget: an entry (a password
// entry for a sensitive option), a check for a boolean, or rows of
// paths for a multiple directory or file option.
type bundleField struct {
	opt   install.BundleOption
	entry *widget.Entry
	check *widget.Check
	paths []*widget.Entry // a multiple directory or file option
	rows  *fyne.Container
}

// values are the field's values as typed (none: not given, its default
// applies).
func (f *bundleField) values() []string {
	switch {
	case f.check != nil:
		return []string{strconv.FormatBool(f.check.Checked)}
	case f.paths != nil:
		var out []string
		for _, e := range f.paths {
			if s := strings.TrimSpace(e.Text); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	if s := f.entry.Text; strings.TrimSpace(s) != "" {
		if f.opt.Sensitive {
			return []string{s} // a secret as typed
		}
		return []string{strings.TrimSpace(s)}
	}
	return nil
}

// OpenBundle shows the window at the page of the bundle file at path:
// 'switchboard bundles open FILE'. Before the host answers (the window
// just started, or the host is starting), the page opens once it does.
func (w *Window) OpenBundle(path string) {
	w.Show()
	if !w.snap.Connected {
		w.pendingBundle = path
		w.setStatus("Waiting for the Switchboard host to read "+path+"…", false)
		return
	}
	w.openBundle(path)
}

// chooseBundle opens a file dialog for a .mcpb (or .dxt) file, then its
// page.
func (w *Window) chooseBundle() {
	if w.win == nil {
		return
	}
	d := dialog.NewFileOpen(func(r fyne.URIReadCloser, err error) {
		if err != nil || r == nil {
			return
		}
		path := r.URI().Path()
		r.Close()
		w.openBundle(path)
	}, w.win)
	d.SetFilter(storage.NewExtensionFileFilter([]string{".mcpb", ".dxt"}))
	d.Show()
}

// openBundle asks the host for the bundle's card and shows its page.
func (w *Window) openBundle(path string) {
	w.setStatus("Reading "+path+"…", false)
	var raw json.RawMessage
	w.call(func(ctx context.Context) (err error) {
		raw, err = w.live.BundleInspect(ctx, path, "", nil)
		return err
	}, func(err error) {
		var c install.BundleCard
		if err == nil {
			err = json.Unmarshal(raw, &c)
		}
		if err != nil {
			w.setStatus("Cannot read the bundle "+path+": "+err.Error(), true)
			return
		}
		w.setStatus("", false)
		w.showBundle(path, c)
	})
}

// formKey is the option a problem's key names ("user_config.root" →
// "root"), "" for a problem that is not one option's.
func formKey(key string) string {
	k, _ := strings.CutPrefix(key, "user_config.")
	if k == key {
		return ""
	}
	k, _, _ = strings.Cut(k, ".")
	return k
}

// showBundle opens the page of a bundle's card and install form.
func (w *Window) showBundle(path string, c install.BundleCard) {
	v := &bundleView{w: w, path: path, card: c}
	title := c.DisplayName
	if title == "" {
		title = c.Name
	}
	if title == "" {
		title = path
	}

	var rows []fyne.CanvasObject
	line := func(label, text string) *widget.Label {
		l := selectableLabel(text)
		l.Wrapping = fyne.TextWrapWord
		rows = append(rows, widget.NewLabel(label), l)
		return l
	}
	mono := func(label, text string) {
		l := widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		l.Selectable = true
		l.Wrapping = fyne.TextWrapBreak
		rows = append(rows, widget.NewLabel(label), l)
	}
	if c.Name != "" {
		line("Bundle", fmt.Sprintf("%s %s (manifest %s, %s)", c.Name, c.Version, c.Manifest, c.Type))
		author := c.Author
		if c.AuthorEmail != "" {
			author += " <" + c.AuthorEmail + ">"
		}
		if c.AuthorURL != "" {
			author += " " + c.AuthorURL
		}
		line("Author", author+" (as the manifest says: only a signature vouches for it)")
	}
	line("File", c.File)
	line("SHA-256", c.SHA256)
	sig := line("Signature", signatureText(c.Signature))
	switch c.Signature.State {
	case bundle.Invalid:
		sig.Importance = widget.DangerImportance
	case bundle.Unsigned:
		sig.Importance = widget.WarningImportance
	}
	if c.Name != "" {
		pl := "any"
		if len(c.Platforms) > 0 {
			pl = strings.Join(c.Platforms, ", ")
		}
		line("Platforms", pl)
		if len(c.Runtimes) > 0 {
			var rts []string
			for _, k := range slices.Sorted(maps.Keys(c.Runtimes)) {
				rts = append(rts, k+" "+c.Runtimes[k])
			}
			line("Runtimes", strings.Join(rts, ", "))
		}
	}
	if c.Command != "" {
		mono("Runs", commandLine(c.Command, c.Args))
		var env []string
		for _, k := range slices.Sorted(maps.Keys(c.Env)) {
			env = append(env, k+"="+c.Env[k])
		}
		if len(env) > 0 {
			mono("Environment", strings.Join(env, "\n"))
		}
		rows = append(rows, widget.NewLabel(""), hintLabel("An argument vector, started without a shell, from the bundle's own folder (${__dirname}); <KEY> is a value you give below; a ${keyring:…} reference is a secret the keyring gives it at start."))
	}
	if len(c.Tools) > 0 {
		var ts []string
		for _, t := range c.Tools {
			ts = append(ts, toolLine(t))
		}
		line("Tools", strings.Join(ts, "\n"))
	}
	if len(c.Prompts) > 0 {
		var ps []string
		for _, p := range c.Prompts {
			ps = append(ps, toolLine(p))
		}
		line("Prompts", strings.Join(ps, "\n"))
	}

	desc := widget.NewLabel(c.Description)
	desc.Wrapping = fyne.TextWrapWord
	top := container.NewVBox(desc)
	if c.Description == "" {
		desc.Hide()
	}
	// The card's own problems (not the values', which the form shows as
	// it is filled): refusals of the file, the manifest, this machine.
	cardProblems := c.Refusals()
	for _, wn := range c.Warnings {
		l := hintLabel("Warning: " + wn)
		l.Importance = widget.WarningImportance
		top.Add(l)
	}

	v.name = widget.NewEntry()
	v.name.SetText(c.Local)
	v.problems = errorLabel()
	v.progress = hintLabel("")
	v.install = widget.NewButtonWithIcon("Install", theme.DownloadIcon(), v.submit)
	v.install.Importance = widget.HighImportance
	form := container.NewVBox()
	// A refusal no value fixes (the file, the manifest, this machine)
	// keeps Install off; an invalid signature is the user's to overrule.
	blocked := slices.ContainsFunc(cardProblems, func(p string) bool { return !strings.HasPrefix(p, "signature: ") })
	if c.Name != "" {
		form.Add(v.form())
	}
	if c.Name == "" || blocked {
		v.install.Disable()
	} else if c.Signature.State == bundle.Invalid {
		v.insist = widget.NewCheck("Install anyway: I know why its signature is invalid", func(on bool) {
			if on {
				v.install.Enable()
			} else {
				v.install.Disable()
			}
		})
		v.install.Disable()
		form.Add(v.insist)
	}
	v.showProblems(cardProblems)
	bar := container.NewVBox(widget.NewSeparator(), v.problems, v.progress, container.NewHBox(v.install, widget.NewButton("Cancel", w.openCatalog)))
	v.obj = container.NewBorder(nil, bar, nil, nil, pageScroll(container.NewVBox(top, formGrid(rows...), widget.NewSeparator(), form)))
	w.open(&page{title: "Install " + title, obj: v.obj})
	w.bundle = v
	w.focus(v.name)
}

// hasOption says the card has the option key.
func hasOption(c *install.BundleCard, key string) bool {
	return slices.ContainsFunc(c.Options, func(o install.BundleOption) bool { return o.Key == key })
}

// signatureText is a signature's verdict as the card says it.
func signatureText(s bundle.Signature) string {
	switch s.State {
	case bundle.Signed:
		t := "Signed by " + s.CommonName
		if s.Organization != "" {
			t += " (" + s.Organization + ")"
		}
		return t + ", certificate SHA-256 " + s.Fingerprint
	case bundle.Invalid:
		return "INVALID: " + s.Why + ". Do not install it unless you know why."
	}
	return "Unsigned: nothing vouches for who made it."
}

// toolLine is a tool or a prompt as the card lists it.
func toolLine(t install.BundleTool) string {
	if t.Description == "" {
		return t.Name
	}
	return t.Name + ": " + t.Description
}

// number is an option's bound or default as typed.
func number(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// form is the install form: the server's name, then a field per option
// in the manifest's order.
func (v *bundleView) form() fyne.CanvasObject {
	rows := []fyne.CanvasObject{widget.NewLabel("Name *"), v.name}
	hasSecret := false
	for _, o := range v.card.Options {
		f := &bundleField{opt: o}
		v.fields = append(v.fields, f)
		label := o.Title
		if label == "" {
			label = o.Key
		}
		if o.Required {
			label += " *"
		}
		cell := container.NewVBox()
		help := o.Description
		switch {
		case o.Type == "boolean":
			f.check = widget.NewCheck("", nil)
			if d, ok := o.Default.(bool); ok {
				f.check.SetChecked(d)
			}
			cell.Add(f.check)
		case o.Sensitive:
			f.entry = widget.NewPasswordEntry()
			cell.Add(f.entry)
			hasSecret = true
			help = strings.TrimSpace(help + " Secret: it goes to the OS keyring only, never into a file.")
		case (o.Type == "directory" || o.Type == "file") && o.Multiple:
			f.paths = []*widget.Entry{}
			f.rows = container.NewVBox()
			def, _ := o.Default.([]any)
			for _, d := range def {
				if s, ok := d.(string); ok {
					v.addPath(f, s)
				}
			}
			if len(f.paths) == 0 {
				v.addPath(f, "")
			}
			what := "folder"
			if o.Type == "file" {
				what = "file"
			}
			cell.Add(f.rows)
			cell.Add(container.NewHBox(widget.NewButtonWithIcon("Add another "+what, theme.ContentAddIcon(), func() {
				v.w.focus(v.addPath(f, ""))
			})))
			help = strings.TrimSpace(help + " Each path becomes the server's sandbox grant: the files it may use.")
		case o.Type == "directory" || o.Type == "file":
			f.entry = widget.NewEntry()
			if d, ok := o.Default.(string); ok {
				f.entry.SetPlaceHolder(d)
			}
			cell.Add(container.NewBorder(nil, nil, nil, v.w.pathButtons(f.entry, o.Type), f.entry))
			help = strings.TrimSpace(help + " This path becomes the server's sandbox grant: the files it may use.")
		case o.Type == "number":
			f.entry = widget.NewEntry()
			if d, ok := o.Default.(float64); ok {
				f.entry.SetPlaceHolder(number(d))
			}
			f.entry.Validator = func(s string) error {
				if strings.TrimSpace(s) == "" {
					return nil
				}
				return numberProblem(o, s)
			}
			cell.Add(f.entry)
			if r := rangeText(o); r != "" {
				help = strings.TrimSpace(help + " " + r + ".")
			}
		default:
			f.entry = widget.NewEntry()
			if d, ok := o.Default.(string); ok {
				f.entry.SetPlaceHolder(d)
			}
			cell.Add(f.entry)
		}
		if d := defaultText(o.Default); d != "" && o.Type != "boolean" {
			help = strings.TrimSpace(help + " Default: " + d + ".")
		}
		if help != "" {
			cell.Add(hintLabel(help))
		}
		rows = append(rows, widget.NewLabel(label), cell)
	}
	objs := []fyne.CanvasObject{formGrid(rows...)}
	if hasSecret {
		objs = append(objs, hintLabel("Secrets go to the OS keyring; the config file only refers to them."))
	}
	objs = append(objs, hintLabel("* required"))
	return container.NewVBox(objs...)
}

// pathButtons are a path entry's pickers: Folder… for a directory,
// File… for a file (as the registry's form has them for a filepath).
func (w *Window) pathButtons(e *widget.Entry, kind string) fyne.CanvasObject {
	if kind == "file" {
		return widget.NewButtonWithIcon("File…", theme.FileIcon(), func() { w.pickPath(e, false) })
	}
	return widget.NewButtonWithIcon("Folder…", theme.FolderOpenIcon(), func() { w.pickPath(e, true) })
}

// addPath adds a row for one more path of a multiple option.
func (v *bundleView) addPath(f *bundleField, text string) *widget.Entry {
	e := widget.NewEntry()
	e.SetText(text)
	f.paths = append(f.paths, e)
	right := container.NewHBox(v.w.pathButtons(e, f.opt.Type))
	row := container.NewBorder(nil, nil, nil, right, e)
	if len(f.paths) > 1 {
		right.Add(widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
			if i := slices.Index(f.paths, e); i >= 0 {
				f.paths = slices.Delete(f.paths, i, i+1)
				f.rows.Remove(row)
			}
		}))
	}
	f.rows.Add(row)
	return e
}

// rangeText says a number option's range ("" for none).
func rangeText(o install.BundleOption) string {
	switch {
	case o.Min != nil && o.Max != nil:
		return fmt.Sprintf("From %s to %s", number(*o.Min), number(*o.Max))
	case o.Min != nil:
		return "At least " + number(*o.Min)
	case o.Max != nil:
		return "At most " + number(*o.Max)
	}
	return ""
}

// numberProblem is what is wrong with s as the option's number, or nil.
func numberProblem(o install.BundleOption, s string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("%q is not a number", s)
	}
	if o.Min != nil && f < *o.Min || o.Max != nil && f > *o.Max {
		return fmt.Errorf("%s is out of range: %s", s, strings.ToLower(rangeText(o)[:1])+rangeText(o)[1:])
	}
	return nil
}

// defaultText is an option's default as the form says it.
func defaultText(d any) string {
	switch x := d.(type) {
	case string:
		return x
	case float64:
		return number(x)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		var ss []string
		for _, e := range x {
			ss = append(ss, fmt.Sprint(e))
		}
		return strings.Join(ss, ", ")
	}
	return ""
}

// showProblems shows every problem at once beside the form ("" lines
// dropped).
func (v *bundleView) showProblems(lines []string) {
	switch len(lines) {
	case 0:
		setText(v.problems, "")
	case 1:
		setText(v.problems, lines[0])
	default:
		setText(v.problems, fmt.Sprintf("%d problems:\n• %s", len(lines), strings.Join(lines, "\n• ")))
	}
}

// problemText is one of the host's problems in the form's words: the
// option's title for its key, without the command line's --set remedy.
func (v *bundleView) problemText(p hostapi.Problem) string {
	k := formKey(p.Key)
	if k == "" || !hasOption(&v.card, k) || p.Fact == "" {
		return p.Message
	}
	msg := p.Fact // the host's words without the key and the command line's remedy
	for _, o := range v.card.Options {
		if o.Key == k && o.Title != "" {
			return o.Title + ": " + msg
		}
	}
	return k + ": " + msg
}

// submit installs the bundle through the host (bundles.install). The
// values of sensitive options travel only in this request, over the
// host's socket, to the keyring.
func (v *bundleView) submit() {
	p := hostapi.BundleInstallParams{Path: v.path, Name: strings.TrimSpace(v.name.Text), Values: map[string][]string{},
		Insist: v.insist != nil && v.insist.Checked}
	var local []string
	for _, f := range v.fields {
		vals := f.values()
		if len(vals) == 0 {
			continue
		}
		if f.opt.Type == "number" {
			if err := numberProblem(f.opt, vals[0]); err != nil {
				title := f.opt.Title
				if title == "" {
					title = f.opt.Key
				}
				local = append(local, title+": "+err.Error())
			}
		}
		p.Values[f.opt.Key] = vals
	}
	if len(local) > 0 {
		v.showProblems(local)
		v.w.setStatus("Not installed: see the problems above the Install button.", true)
		return
	}
	v.showProblems(nil)
	setText(v.progress, "Installing "+v.card.Name+" "+v.card.Version+"… its first start can take a moment; the window stays usable.")
	v.install.Disable()
	w := v.w
	var res hostapi.BundleInstallResult
	w.callWithin(installBound, func(ctx context.Context) (err error) {
		res, err = w.live.BundleInstall(ctx, p)
		return err
	}, func(err error) {
		setText(v.progress, "")
		v.install.Enable()
		if w.bundle != v {
			if err != nil {
				w.setStatus(v.card.Name+" was not installed: "+err.Error(), true)
			} else {
				w.setStatus("Installed "+res.Local+".", false)
			}
			return
		}
		if err != nil {
			he, ok := hostError(err)
			if !ok || len(he.Problems) == 0 {
				v.showProblems([]string{err.Error()})
			} else {
				var lines []string
				for _, pr := range he.Problems {
					lines = append(lines, v.problemText(pr))
				}
				v.showProblems(lines)
			}
			w.setStatus("Not installed: see the problems above the Install button.", true)
			return
		}
		msg := fmt.Sprintf("Installed %s: the bundle %s %s (%s), sandbox: %s.", res.Local, res.Bundle, res.Version, res.Signature, res.Sandbox)
		if res.Unconfined != "" {
			msg += " " + res.Unconfined
		}
		w.showAdded(res.Local, msg, res.Warnings, res.Notes, res.LockError, res.FirstStart)
	})
}
