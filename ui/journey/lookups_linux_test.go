//go:build linux && cgo && !ci

package journey

import (
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// The lookups: where a journey finds what a person looks for, by what
// shows on the screen (a button's label, a field's placeholder or label,
// the row a button is in), never by the window's fields. They are all
// here so that a new layout of the window (the sidebar and master-detail
// frame) is followed by repointing these functions only; the journeys
// stay as they are.

// emptyListInvite is what an empty start shows instead of servers.
func (s *screenRun) emptyListInvite() fyne.CanvasObject {
	return s.find("the empty list's invitation", labelContaining("No servers yet"))
}

// catalogButton opens the catalog (the toolbar's Catalog).
func (s *screenRun) catalogButton() fyne.CanvasObject {
	return s.find("the Catalog button", buttonText("Catalog"))
}

// catalogSearch is the catalog's search box.
func (s *screenRun) catalogSearch() fyne.CanvasObject {
	return s.find("the catalog's search box", entryPlaceholder("Search by name, description or package"))
}

// catalogAdd is the Add… button of the template titled title.
func (s *screenRun) catalogAdd(title string) fyne.CanvasObject {
	return s.find("Add… of "+title, s.nearest(labelText(title), buttonText("Add…")))
}

// templateField is the entry of the template form's field labelled label
// (a required field's label ends with " *").
func (s *screenRun) templateField(label string) fyne.CanvasObject {
	return s.find("the field "+label, formField(label))
}

// templateSave is the template form's "Add server" (the page's main
// action; the toolbar has an "Add server" too, which opens the empty
// form).
func (s *screenRun) templateSave() fyne.CanvasObject {
	return s.find("the template's Add server", importance(buttonText("Add server"), widget.HighImportance))
}

// serverButton is a button of a server's row in the list (Tools, Logs,
// Edit…).
func (s *screenRun) serverButton(server, label string) fyne.CanvasObject {
	return s.find(label+" of "+server, s.nearest(labelText(server), buttonText(label)))
}

// toolButton is a tool in the tools page's list.
func (s *screenRun) toolButton(tool string) fyne.CanvasObject {
	return s.find("the tool "+tool, buttonText(tool))
}

// callButton is Try it's button that calls the tool.
func (s *screenRun) callButton(tool string) fyne.CanvasObject {
	return s.find("Call "+tool, buttonText("Call "+tool))
}

// result is the text that shows a tool's result, found by what it says.
func (s *screenRun) result(says string) fyne.CanvasObject {
	return s.find("a result that says "+says, labelContaining(says))
}

// serverReason is where the window says why a server is not running (its
// row's problem line today; the Overview tab's last error after the
// frame's reshape).
func (s *screenRun) serverReason(server, says string) fyne.CanvasObject {
	return s.find("why "+server+" does not run", s.nearest(labelText(server), labelContaining(says)))
}

// noServerReason waits until the window no longer says why the server
// does not run.
func (s *screenRun) noServerReason(server, said string) {
	s.gone("why "+server+" did not run", s.nearest(labelText(server), labelContaining(said)))
}

// editButton opens a server's settings (its row's Edit today; the
// Settings tab after the reshape).
func (s *screenRun) editButton(server string) fyne.CanvasObject {
	return s.serverButton(server, "Edit")
}

// settingsField is the entry of the server form's field labelled label.
func (s *screenRun) settingsField(label string) fyne.CanvasObject {
	return s.find("the field "+label, formField(label))
}

// settingsSave is the server form's Save.
func (s *screenRun) settingsSave() fyne.CanvasObject {
	return s.find("Save", buttonText("Save"))
}

// trayServer returns the tray menu's item of a server and the labels of
// its submenu ("" and nil while the menu has none).
func trayServer(r *trayRun, server string) (string, []string) {
	m := r.shown()
	if m == nil {
		return "", nil
	}
	for _, it := range m.Items {
		if strings.HasPrefix(it.Label, server+" — ") {
			return it.Label, menuLabels(it.ChildMenu)
		}
	}
	return "", nil
}

// serverState is where the window shows a server's state in words (its
// row's state column today).
func (s *screenRun) serverState(server, state string) fyne.CanvasObject {
	return s.find(server+" "+state, s.nearest(labelText(server), labelText(state)))
}
