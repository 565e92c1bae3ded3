package window

// A remote server's Settings tab (issue 17, docs/remote.md): the server
// form (form.go) for the options a remote entry shares with a local one
// (its name, the engine's limits, the tool filter, the review of changed
// tools), with the remote fields (remote.go: address, transport, OAuth
// sign-in) where a local server has its command, arguments, environment,
// working directory, stderr and sandbox, and its headers (remoteheaders.go).
// It is checked and saved as the server form is (config's check, each
// problem under its field; servers.put, then servers.rename for a new
// name). A key of a process on the entry (a problem the config names) has
// a button that removes it.

import (
	"encoding/json"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// The Save bar's words for the remote fields ("Fix the address to save").
func init() {
	fieldWords["url"] = "address"
	fieldWords["type"] = "transport"
	fieldWords["oauth"] = "sign-in"
	fieldWords["headers"] = "headers"
}

// localFields are the server form's fields of a process, which a remote
// entry has not: their problems (a remote entry that has such a key) go to
// the bar, with the key named.
var localFields = []string{"command", "args", "env", "cwd", "stderr", "inheritEnv", "allowBatchFiles", "sandbox"}

// processKeys are the keys of a process that a remote entry may carry (a
// problem each: app/config/remote.go's localOnlyKeys): the button beside
// their problems removes those the config names.
var processKeys = []string{"args", "env", "cwd", "stderr", "inheritEnv", "allowBatchFiles", "sandbox", "sandboxRequired"}

// isRemoteEntry reports whether an entry's Settings are the remote ones: a
// remote entry with no command (one with both keeps the command form,
// where emptying the command leaves the url).
func isRemoteEntry(s *config.Server) bool {
	return s.IsRemote() && s.Command == ""
}

// remoteSettings returns the Settings form of the server shown, a remote
// one, whose entry the host returned; the Overview learns from the entry
// whether it signs in with OAuth (Sign out), which the tab may have just
// changed: it opens again after a save.
func (d *serverDetail) remoteSettings(s *config.Server, base map[string]json.RawMessage) *serverForm {
	var f *serverForm
	f, d.remote = newRemoteSettings(d.w, d.name, s, base)
	has := s.OAuth != nil
	d.ov.oauth = &has
	if d.st.URL != "" { // as showRemote: the buttons of a server the host reports as remote
		d.ov.remoteButtons(d.st, d.w.snap.Connected)
	}
	return f
}

// newRemoteSettings returns the server form of a remote entry the host
// has (s parsed from base), laid out with the remote fields in place of
// the fields of a process, and those fields.
//
// The remote fields write their keys into the form's base (the entry as
// the host has it, which the form's entry starts from) at each change:
// the form's check, its Save and the host see them as they see the keys
// the form does not show (policy, unknown keys), which stay as they are.
// The headers' rows (remoteheaders.go) write "headers" into the entry the
// form makes, with the secrets typed to store first.
func newRemoteSettings(w *Window, name string, s *config.Server, base map[string]json.RawMessage) (*serverForm, *remoteFields) {
	if base == nil {
		base = map[string]json.RawMessage{}
	}
	f := newServerForm(w, name, false, s, base, nil)
	for _, k := range localFields {
		delete(f.errs, k)
	}
	var r *remoteFields
	r = newRemoteFields(f.errs, s, f.base, func(key string) {
		r.apply(f.base)
		f.changed(key)
	})
	f.headers = newHeaderTable(s, f.base, f.serverName, func() map[string]bool { return f.knownSecrets })
	f.headers.changed = func() { f.changed("headers") }
	headersField := f.headers.field(w, f.errs)
	if _, ok := base["headers"]; ok && s.Headers == nil {
		// "headers" the config cannot read (its problem shows under the
		// field): rows added here would replace it, and lose what it
		// holds.
		f.headers.addPlain.Disable()
		f.headers.addSecret.Disable()
	}
	onName := f.name.OnChanged
	f.name.OnChanged = func(n string) {
		onName(n)
		f.headers.suggest()
	}
	dropLocal := widget.NewButtonWithIcon("", theme.DeleteIcon(), nil)
	dropBox := container.NewHBox(dropLocal) // not stretched across the bar
	dropBox.Hide()
	var local []string // the keys of a process the config names, after the last check
	dropLocal.OnTapped = func() {
		f.dropped = append(f.dropped, local...)
		f.changed("")
		f.validate(false)
	}
	f.afterCheck = func(c formCheck) {
		local = local[:0]
		for _, p := range c.ps {
			if k := fieldOf(p.Key); slices.Contains(processKeys, k) && !slices.Contains(local, k) {
				local = append(local, k)
			}
		}
		if len(local) == 0 {
			dropBox.Hide()
			return
		}
		dropLocal.SetText("Remove local-only settings (" + strings.Join(local, ", ") + ")")
		dropBox.Show()
	}

	lines := func(objs ...fyne.CanvasObject) fyne.CanvasObject { return container.NewVBox(objs...) }
	rows := []fyne.CanvasObject{
		widget.NewLabel("Name"), lines(f.name, f.renameHint, reserveLine(f.errs["name"])),
	}
	rows = append(rows, r.rows...)
	rows = append(rows,
		widget.NewLabel("Headers"), headersField,
	)
	rows = append(rows, widget.NewLabel("Start"), f.startRow)
	rows = append(rows,
		widget.NewLabel("Tools in AI apps"), lines(f.tools.obj, reserveLine(f.errs["tools"]), f.trustAuto, reserveLine(f.errs["trust"])))
	var adv []fyne.CanvasObject
	for _, o := range limits {
		if o.Key == idleStopKey { // in the Start row (formstart.go)
			continue
		}
		adv = append(adv, widget.NewLabel(o.Label), lines(f.limitEntries[o.Key], hintLabel(o.Help), reserveLine(f.errs[o.Key])))
	}
	f.advanced = widget.NewAccordion(widget.NewAccordionItem("Advanced: the engine's limits", formGrid(adv...)))
	bar := container.NewBorder(widget.NewSeparator(), nil, nil, container.NewCenter(container.NewHBox(f.cancel, f.save)),
		container.NewVBox(f.errs[""], dropBox, f.reason))
	f.obj = container.NewBorder(nil, bar, nil, nil, pageScroll(container.NewVBox(formGrid(rows...), f.advanced)))
	f.validate(false) // again: the problems of the remote fields under them
	return f, r
}
