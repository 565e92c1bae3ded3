package window

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// toolFilter is the form's tool filter: the entry's tools.allow and
// tools.deny as globs, and the server's live tools (servers.tools) as
// checks, ticked when the AI apps see the tool. Ticking a tool changes
// the globs by its exact name; the checks follow the globs as they are
// typed.
type toolFilter struct {
	f           *serverForm
	allow, deny *widget.Entry
	checks      *fyne.Container
	boxes       map[string]*widget.Check
	names       []string // the live tools, in the server's order
	note        *widget.Label
	syncing     bool // the checks are being set from the globs
	obj         fyne.CanvasObject
}

func newToolFilter(f *serverForm, t *config.Tools) *toolFilter {
	tf := &toolFilter{f: f, allow: widget.NewEntry(), deny: widget.NewEntry(), checks: container.NewGridWithColumns(3),
		boxes: map[string]*widget.Check{}}
	tf.allow.SetPlaceHolder("every tool; or globs such as read_* list_*")
	tf.deny.SetPlaceHolder("none; or globs such as delete_* *_write")
	if t != nil {
		tf.allow.SetText(strings.Join(t.Allow, " "))
		tf.deny.SetText(strings.Join(t.Deny, " "))
	}
	onChanged := func(string) {
		tf.sync()
		f.changed("tools")
	}
	tf.allow.OnChanged, tf.deny.OnChanged = onChanged, onChanged
	tf.note = hintLabel("")
	if f.create {
		setText(tf.note, "The server's tools show here to tick once it runs; the globs apply from its start.")
	} else {
		setText(tf.note, "Loading the server's tools…")
	}
	tf.obj = container.NewVBox(
		formGrid(widget.NewLabel("Only"), tf.allow, widget.NewLabel("Never"), tf.deny),
		tf.checks, tf.note)
	return tf
}

// splitGlobs splits a field of globs on spaces and commas.
func splitGlobs(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// lists returns the globs of tools.allow and tools.deny.
func (tf *toolFilter) lists() (allow, deny []string) {
	return splitGlobs(tf.allow.Text), splitGlobs(tf.deny.Text)
}

func (tf *toolFilter) filter() *config.Tools {
	allow, deny := tf.lists()
	return &config.Tools{Allow: allow, Deny: deny}
}

// load fetches the server's live tools (servers.tools): those of the
// entry being edited, when it runs.
func (tf *toolFilter) load() {
	if tf.f.create {
		return
	}
	w, name := tf.f.w, tf.f.orig
	var names []string
	w.call(func(ctx context.Context) error {
		tools, err := w.live.Tools(ctx, name)
		for _, t := range tools {
			names = append(names, t.Name)
		}
		return err
	}, func(err error) {
		if err != nil {
			setText(tf.note, "The server's tools show here to tick while it runs; the globs apply meanwhile.")
			return
		}
		tf.setTools(names)
	})
}

// setTools shows a check for each tool.
func (tf *toolFilter) setTools(names []string) {
	tf.names = names
	tf.boxes = map[string]*widget.Check{}
	tf.checks.Objects = nil
	for _, n := range names {
		c := widget.NewCheck(n, nil)
		c.OnChanged = func(on bool) { tf.tick(n, on) }
		tf.boxes[n] = c
		tf.checks.Objects = append(tf.checks.Objects, c)
	}
	tf.checks.Refresh()
	tf.sync()
	if len(names) == 0 {
		setText(tf.note, "The server lists no tools.")
	} else {
		setText(tf.note, "Ticked: the tools the AI apps see. Ticking changes the globs by the tool's exact name.")
	}
}

// sync ticks the checks of the tools the globs let through.
func (tf *toolFilter) sync() {
	t := tf.filter()
	tf.syncing = true
	for n, c := range tf.boxes {
		c.SetChecked(t.Allows(n))
	}
	tf.syncing = false
}

// tick lets a tool through (on) or holds it back, by its exact name: out
// of the deny list and into the allow list (when there is one), or the
// reverse. A tool held back by a deny glob is not let through by a tick:
// the glob is the user's to change, and the note says which it is.
func (tf *toolFilter) tick(name string, on bool) {
	if tf.syncing {
		return
	}
	allow, deny := tf.lists()
	if on {
		deny = slices.DeleteFunc(deny, func(g string) bool { return g == name })
		if len(allow) > 0 && !(&config.Tools{Allow: allow}).Allows(name) {
			allow = append(allow, name)
		}
	} else {
		// Out of the allow list by name, unless it is the only one there
		// (an empty list lets every tool through)...
		if i := slices.Index(allow, name); i >= 0 && len(allow) > 1 {
			allow = slices.Delete(allow, i, i+1)
		}
		// ... and into the deny list if it is still let through.
		if (&config.Tools{Allow: allow, Deny: deny}).Allows(name) {
			deny = append(deny, name)
		}
	}
	tf.allow.SetText(strings.Join(allow, " "))
	tf.deny.SetText(strings.Join(deny, " "))
	if on && !tf.filter().Allows(name) {
		for _, g := range deny {
			if ok, _ := path.Match(g, name); ok {
				setText(tf.note, fmt.Sprintf("%s stays hidden: the glob %q of Never matches it. Change that glob to let it through.", name, g))
				break
			}
		}
	}
	tf.sync()
}
