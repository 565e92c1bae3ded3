package window

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// changeDialog shows the change to an app's file (app/aiapps' diff, its
// literal secrets hidden) and writes exactly that change when confirmed:
// the content it was computed from is the one app/aiapps.WriteFile
// checks, so a file that changed meanwhile is not written.
type changeDialog struct {
	v       *appsView
	r       *appRow
	before  []byte // nil: the file does not exist
	after   []byte
	secrets []string
	servers *widget.CheckGroup // Connect's choice of servers; nil otherwise
	profile *widget.Select     // Connect's choice of profile; nil otherwise
	// diff shows the change a line a paragraph: added lines green,
	// removed ones red (see diffSegments); diffText is its text, which
	// Copy puts on the clipboard (rich text cannot be selected).
	diff     *widget.RichText
	diffText string
	copyB    *widget.Button
	ok       *widget.Button
	cancel   *widget.Button
	d        *dialog.CustomDialog
	done     func(backup string) // after the write, on the UI goroutine
	dropped  func()              // after Cancel
}

// newChange returns the dialog for a change of r's file from before; top
// goes above the diff. Its content is set by set.
func (v *appsView) newChange(r *appRow, title, intro, okText string, before []byte, secrets []string, top fyne.CanvasObject) *changeDialog {
	c := &changeDialog{v: v, r: r, before: before, secrets: secrets}
	text := widget.NewLabel(intro)
	text.Wrapping = fyne.TextWrapWord
	c.diff = widget.NewRichText()
	scroll := container.NewScroll(c.diff)
	scroll.SetMinSize(fyne.NewSize(760, 260))
	head := container.NewVBox(text)
	if top != nil {
		head.Add(top)
	}
	c.copyB = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), func() {
		v.w.app.Clipboard().SetContent(c.diffText)
	})
	head.Add(container.NewBorder(nil, nil, nil, c.copyB, bold("The change to "+r.st.loc.Path)))
	c.ok = widget.NewButtonWithIcon(okText, theme.ConfirmIcon(), c.write)
	c.ok.Importance = widget.HighImportance
	c.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), c.drop)
	c.d = dialog.NewCustomWithoutButtons(title, container.NewBorder(head, nil, nil, nil, scroll), v.w.win)
	c.d.SetButtons([]fyne.CanvasObject{c.cancel, c.ok})
	return c
}

// set shows the change to after; why, when there is none, says so.
func (c *changeDialog) set(after []byte, changed bool, why string) {
	c.after = after
	if !changed {
		c.setDiff(why, false)
		c.ok.Disable()
		return
	}
	old, path := c.r.st.loc.Path, c.r.st.loc.Path
	if c.before == nil {
		old = "/dev/null"
	}
	c.setDiff(aiapps.Redact(aiapps.Diff(old, path, c.before, after), c.secrets), true)
	c.ok.Enable()
}

// setDiff shows text: a unified diff, coloured, or a sentence.
func (c *changeDialog) setDiff(text string, isDiff bool) {
	c.diffText = text
	if isDiff {
		c.diff.Segments = diffSegments(text)
	} else {
		c.diff.Segments = []widget.RichTextSegment{&widget.TextSegment{Text: text}}
	}
	c.diff.Refresh()
}

