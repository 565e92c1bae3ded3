package window

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"
)

// The frame: a sidebar of the places a person goes, and the place shown
// beside it. Every change follows the host's events (no Refresh button);
// the AI apps place reads the apps' files again when the window gains the
// focus or one of the files changes (appswatch.go).

// place is one entry of the sidebar. A place shows either its own
// content (show, built by the frame: the Servers page) or a page its
// opener opens (the catalog, the AI apps).
type place struct {
	id    string
	label string
	icon  func() fyne.Resource // the theme's, asked when the sidebar is built (not at init: the CLI has no app)
	// show returns the place's content, built once; nil for a place whose
	// open opens its page.
	show func(w *Window) fyne.CanvasObject
	open func(w *Window)
}

// The places' IDs.
const (
	placeServers = "servers"
	placeApps    = "apps"
	placeCatalog = "catalog"
)

// places are the sidebar's entries, in order. A new place (Activity,
// Approvals) is one more entry. (Set in init: the openers refer back to
// the table through the pages they open.)
var places []*place

func init() {
	places = []*place{
		{id: placeServers, label: "Servers", icon: theme.StorageIcon, show: func(w *Window) fyne.CanvasObject { return w.servers.obj }},
		{id: placeApps, label: "AI apps", icon: theme.ComputerIcon, open: (*Window).openAppsPlace},
		profilesPlace(), // profiles.go
		// No icon: "Add a server" with one would widen the sidebar
		// past what the pages have at 800 pixels (TestFitsSmallScreen).
		{id: placeCatalog, label: "Add a server", icon: nil, open: (*Window).openCatalog},
		{id: placeActivity, label: "Activity", icon: theme.HistoryIcon, open: (*Window).openActivity},
		approvalsPlace(), // approvals.go
	}
}

func placeOf(id string) *place {
	for _, p := range places {
		if p.id == id {
			return p
		}
	}
	return places[0]
}

// sidebar returns the column of the places' buttons.
func (w *Window) sidebar() fyne.CanvasObject {
	w.nav = map[string]*widget.Button{}
	box := container.NewVBox()
	for _, p := range places {
		var icon fyne.Resource
		if p.icon != nil {
			icon = p.icon()
		}
		b := widget.NewButtonWithIcon(p.label, icon, func() { w.showPlace(p.id) })
		b.Alignment = widget.ButtonAlignLeading
		w.nav[p.id] = b
		box.Add(b)
	}
	w.appsBtn, w.catalogBtn = w.nav[placeApps], w.nav[placeCatalog]
	w.markNav()
	return box
}

// markNav highlights the current place's button.
func (w *Window) markNav() {
	for id, b := range w.nav {
		imp := widget.LowImportance
		if w.place != nil && id == w.place.id {
			imp = widget.HighImportance
		}
		if b.Importance != imp {
			b.Importance = imp
			b.Refresh()
		}
	}
}

// showPlace shows a place (again: its own view, leaving any page opened
// over it).
func (w *Window) showPlace(id string) {
	p := placeOf(id)
	w.leave()
	w.place = p
	w.markNav()
	if p.show != nil {
		w.center.Objects = []fyne.CanvasObject{p.show(w)}
		w.center.Refresh()
		if p.id == placeServers && w.servers != nil {
			w.servers.reopenTab()
		}
		return
	}
	w.opening = true
	p.open(w)
	w.opening = false
}

// heading returns a page's title.
func heading(text string) *widget.Label {
	l := widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	l.SizeName = theme.SizeNameSubHeadingText
	return l
}

// capPages puts every page in a horizontal scroll: a page wider than the
// room it gets (at 800x600) scrolls rather than widen the window beyond
// the screen or be cut. The pages are made to fit at 800 pixels
// (TestFitsSmallScreen turns this off to measure them).
var capPages = true

// capped returns a page's content in a horizontal scroll.
func capped(o fyne.CanvasObject) fyne.CanvasObject {
	if !capPages {
		return o
	}
	return container.NewHScroll(o)
}
