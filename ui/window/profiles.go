package window

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The Profiles place (issue 15 §1): the config's profiles, named
// selections of servers and tools that an AI app's entry asks for
// (--profile NAME), each with its servers, tool rules, tool mode and
// problems in plain words; New profile… and Edit… open the editor, a
// page over the place (name, a checklist of servers, the patterns of the
// tools to show and to hide, the tool mode). Every change goes through
// the host's profiles.* methods, like the command line's 'switchboard
// profiles'. The AI apps place picks a profile per app (aiapps_change.go).

const placeProfiles = "profiles"

// profilesPlace is the sidebar's entry (one row of frame.go's places).
func profilesPlace() *place {
	return &place{id: placeProfiles, label: "Profiles", icon: theme.VisibilityIcon, open: (*Window).openProfiles}
}

// profilesView is the Profiles page.
type profilesView struct {
	w        *Window
	head     *widget.Label // loading, or why the list cannot be shown
	box      *fyne.Container
	newB     *widget.Button
	cards    map[string]*profileCard
	obj      fyne.CanvasObject
	seq      int
	editor   *profileEditor // open over the place, for the tests
	confirm  *dialog.ConfirmDialog
	profiles []hostapi.ProfileInfo // the last list shown
}

// profileCard is one profile's block.
type profileCard struct {
	obj          fyne.CanvasObject
	edit, remove *widget.Button
	problems     *widget.Label
}

// profilesIntro says what a profile is, for someone who has not met one.
const profilesIntro = "A profile chooses which servers and tools an AI app sees. Give an app a profile on the AI apps page " +
	"(Change…), and it sees only what the profile lets through: fewer tools make a smaller, cheaper and more accurate tool list for the model. " +
	"A change here reaches the connected apps at once; no server restarts."

func (w *Window) openProfiles() {
	v := &profilesView{w: w, cards: map[string]*profileCard{}}
	intro := widget.NewLabel(profilesIntro)
	intro.Wrapping = fyne.TextWrapWord
	v.head = hintLabel("Reading the profiles…")
	v.newB = widget.NewButtonWithIcon("New profile…", theme.ContentAddIcon(), func() { v.openEditor(nil) })
	v.newB.Importance = widget.HighImportance
	v.box = container.NewVBox()
	v.obj = pageScroll(container.NewVBox(intro, container.NewHBox(v.newB), v.head, v.box))
	w.open(&page{title: "Profiles", obj: v.obj, reload: v.load, close: func() {
		if w.profilesV == v {
			w.profilesV = nil
		}
	}})
	w.profilesV = v
	v.load()
}

// load asks the host for the profiles and shows them.
func (v *profilesView) load() {
	v.seq++
	seq := v.seq
	var list []hostapi.ProfileInfo
	v.w.call(func(ctx context.Context) (err error) {
		list, err = v.w.live.Profiles(ctx)
		return err
	}, func(err error) {
		if v.w.profilesV != v || seq != v.seq {
			return
		}
		if err != nil {
			setText(v.head, "The profiles cannot be read: "+err.Error())
			v.head.Importance = widget.DangerImportance
			v.head.Refresh()
			return
		}
		v.show(list)
	})
}

// show shows a list of profiles.
func (v *profilesView) show(list []hostapi.ProfileInfo) {
	v.profiles = list
	v.head.Importance = widget.LowImportance
	if len(list) == 0 {
		setText(v.head, "No profile yet. Every app sees every server's tools until you make one.")
	} else {
		setText(v.head, "")
	}
	v.cards = map[string]*profileCard{}
	var objs []fyne.CanvasObject
	for _, p := range list {
		c := v.card(p)
		v.cards[p.Name] = c
		objs = append(objs, c.obj, widget.NewSeparator())
	}
	v.box.Objects = objs
	v.box.Refresh()
}

// card builds one profile's block.
func (v *profilesView) card(p hostapi.ProfileInfo) *profileCard {
	c := &profileCard{}
	c.edit = widget.NewButtonWithIcon("Edit…", theme.DocumentCreateIcon(), func() { v.openEditor(&p) })
	c.remove = widget.NewButtonWithIcon("Remove…", theme.DeleteIcon(), func() { v.askRemove(p.Name) })
	t := &table{}
	c.problems = errorLabel()
	c.problems.Importance = widget.WarningImportance
	setText(c.problems, profileProblemsText(p))
	c.obj = container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(c.edit, c.remove), bold(p.Name)),
		t.detail(widget.NewLabel("Servers"), wrapped(profileServersText(p))),
		t.detail(widget.NewLabel("Tools"), wrapped(profileToolsText(p.ProfileEntry))),
		t.detail(widget.NewLabel("Tool list"), wrapped(toolModeText(p.ToolMode))),
		c.problems)
	return c
}