// diffSegments returns a unified diff as rich text, one paragraph a line
// in a fixed-width font: the file names as text, the hunk heads in the
// theme's primary colour, added lines in its success colour (green),
// removed ones in its error colour (red), the context as text.
func diffSegments(diff string) []widget.RichTextSegment {
	var segs []widget.RichTextSegment
	lines := strings.Split(strings.TrimSuffix(diff, "\n"), "\n")
	for i, l := range lines {
		st := widget.RichTextStyle{TextStyle: fyne.TextStyle{Monospace: true}}
		switch {
		case i < 2 && (strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ")):
			// The file names: as text (the themes have no bold fixed-width font).
		case strings.HasPrefix(l, "@@"):
			st.ColorName = theme.ColorNamePrimary
		case strings.HasPrefix(l, "+"):
			st.ColorName = theme.ColorNameSuccess
		case strings.HasPrefix(l, "-"):
			st.ColorName = theme.ColorNameError
		}
		segs = append(segs, &widget.TextSegment{Text: l, Style: st})
	}
	return segs
}

func (c *changeDialog) show() {
	c.v.change = c
	c.v.w.escapable(c.d, c.drop)
	c.d.Resize(fyne.NewSize(880, 600))
}

func (c *changeDialog) close() {
	c.d.Hide()
	if c.v.change == c {
		c.v.change = nil
	}
}

// drop closes the dialog; the file is not touched.
func (c *changeDialog) drop() {
	c.close()
	if c.dropped != nil {
		c.dropped()
		return
	}
	c.v.w.setStatus(fmt.Sprintf("%s was not changed.", c.r.st.loc.Path), false)
}

// write writes the change shown, off the UI goroutine.
func (c *changeDialog) write() {
	c.ok.Disable()
	c.cancel.Disable()
	if c.servers != nil {
		c.servers.Disable()
	}
	if c.profile != nil {
		c.profile.Disable()
	}
	v, r, w := c.v, c.r, c.v.w
	f, path, before, after, now := v.files, r.st.loc.Path, c.before, c.after, w.opts.Now()
	go func() {
		backup, err := f.write(path, before, after, now)
		w.opts.Do(func() {
			if w.ctx.Err() != nil {
				return
			}
			c.close()
			if err != nil {
				v.fail(r, fileProblem("write", path, err))
				v.load()
				return
			}
			c.done(backup)
			v.load()
		})
	}()
}

// backedUp says where the old file went.
func backedUp(backup string) string {
	if backup == "" {
		return ""
	}
	return fmt.Sprintf(" The old file is backed up as %s.", backup)
}

// connectListWidth is the most the Connect dialog's servers take in a row.
const connectListWidth = 760

// askConnect shows the change that connects the app (with the servers
// chosen: every enabled one by default) and writes it when confirmed.
func (v *appsView) askConnect(r *appRow) {
	v.clearOutcome(r)
	app := r.st.app
	before, doc, problem := readApp(v.files, app, r.st.loc.Path)
	if problem != "" {
		v.fail(r, problem)
		return
	}
	var enabled []string
	for _, s := range v.w.snap.Servers {
		if !s.Disabled {
			enabled = append(enabled, s.Name)
		}
	}
	// Every enabled server is checked, unless the app reaches some only:
	// then those (a disabled one, or one Switchboard does not have, too).
	options, chosen := enabled, enabled
	old, _, connected := doc.Connected()
	if len(old.Servers) > 0 {
		options, chosen = slices.Clone(enabled), old.Servers
		for _, n := range old.Servers {
			if !slices.Contains(options, n) {
				options = append(options, n)
			}
		}
	}
	var top *fyne.Container
	var checks *widget.CheckGroup
	if len(options) > 0 {
		checks = widget.NewCheckGroup(options, nil)
		checks.Selected = slices.Clone(chosen)
		var list fyne.CanvasObject = checks
		// In a row while it fits the dialog: a row's cells are each as
		// wide as the longest name, so that one long name put the servers
		// after it off the window's edge.
		if len(options) <= 6 && checks.MinSize().Width*float32(len(options)) <= connectListWidth {
			checks.Horizontal = true
		} else if len(options) > 6 {
			s := container.NewVScroll(checks)
			s.SetMinSize(fyne.NewSize(0, 150))
			list = s
		}
		top = container.NewVBox(widget.NewLabel(fmt.Sprintf("The servers %s reaches (all checked: also the servers added or enabled later):", app.Name)), list)
	} else {
		l := widget.NewLabel(fmt.Sprintf("Switchboard has no enabled server yet: %s will reach every server once it is added.", app.Name))
		l.Wrapping = fyne.TextWrapWord
		top = container.NewVBox(l)
	}
	profile := v.profilePicker(old.Profile) // aiapps_profile.go
	top.Add(profile.obj)
	verb, title, okText := "Add the %q entry to", "Connect "+app.Name, "Connect"
	if connected { // the row's button reads Change…
		verb, title, okText = "Update the %q entry in", "Change how "+app.Name+" connects", "Change"
	}
	intro := fmt.Sprintf(verb+" %s's config file: it runs %s bridge, the way %s reaches Switchboard.", aiapps.EntryName, app.Name, v.exe, app.Name)
	if strings.Contains(v.exe, string(filepath.Separator)+"go-build") {
		intro += " Note: this Switchboard is a temporary build (from 'go run'?): the app cannot start it once it is gone."
	}
	c := v.newChange(r, title, intro, okText, before, doc.SecretValues(), top)
	c.servers = checks
	var bridge aiapps.Bridge // the entry shown
	compute := func() {
		var servers []string
		if checks != nil {
			for _, n := range options { // in the list's order
				if slices.Contains(checks.Selected, n) {
					servers = append(servers, n)
				}
			}
			if len(servers) == 0 {
				c.set(nil, false, "Check at least one server.")
				return
			}
			if len(servers) == len(options) {
				servers = nil // every server, also later ones
			}
		}
		d, err := app.Parse(before) // a fresh copy: SetBridge changes it
		if err != nil {
			c.set(nil, false, err.Error())
			return
		}
		bridge = aiapps.Bridge{Command: v.exe, Servers: servers, Profile: profile.name()}
		changed := d.SetBridge(bridge)
		c.set(d.Bytes(), changed, fmt.Sprintf("No change: %s already has exactly this entry.", app.Name))
	}
	if checks != nil {
		checks.OnChanged = func([]string) { compute() }
	}
	profile.onChanged = compute
	c.profile = profile.sel
	compute()
	c.done = func(backup string) {
		msg := fmt.Sprintf("Connected: the %q entry in %s runs %s.%s %s", aiapps.EntryName, r.st.loc.Path,
			strings.Join(append([]string{v.exe}, bridge.Args()...), " "), backedUp(backup), app.Restart)
		if !r.st.loc.Installed {
			msg += fmt.Sprintf("\n%s does not look installed (none of its folders exists); the entry is ready for when it is.", app.Name)
		}
		v.notes[app.ID] = msg
		v.w.setStatus("Connected "+app.Name+".", false)
	}
	c.show()
}

// askDisconnect shows the change that removes the entry and writes it
// when confirmed.
func (v *appsView) askDisconnect(r *appRow) {
	v.clearOutcome(r)
	app := r.st.app
	before, doc, problem := readApp(v.files, app, r.st.loc.Path)
	if problem != "" {
		v.fail(r, problem)
		return
	}
	secrets := doc.SecretValues()
	changed := doc.Disconnect()
	intro := fmt.Sprintf("Remove the %q entry from %s's config file; everything else in it stays. %s then reaches no Switchboard server.", aiapps.EntryName, app.Name, app.Name)
	c := v.newChange(r, "Disconnect "+app.Name, intro, "Disconnect", before, secrets, nil)
	c.set(doc.Bytes(), changed, fmt.Sprintf("No change: %s has no %q entry.", r.st.loc.Path, aiapps.EntryName))
	c.done = func(backup string) {
		v.notes[app.ID] = fmt.Sprintf("Disconnected: removed the %q entry from %s.%s %s", aiapps.EntryName, r.st.loc.Path, backedUp(backup), app.Restart)
		v.w.setStatus("Disconnected "+app.Name+".", false)
	}
	c.show()
}

// importDialog previews the app's own servers that Switchboard can take,
// with their literal secrets offered to move into the keyring.
type importDialog struct {
	ok, cancel *widget.Button
	secrets    []*secretOffer
	d          *dialog.CustomDialog
}

// askImport shows the app's servers, imports the chosen ones through the
// host (importServers, as "Paste configuration" does) and then offers to
// put the entry in their place in the app's file.
func (v *appsView) askImport(r *appRow) {
	v.clearOutcome(r)
	app := r.st.app
	_, doc, problem := readApp(v.files, app, r.st.loc.Path)
	if problem != "" {
		v.fail(r, problem)
		return
	}
	// The plan `clients import` makes: what Switchboard cannot run as the
	// app does stays in the app.
	plan := aiapps.PlanImport(app, v.files.env, importSources(app, r.st.loc.Path, doc))
	skipped := plan.Skipped()
	servers := map[string]*config.Server{}
	var cands []config.SecretCandidate
	var order []string // the app's file order
	for _, i := range plan.Importable() {
		e := plan.Entries[i]
		if e.SameAs >= 0 || servers[e.Name] != nil {
			continue // the same name twice in the file: imported once
		}
		servers[e.Name] = e.Server
		cands = append(cands, e.Secrets...)
		order = append(order, e.Name)
	}
	if len(order) == 0 {
		v.fail(r, fmt.Sprintf("%s has no servers of its own that Switchboard can run in %s: nothing to import.", app.Name, r.st.loc.Path))
		return
	}
	existing := map[string]bool{}
	for _, s := range v.w.snap.Servers {
		existing[s.Name] = true
	}
	box := container.NewVBox(bold("Servers to add to Switchboard"))
	for _, orig := range order {
		s := servers[orig]
		name := config.NormalizeName(orig)
		line := name + ": " + commandLine(s.Command, s.Args)
		if s.IsRemote() {
			line = name + ": " + s.URL + " (remote)"
		}
		if name != orig {
			line += fmt.Sprintf("  (%q is not a valid name: imported as %s)", orig, name)
		}
		if existing[name] {
			line += "  (Switchboard has a server of this name: it counts as imported if it runs the same command)"
		}
		l := selectableLabel(line)
		l.Wrapping = fyne.TextWrapWord
		box.Add(l)
	}
	if len(skipped) > 0 {
		box.Add(bold("Staying in " + app.Name))
		for _, s := range skipped {
			l := hintLabel(s)
			l.Importance = widget.WarningImportance
			box.Add(l)
		}
	}
	d := &importDialog{}
	if len(cands) > 0 {
		box.Add(bold("Secrets written in plain text"))
		for _, c := range cands {
			o := &secretOffer{c: c}
			o.check = widget.NewCheck(fmt.Sprintf("Move %s.%s into the keyring as %q", c.Server, c.Key(), c.Secret), nil)
			o.check.SetChecked(true)
			d.secrets = append(d.secrets, o)
			box.Add(o.check)
		}
	}
	after := hintLabel(fmt.Sprintf("Then Switchboard shows how the %q entry would take their place in %s, so that %s reaches them through Switchboard instead of running them itself.", aiapps.EntryName, r.st.loc.Path, app.Name))
	box.Add(after)
	scroll := container.NewVScroll(box)
	scroll.SetMinSize(fyne.NewSize(760, 300))
	d.ok = widget.NewButtonWithIcon("Import", theme.DownloadIcon(), func() { v.doImport(r, d, servers, order) })
	d.ok.Importance = widget.HighImportance
	d.cancel = widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), func() {
		d.d.Hide()
		v.imp = nil
		v.w.setStatus("Nothing was imported.", false)
	})
	d.d = dialog.NewCustomWithoutButtons("Import from "+app.Name, scroll, v.w.win)
	d.d.SetButtons([]fyne.CanvasObject{d.cancel, d.ok})
	v.imp = d
	v.w.escapable(d.d, d.cancel.OnTapped)
	d.d.Resize(fyne.NewSize(880, 560))
}

