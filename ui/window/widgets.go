package window

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// selectableLabel returns a label whose text a person can select and copy
// (Ctrl+C): for errors, paths and logs.
func selectableLabel(text string) *widget.Label {
	l := widget.NewLabel(text)
	l.Selectable = true
	return l
}

// errorLabel returns a selectable, wrapping label in the danger colour,
// hidden while it has no text: an inline error next to a field.
func errorLabel() *widget.Label {
	l := selectableLabel("")
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.DangerImportance
	l.Hide()
	return l
}

// hintLabel returns a wrapping, selectable label for a field's hint.
func hintLabel(text string) *widget.Label {
	l := selectableLabel(text)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	if text == "" {
		l.Hide()
	}
	return l
}

// setText sets a label's text and shows it, or hides it when text is "".
func setText(l *widget.Label, text string) {
	if text == "" {
		if l.Visible() || l.Text != "" {
			l.Text = ""
			l.Hide()
		}
		return
	}
	l.SetText(text)
	l.Show()
}

// bold returns a bold label.
func bold(text string) *widget.Label {
	return widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
}

// pageScroll returns a vertical scroll of a page's content that keeps a
// margin on the right as wide as the scroll bar: Fyne draws the bar over
// the content, and it would cover the buttons and fields at the right
// edge.
func pageScroll(content fyne.CanvasObject) *container.Scroll {
	room := theme.Size(theme.SizeNameScrollBar)
	return container.NewVScroll(container.New(layout.NewCustomPaddedLayout(0, 0, 0, room), content))
}

// formGrid lays out labels and fields in two columns, as a form does.
func formGrid(objs ...fyne.CanvasObject) *fyne.Container {
	return container.New(layout.NewFormLayout(), objs...)
}

// table lines rows of cells up in columns as wide as their widest cell,
// like a table's, while each row stays a container of its own (so that a
// row can be added, removed or updated alone, and keeps its widgets and
// their keyboard focus).
type table struct {
	rows   []*fyne.Container
	widths []float32 // nil: compute again
}

// row returns a new row of the table.
func (t *table) row(cells ...fyne.CanvasObject) *fyne.Container {
	r := container.New(&rowLayout{t: t}, cells...)
	t.rows = append(t.rows, r)
	t.widths = nil
	return r
}

// detail returns a row of a label and its value below a row of the table:
// the label is a cell of the first column (which is as wide as the widest
// label), the value starts at the second column and spans the rest, and
// its width does not widen the columns. Its cells are aligned at the top,
// as a form's are.
func (t *table) detail(label, value fyne.CanvasObject) *fyne.Container {
	r := container.New(&rowLayout{t: t, span: true}, label, value)
	t.rows = append(t.rows, r)
	t.widths = nil
	return r
}

// invalidate makes the next layout measure the cells again (after their
// content changed).
func (t *table) invalidate() { t.widths = nil }

func (t *table) colWidths() []float32 {
	if t.widths != nil {
		return t.widths
	}
	var w []float32
	for _, r := range t.rows {
		cells := r.Objects
		if l, ok := r.Layout.(*rowLayout); ok && l.span {
			cells = cells[:len(cells)-1] // the spanning value is not measured
		}
		for i, o := range cells {
			if i >= len(w) {
				w = append(w, 0)
			}
			if o.Visible() {
				w[i] = max(w[i], o.MinSize().Width)
			}
		}
	}
	t.widths = w
	return w
}

// rowLayout lays out one row of a table.
type rowLayout struct {
	t    *table
	span bool // a detail row: the last cell spans the columns left, top aligned
}

func (l *rowLayout) MinSize(objs []fyne.CanvasObject) fyne.Size {
	pad := theme.Size(theme.SizeNamePadding)
	widths := l.t.colWidths()
	if l.span && len(objs) > 0 {
		// The columns before the value, then the value (a copy: widths
		// is the table's).
		n := min(len(widths), len(objs)-1)
		widths = append(widths[:n:n], objs[len(objs)-1].MinSize().Width)
	}
	var width, height float32
	for i, w := range widths {
		if i > 0 {
			width += pad
		}
		width += w
	}
	for _, o := range objs {
		if o.Visible() {
			height = max(height, o.MinSize().Height)
		}
	}
	return fyne.NewSize(width, height)
}

func (l *rowLayout) Layout(objs []fyne.CanvasObject, size fyne.Size) {
	pad := theme.Size(theme.SizeNamePadding)
	widths := l.t.colWidths()
	var x float32
	for i, o := range objs {
		w := float32(0)
		if i < len(widths) {
			w = widths[i]
		}
		if i == len(objs)-1 {
			w = max(w, size.Width-x) // the last column takes the rest
		}
		h := o.MinSize().Height
		y := (size.Height - h) / 2
		if l.span {
			y = 0
		}
		o.Move(fyne.NewPos(x, y))
		o.Resize(fyne.NewSize(w, h))
		x += w + pad
	}
}

// escEntry is an Entry that gives Escape to the window (Window.escape:
// the Cancel of the dialog shown, else Back from a page over a place).
// Fyne gives a key to the widget that has the keyboard, and its Entry
// ignores Escape, so that the window's own handler never heard it while a
// field had the keyboard: on the add form, the paste page, the catalog,
// which give their first field the keyboard, and in the Set secret dialog.
type escEntry struct {
	widget.Entry
	w *Window
}

func newEscEntry(w *Window) *escEntry {
	e := &escEntry{w: w}
	e.Wrapping = fyne.TextWrap(fyne.TextTruncateClip)
	e.ExtendBaseWidget(e)
	return e
}

func newEscMultiLineEntry(w *Window) *escEntry {
	e := newEscEntry(w)
	e.MultiLine = true
	return e
}

// newEscPasswordEntry is a password escEntry with a button that shows and
// hides what was typed (Fyne's own revealer is not to be had for an
// Entry of another type).
func newEscPasswordEntry(w *Window) *escEntry {
	e := newEscEntry(w)
	e.Password = true
	var reveal *widget.Button
	reveal = widget.NewButtonWithIcon("", theme.VisibilityOffIcon(), func() {
		e.Password = !e.Password
		if e.Password {
			reveal.SetIcon(theme.VisibilityOffIcon())
		} else {
			reveal.SetIcon(theme.VisibilityIcon())
		}
		e.Refresh()
	})
	reveal.Importance = widget.LowImportance
	e.ActionItem = reveal
	return e
}

// BaseEntry is the Entry, for a lookup outside the package (ui/journey
// finds fields by their type).
func (e *escEntry) BaseEntry() *widget.Entry { return &e.Entry }

// TypedKey hands Escape to the window, every other key to the Entry.
func (e *escEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.w != nil {
		e.w.escape()
		return
	}
	e.Entry.TypedKey(ev)
}
