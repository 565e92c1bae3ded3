package window

import (
	"encoding/json"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/catalog"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
)

// The Sandbox section's choices, as a person reads them, by preset.
var sandboxChoices = []struct{ label, preset string }{
	{"Off", config.SandboxOff},
	{"Strict", config.SandboxStrict},
	{"Files", config.SandboxFiles},
	{"Network", config.SandboxNetwork},
}

// customChoice is offered only for an entry whose "sandbox" is an object
// written by hand without a preset.
const customChoice = "Custom"

// The network choices.
const (
	netPresetDefault = "As the choice above says"
	netNone          = "No network"
	netOutbound      = "Internet: any address"
	netAllow         = "Only these addresses"
)

// sandboxSection is the server form's Sandbox section (issue 16,
// docs/sandbox.md): a choice of Off, Strict, Files and Network with a
// plain sentence for the one chosen; for Files, the folders the server
// may read and those it may read and change; the network. It edits the
// entry's "sandbox" as configedit writes it, keeping keys it does not
// show; a value it cannot read is shown as such and saved as it was.
type sandboxSection struct {
	f        *serverForm
	cur      configedit.Sandbox
	had      bool  // the entry had a "sandbox" key
	readErr  error // the entry's "sandbox" cannot be read: kept as written
	choice   *widget.RadioGroup
	sentence *widget.Label
	read     *folderList
	write    *folderList
	folders  *fyne.Container
	// unix are the Unix sockets it may connect to ("unix"; no preset
	// grants one), shown whenever it is confined.
	unix    *folderList
	unixBox *fyne.Container
	// note says what "strict" leaves out on an entry whose arguments
	// name folders (config.Server.StrictNote); hidden otherwise.
	note   *widget.Label
	net    *widget.Select
	netRow *fyne.Container // "Network" and its choice
	allow  *widget.Entry
	// optional is "sandboxRequired": false: the server starts unconfined
	// where the sandbox cannot be enforced (an old kernel; macOS and
	// Windows until they enforce). Written only once the user ticks or
	// unticks it: an entry's value stays as written.
	optional        *widget.Check
	optionalTouched bool
	optionalRow     *fyne.Container
	obj             fyne.CanvasObject
}

func newSandboxSection(f *serverForm, raw json.RawMessage) *sandboxSection {
	s := &sandboxSection{f: f, had: raw != nil}
	s.cur, s.readErr = configedit.ReadSandbox(raw)
	if s.readErr != nil {
		l := hintLabel(s.readErr.Error() + " It is kept as written; fix it in the config file.")
		l.Importance = widget.WarningImportance
		s.obj = l
		return s
	}
	labels := make([]string, 0, len(sandboxChoices)+1)
	for _, c := range sandboxChoices {
		labels = append(labels, c.label)
	}
	if s.cur.Preset == "" && !s.cur.Off() {
		labels = append(labels, customChoice)
	}
	s.sentence = hintLabel("")
	s.read = newFolderList(f.w, "Add a folder it can read", s.cur.Read, func() { f.changed("sandbox") })
	s.write = newFolderList(f.w, "Add a folder it can change", s.cur.Write, func() { f.changed("sandbox") })
	s.folders = container.NewVBox(
		widget.NewLabel("Folders it can read"), s.read.obj,
		widget.NewLabel("Folders it can read and change"), s.write.obj)
	s.unix = &folderList{w: f.w, rows: container.NewVBox(), changed: func() { f.changed("sandbox") },
		placeholder: "/absolute/path/of/a/socket", typed: true}
	s.unix.build("Add a socket it can connect to", s.cur.Unix)
	s.unixBox = container.NewVBox(widget.NewLabel("Unix sockets it can connect to (none unless listed)"), s.unix.obj)
	s.note = hintLabel("")
	s.note.Importance = widget.WarningImportance
	s.allow = widget.NewEntry()
	s.allow.SetPlaceHolder("api.github.com:443, localhost:8080")
	s.allow.SetText(strings.Join(s.cur.NetAllow, ", "))
	s.net = widget.NewSelect([]string{netPresetDefault, netNone, netOutbound, netAllow}, nil)
	switch {
	case len(s.cur.NetAllow) > 0:
		s.net.SetSelected(netAllow)
	case s.cur.Net == "none":
		s.net.SetSelected(netNone)
	case s.cur.Net == "outbound":
		s.net.SetSelected(netOutbound)
	default:
		s.net.SetSelected(netPresetDefault)
	}
	s.choice = widget.NewRadioGroup(labels, nil)
	s.choice.Horizontal = true
	s.choice.Required = true
	s.choice.SetSelected(s.label())
	// The callbacks once the entry's value is shown: showing it is no
	// change of the user's.
	onChange := func(string) {
		s.update()
		f.changed("sandbox")
	}
	s.net.OnChanged, s.choice.OnChanged = onChange, onChange
	s.allow.OnChanged = func(string) { f.changed("sandbox") }
	s.netRow = container.NewBorder(nil, nil, widget.NewLabel("Network"), nil, s.net)
	s.optional = widget.NewCheck("Start it unconfined where the sandbox cannot be enforced", nil)
	s.optional.SetChecked(string(f.base["sandboxRequired"]) == "false")
	s.optional.OnChanged = func(bool) {
		s.optionalTouched = true
		f.changed("sandbox")
	}
	s.optionalRow = container.NewVBox(s.optional)
	if goos != "linux" {
		h := hintLabel("This system does not enforce a sandbox yet: unticked, the server does not start.")
		h.Importance = widget.WarningImportance
		s.optionalRow.Add(h)
	}
	s.obj = container.NewVBox(s.choice, s.sentence, s.note, s.folders, s.unixBox, s.netRow, s.allow, s.optionalRow)
	s.update()
	return s
}