// doImport takes the servers into Switchboard: a server it already has
// with the same command counts as imported, one of the same name that runs
// something else is left; the others go through importServers.
func (v *appsView) doImport(r *appRow, d *importDialog, servers map[string]*config.Server, order []string) {
	d.ok.Disable()
	d.cancel.Disable()
	var move, kept []config.SecretCandidate
	for _, o := range d.secrets {
		if o.check.Checked {
			move = append(move, o.c)
		} else {
			kept = append(kept, o.c)
		}
	}
	w, app := v.w, r.st.app
	go func() {
		ctx, cancel := context.WithTimeout(w.ctx, callTimeout)
		defer cancel()
		var lines, taken, added []string
		fresh := map[string]*config.Server{}
		for _, orig := range order {
			name := config.NormalizeName(orig)
			var res hostapi.EntryResult
			var err error
			if res.Entry, err = w.live.GetServer(ctx, name); err != nil {
				fresh[orig] = servers[orig]
				continue
			}
			if sameCommand(res.Entry, servers[orig]) {
				lines = append(lines, fmt.Sprintf("%s is already in Switchboard as %s", orig, name))
				taken, added = append(taken, orig), append(added, name)
				continue
			}
			lines = append(lines, fmt.Sprintf("not imported: %s: Switchboard has another server named %s; rename one of them and import again", orig, name))
		}
		move = slices.DeleteFunc(move, func(c config.SecretCandidate) bool { return fresh[c.Server] == nil })
		res := w.importServers(ctx, fresh, move, kept)
		lines = append(lines, res.lines...)
		done := res.added
		for _, orig := range order {
			if n, ok := done[orig]; ok {
				taken, added = append(taken, orig), append(added, n)
			}
		}
		w.opts.Do(func() {
			if w.ctx.Err() != nil {
				return
			}
			d.d.Hide()
			if v.imp == d {
				v.imp = nil
			}
			// The refusals show under the row with the host's problems
			// and their remedies (v.refused), the rest as its note.
			v.refused[app.ID] = res.refused
			report := strings.Join(lines, "\n")
			if len(taken) == 0 {
				if report == "" {
					report = "Nothing was imported."
				}
				v.fail(r, report)
				return
			}
			v.notes[app.ID] = report
			v.updateRow(app.ID)
			w.setStatus(fmt.Sprintf("Imported %d of %s from %s.", len(taken), english.Plural(len(order), "server"), app.Name), len(taken) < len(order))
			v.askReplace(r, taken, added)
		})
	}()
}

