package window

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// emptyState is the Servers place with no servers yet: what a server is
// for, and the ways to get one: the catalog, an AI app's own servers
// (one button per app found with servers Switchboard can run), the form,
// a pasted configuration.
type emptyState struct {
	w        *Window
	catalogB *widget.Button
	addB     *widget.Button
	pasteB   *widget.Button
	imports  *fyne.Container
	importB  map[string]*widget.Button // by app ID
	found    []appState                // the apps with servers to import, from the last read
	seq      int
	obj      fyne.CanvasObject
}

func newEmptyState(w *Window) *emptyState {
	e := &emptyState{w: w, importB: map[string]*widget.Button{}}
	intro := widget.NewLabel("A server gives your AI apps tools: your files, a browser, GitHub, a database… " +
		"Switchboard runs each server once and shares it with every AI app you connect.")
	intro.Wrapping = fyne.TextWrapWord
	e.catalogB = widget.NewButtonWithIcon("Add from the catalog", theme.ListIcon(), func() { w.showPlace(placeCatalog) })
	e.catalogB.Importance = widget.HighImportance
	e.imports = container.NewVBox()
	e.addB = widget.NewButtonWithIcon("Add a server by hand", theme.ContentAddIcon(), w.openAdd)
	e.pasteB = widget.NewButtonWithIcon("Paste a configuration", theme.ContentPasteIcon(), w.openPaste)
	box := container.NewVBox(
		heading("No servers yet"),
		intro,
		container.NewHBox(e.catalogB),
		e.imports,
		container.NewHBox(e.addB, e.pasteB),
	)
	e.obj = pageScroll(container.NewPadded(box))
	return e
}

// reload reads the AI apps' files off the UI goroutine and offers to
// import from each app that has servers of its own.
func (e *emptyState) reload() {
	e.seq++
	seq, w := e.seq, e.w
	files := localAppFiles()
	go func() {
		states := loadApps(files)
		w.opts.Do(func() {
			if w.ctx.Err() == nil && e.seq == seq {
				e.show(states)
			}
		})
	}()
}

// show offers an Import button for each app with servers to import.
func (e *emptyState) show(states []appState) {
	e.found = nil
	e.importB = map[string]*widget.Button{}
	var objs []fyne.CanvasObject
	for _, st := range states {
		if st.problem != "" || len(st.importable) == 0 {
			continue
		}
		e.found = append(e.found, st)
		id := st.app.ID
		label := fmt.Sprintf("Import from %s (%s)", st.app.Name, strings.Join(st.importable, ", "))
		b := widget.NewButtonWithIcon(label, theme.DownloadIcon(), func() { e.w.importFrom(id) })
		e.importB[id] = b
		objs = append(objs, container.NewHBox(b))
	}
	if len(objs) > 0 {
		hint := hintLabel("Your AI apps already run servers of their own: bring them into Switchboard, and every app can use them.")
		hint.Importance = widget.MediumImportance // a step to take, not a field's hint
		objs = append([]fyne.CanvasObject{hint}, objs...)
	}
	e.imports.Objects = objs
	e.imports.Refresh()
}

// importFrom shows the AI apps place and asks to import an app's servers
// once its row shows.
func (w *Window) importFrom(id string) {
	w.showPlace(placeApps)
	v := w.apps
	if v == nil {
		return
	}
	v.then = func() {
		if r := v.rows[id]; r != nil {
			v.askImport(r)
		}
	}
}