// label is the choice of the entry's value.
func (s *sandboxSection) label() string {
	if s.cur.Off() {
		return "Off"
	}
	for _, c := range sandboxChoices {
		if c.preset == s.cur.Preset {
			return c.label
		}
	}
	return customChoice
}

// preset is the preset chosen ("" for Custom).
func (s *sandboxSection) preset() string {
	for _, c := range sandboxChoices {
		if c.label == s.choice.Selected {
			return c.preset
		}
	}
	return ""
}

// update shows the chosen preset's sentence and the parts it uses.
func (s *sandboxSection) update() {
	if s.choice == nil {
		return // SetSelected while the section is built
	}
	p := s.preset()
	if s.choice.Selected == customChoice {
		setText(s.sentence, "Written by hand in the config file: the folders and network below.")
	} else {
		setText(s.sentence, catalog.PresetSentence(p))
	}
	off := p == config.SandboxOff
	// The folders: for Files, and whenever some are listed (none is lost
	// by choosing another preset).
	if !off && (p == config.SandboxFiles || p == "" || len(s.read.values())+len(s.write.values()) > 0) {
		s.folders.Show()
	} else {
		s.folders.Hide()
	}
	s.updateNote()
	if off {
		s.netRow.Hide()
		s.allow.Hide()
		s.optionalRow.Hide()
		s.unixBox.Hide()
		return
	}
	s.unixBox.Show()
	s.netRow.Show()
	s.optionalRow.Show()
	if s.net.Selected == netAllow {
		s.allow.Show()
	} else {
		s.allow.Hide()
	}
}

// apply writes the section's value into the entry e: nothing when the
// entry had no sandbox and Off is chosen, the value as written when it
// could not be read.
func (s *sandboxSection) apply(e map[string]json.RawMessage) {
	if s.readErr != nil {
		return
	}
	if s.optionalTouched {
		if s.optional.Checked {
			e["sandboxRequired"] = json.RawMessage("false")
		} else {
			delete(e, "sandboxRequired") // required: the default
		}
	}
	p := s.preset()
	if p == config.SandboxOff {
		if s.had {
			e["sandbox"] = configedit.Sandbox{Preset: config.SandboxOff}.JSON()
		} else {
			delete(e, "sandbox")
		}
		return
	}
	v := s.cur // keeps the keys the section does not show
	v.Preset = p
	v.Read, v.Write = nil, nil
	if s.folders.Visible() {
		v.Read, v.Write = s.read.values(), s.write.values()
	}
	v.Unix = s.unix.values()
	v.Net, v.NetAllow = "", nil
	switch s.net.Selected {
	case netNone:
		v.Net = "none"
	case netOutbound:
		v.Net = "outbound"
	case netAllow:
		for _, ep := range strings.FieldsFunc(s.allow.Text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
			if !slices.Contains(v.NetAllow, ep) {
				v.NetAllow = append(v.NetAllow, ep)
			}
		}
	}
	e["sandbox"] = v.JSON()
}