func wrapped(text string) *widget.Label {
	l := selectableLabel(text)
	l.Wrapping = fyne.TextWrapWord
	return l
}

// profileServersText says which servers a profile takes in.
func profileServersText(p hostapi.ProfileInfo) string {
	switch {
	case p.Servers == nil:
		return "Every server, also those added later"
	case len(p.Servers) == 0:
		return "None: the app sees no tools"
	}
	out := make([]string, len(p.Servers))
	for i, s := range p.Servers {
		out[i] = s
		if slices.Contains(p.Missing, s) {
			out[i] += " (not in Switchboard)"
		}
	}
	return strings.Join(out, ", ")
}

// profileToolsText says which tools of those servers a profile shows.
func profileToolsText(p hostapi.ProfileEntry) string {
	var parts []string
	if len(p.Allow) > 0 {
		parts = append(parts, "Only the tools named like "+strings.Join(p.Allow, ", "))
	}
	if len(p.Deny) > 0 {
		parts = append(parts, "Hidden: the tools named like "+strings.Join(p.Deny, ", "))
	}
	if len(parts) == 0 {
		return "Every tool of these servers"
	}
	return strings.Join(parts, ". ")
}

// toolModeText says what a tool mode shows the app.
func toolModeText(mode string) string {
	if mode == config.ToolModeSearch {
		return "Search: the app sees two tools, find_tools and call_tool, and asks for the others when it needs them"
	}
	return "Every tool, listed in full"
}

// profileProblemsText words a profile's problems for someone who does
// not read config files.
func profileProblemsText(p hostapi.ProfileInfo) string {
	var lines []string
	for _, s := range p.Missing {
		lines = append(lines, fmt.Sprintf("%q is not one of Switchboard's servers: this profile uses its other servers, and %q joins once it is added. Add the server, or take it out of the profile (Edit…).", s, s))
	}
	for _, pr := range p.Problems {
		if pr.Warning {
			continue // the missing servers, said above
		}
		lines = append(lines, "This profile cannot be used as it is, so the apps that ask for it see no tools: "+pr.Message)
	}
	return strings.Join(lines, "\n")
}

// askRemove confirms and removes a profile.
func (v *profilesView) askRemove(name string) {
	w := v.w
	v.confirm = dialog.NewConfirm("Remove profile "+name,
		fmt.Sprintf("Remove the profile %q? The apps whose entry asks for it see no tools until you choose another profile for them on the AI apps page.", name),
		func(ok bool) {
			if !ok {
				return
			}
			w.call(func(ctx context.Context) error { return w.live.RemoveProfile(ctx, name) }, func(err error) {
				if err != nil {
					w.setStatus(fmt.Sprintf("Profile %s was not removed: %v", name, err), true)
					return
				}
				w.setStatus("Removed profile "+name+".", false)
				if w.profilesV == v {
					v.load()
				}
			})
		}, w.win)
	w.escapable(v.confirm, nil)
}

// profileEditor is the page that adds or edits a profile.
type profileEditor struct {
	v        *profilesView
	old      string // the profile's name before the edit; "" for a new one
	name     *widget.Entry
	all      *widget.Check
	servers  *widget.CheckGroup
	allow    *widget.Entry
	deny     *widget.Entry
	mode     *widget.RadioGroup
	err      *widget.Label
	save     *widget.Button
	options  []string
	obj      fyne.CanvasObject
	modeOpts []string
}

const (
	modeAllLabel    = "Every tool, listed in full"
	modeSearchLabel = "Search: find_tools and call_tool (for apps with many tools)"
)