// askReplace shows how the entry takes the place of the imported servers
// in the app's file, and writes it when confirmed.
func (v *appsView) askReplace(r *appRow, taken, added []string) {
	app := r.st.app
	report := v.notes[app.ID]
	note := func(s string) { v.notes[app.ID] = strings.TrimSpace(report + "\n" + s) }
	before, doc, problem := readApp(v.files, app, r.st.loc.Path)
	if problem != "" {
		v.fail(r, problem)
		return
	}
	if v.exe == "" {
		v.fail(r, v.exeErr)
		return
	}
	bridge := aiapps.Bridge{Command: v.exe}
	if old, _, ok := doc.Connected(); ok && len(old.Servers) > 0 {
		// The app reaches some servers only: the imported ones join them.
		bridge.Servers = slices.Clone(old.Servers)
		for _, n := range added {
			if !slices.Contains(bridge.Servers, n) {
				bridge.Servers = append(bridge.Servers, n)
			}
		}
	}
	secrets := doc.SecretValues()
	doc.Replace(taken, bridge)
	intro := fmt.Sprintf("Switchboard now runs %s. Put the %q entry in their place in %s's config file, so that %s reaches them through Switchboard instead of running them a second time?",
		strings.Join(taken, ", "), aiapps.EntryName, app.Name, app.Name)
	c := v.newChange(r, "Replace them in "+app.Name, intro, "Replace", before, secrets, nil)
	c.set(doc.Bytes(), true, "")
	c.done = func(backup string) {
		msg := fmt.Sprintf("Replaced %s in %s with the %q entry.%s", strings.Join(taken, ", "), r.st.loc.Path, aiapps.EntryName, backedUp(backup))
		if len(secrets) > 0 && backup != "" {
			msg += fmt.Sprintf(" The backup still holds the old entries with their secrets in plain text: delete it once %s works.", app.Name)
		}
		note(msg + " " + app.Restart)
		v.w.setStatus("Replaced them in "+app.Name+".", false)
	}
	c.dropped = func() {
		note(fmt.Sprintf("%s was not changed: Connect… adds the entry later (remove the imported servers from %s yourself, or it runs them twice).", r.st.loc.Path, app.Name))
		v.updateRow(app.ID)
		v.w.setStatus(r.st.loc.Path+" was not changed.", false)
	}
	c.show()
}

// sameCommand reports whether a stored entry runs the same command and
// arguments as an imported server (as `switchboard clients import` counts
// a server Switchboard already has).
func sameCommand(stored json.RawMessage, s *config.Server) bool {
	var a struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(stored, &a) != nil {
		return false
	}
	return a.Command == s.Command && slices.Equal(a.Args, s.Args)
}