// problem is what only the section sees: an address that is not
// host:port, a folder or socket that is not absolute. The form asks it at
// every change, so it also brings the strict note up to date with the
// arguments.
func (s *sandboxSection) problem() string {
	if s.readErr != nil {
		return ""
	}
	s.updateNote()
	if s.preset() == config.SandboxOff {
		return ""
	}
	if s.net.Selected == netAllow {
		eps := strings.FieldsFunc(s.allow.Text, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' })
		if len(eps) == 0 {
			return "give the addresses it may reach, as host:port (api.github.com:443), or choose another network"
		}
		for _, ep := range eps {
			if err := configedit.CheckEndpoint(ep); err != nil {
				return err.Error() + ": write each address as host:port (api.github.com:443)"
			}
		}
	}
	if s.folders.Visible() {
		for _, p := range append(s.read.values(), s.write.values()...) {
			if !isAbs(p) {
				return "the folder " + p + " is not an absolute path: choose it with Choose…"
			}
		}
	}
	for _, p := range s.unix.values() {
		if !isAbs(p) {
			return "the socket " + p + " is not an absolute path: give its full path (/run/user/1000/agent.sock)"
		}
	}
	return ""
}

// updateNote shows the strict note when Strict is chosen while the
// arguments name existing folders the lists do not give.
func (s *sandboxSection) updateNote() {
	if s.note == nil || s.choice == nil {
		return
	}
	p := s.preset()
	if p != config.SandboxStrict {
		setText(s.note, "")
		return
	}
	sv := config.Server{Args: s.f.args.values(), Sandbox: &config.Sandbox{Preset: p, Object: true}}
	if s.folders.Visible() {
		sv.Sandbox.Read, sv.Sandbox.Write = s.read.values(), s.write.values()
	}
	n := sv.StrictNote()
	if n != "" {
		n = strings.ToUpper(n[:1]) + n[1:] + "."
	}
	setText(s.note, n)
}

func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) || (len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/'))
}

// folderList is a list of folders, each an entry with Choose… and
// remove, and a button that adds one; with typed set (the sockets, which
// a file dialog cannot open), the paths are typed, without Choose….
type folderList struct {
	w           *Window
	entries     []*widget.Entry
	rows        *fyne.Container
	changed     func()
	obj         fyne.CanvasObject
	placeholder string
	typed       bool
}

func newFolderList(w *Window, addLabel string, paths []string, changed func()) *folderList {
	l := &folderList{w: w, rows: container.NewVBox(), changed: changed, placeholder: "/absolute/path/of/a/folder"}
	l.build(addLabel, paths)
	return l
}

// build adds the rows of paths and the button that adds one.
func (l *folderList) build(addLabel string, paths []string) {
	for _, p := range paths {
		l.add(p)
	}
	add := widget.NewButtonWithIcon(addLabel, theme.ContentAddIcon(), func() { l.w.focus(l.add("")) })
	l.obj = container.NewVBox(l.rows, container.NewHBox(add))
}

func (l *folderList) add(text string) *widget.Entry {
	e := widget.NewEntry()
	e.SetPlaceHolder(l.placeholder)
	e.SetText(text)
	e.OnChanged = func(string) { l.changed() }
	l.entries = append(l.entries, e)
	var row *fyne.Container
	choose := widget.NewButtonWithIcon("Choose…", theme.FolderOpenIcon(), func() {
		dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
			if err == nil && u != nil {
				e.SetText(u.Path())
			}
		}, l.w.win)
	})
	remove := widget.NewButtonWithIcon("", theme.DeleteIcon(), func() {
		if i := slices.Index(l.entries, e); i >= 0 {
			l.entries = slices.Delete(l.entries, i, i+1)
			l.rows.Remove(row)
			l.changed()
		}
	})
	buttons := container.NewHBox(choose, remove)
	if l.typed {
		buttons = container.NewHBox(remove)
	}
	row = container.NewBorder(nil, nil, nil, buttons, e)
	l.rows.Add(row)
	return e
}

// values are the folders typed or chosen, trimmed, once each.
func (l *folderList) values() []string {
	var out []string
	for _, e := range l.entries {
		if p := strings.TrimSpace(e.Text); p != "" && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}