// openEditor opens the editor of p (nil: a new profile) over the place.
func (v *profilesView) openEditor(p *hostapi.ProfileInfo) {
	w := v.w
	e := &profileEditor{v: v}
	var entry hostapi.ProfileEntry
	if p != nil {
		e.old, entry = p.Name, p.ProfileEntry
	}
	e.name = widget.NewEntry()
	e.name.SetPlaceHolder("coding")
	e.name.SetText(e.old)
	for _, s := range w.snap.Servers {
		e.options = append(e.options, s.Name)
	}
	for _, s := range entry.Servers {
		if !slices.Contains(e.options, s) {
			e.options = append(e.options, s)
		}
	}
	e.servers = widget.NewCheckGroup(e.options, nil)
	e.servers.Horizontal = len(e.options) <= 6
	e.all = widget.NewCheck("Every server, also those added later", func(on bool) {
		if on {
			e.servers.Disable()
		} else {
			e.servers.Enable()
		}
	})
	if entry.Servers == nil {
		e.all.SetChecked(true)
	} else {
		e.servers.Selected = slices.Clone(entry.Servers)
	}
	e.allow = widget.NewEntry()
	e.allow.SetPlaceHolder("Every tool (or names like git__*, files__read_*)")
	e.allow.SetText(strings.Join(entry.Allow, ", "))
	e.deny = widget.NewEntry()
	e.deny.SetPlaceHolder("None (or names like files__write_*)")
	e.deny.SetText(strings.Join(entry.Deny, ", "))
	e.modeOpts = []string{modeAllLabel, modeSearchLabel}
	e.mode = widget.NewRadioGroup(e.modeOpts, nil)
	e.mode.Required = true
	if entry.ToolMode == config.ToolModeSearch {
		e.mode.SetSelected(modeSearchLabel)
	} else {
		e.mode.SetSelected(modeAllLabel)
	}
	e.err = errorLabel()
	e.save = widget.NewButtonWithIcon("Save", theme.DocumentSaveIcon(), e.submit)
	e.save.Importance = widget.HighImportance
	cancel := widget.NewButtonWithIcon("Cancel", theme.CancelIcon(), w.home)
	hint := hintLabel("Tool names are as the apps see them: the server's name, two underscores, the tool's name (files__write_file). " +
		"* stands for any text. A tool is shown if it matches a name to show (or there are none) and no name to hide.")
	hint.Wrapping = fyne.TextWrapWord
	var servers fyne.CanvasObject = e.servers
	if !e.servers.Horizontal {
		s := container.NewVScroll(e.servers)
		s.SetMinSize(fyne.NewSize(0, 150))
		servers = s
	}
	e.obj = pageScroll(container.NewVBox(
		formGrid(
			widget.NewLabel("Name"), e.name,
			widget.NewLabel("Servers"), container.NewVBox(e.all, servers),
			widget.NewLabel("Tools to show"), e.allow,
			widget.NewLabel("Tools to hide"), e.deny,
			widget.NewLabel("Tool list"), e.mode,
		),
		hint, e.err, container.NewHBox(cancel, e.save)))
	title := "New profile"
	if e.old != "" {
		title = "Edit profile " + e.old
	}
	w.open(&page{title: title, obj: e.obj, close: func() {
		if v.editor == e {
			v.editor = nil
		}
	}})
	v.editor = e
}

// patterns splits an entry's comma-separated patterns.
func patterns(text string) []string {
	var out []string
	for _, p := range strings.Split(text, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// entry is the profile the editor holds, or what is wrong with it.
func (e *profileEditor) entry() (string, hostapi.ProfileEntry, string) {
	name := strings.TrimSpace(e.name.Text)
	var p hostapi.ProfileEntry
	if !config.ValidServerName(name) {
		if name == "" {
			return "", p, "Give the profile a name, like coding."
		}
		return "", p, fmt.Sprintf("%q cannot name a profile: use 1 to 31 lower-case letters, digits and '-' (for example %q).", name, config.NormalizeName(name))
	}
	if !e.all.Checked {
		p.Servers = []string{}
		for _, n := range e.options { // in the list's order
			if slices.Contains(e.servers.Selected, n) {
				p.Servers = append(p.Servers, n)
			}
		}
		if len(p.Servers) == 0 {
			return "", p, "Check at least one server, or every server."
		}
	}
	p.Allow, p.Deny = patterns(e.allow.Text), patterns(e.deny.Text)
	for _, pat := range append(slices.Clone(p.Allow), p.Deny...) {
		if err := (bridge.Filter{Tools: []string{pat}}).Check(); err != nil {
			return "", p, fmt.Sprintf("%q is not a tool name pattern: use * for any text, and close every [.", pat)
		}
	}
	if e.mode.Selected == modeSearchLabel {
		p.ToolMode = config.ToolModeSearch
	}
	return name, p, ""
}

// submit saves the profile through the host (renaming it first if its
// name changed).
func (e *profileEditor) submit() {
	name, p, problem := e.entry()
	if problem != "" {
		setText(e.err, problem)
		return
	}
	setText(e.err, "")
	w, old := e.v.w, e.old
	e.save.Disable()
	w.call(func(ctx context.Context) error {
		if old != "" && old != name {
			if err := w.live.RenameProfile(ctx, old, name); err != nil {
				return err
			}
		}
		return w.live.PutProfile(ctx, name, p)
	}, func(err error) {
		e.save.Enable()
		if err != nil {
			setText(e.err, "Not saved: "+err.Error())
			return
		}
		if w.page != nil && e.v.editor == e {
			w.home()
		}
		w.setStatus("Saved profile "+name+".", false)
	})
}
