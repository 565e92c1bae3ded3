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
// here so that a new layout of the window is followed by repointing
// these functions. The window's frame (docs/window.md): a sidebar of
// places; the Servers place lists the servers on the left and shows the
// chosen one on the right, its name as the heading, above its tabs
// (Overview, Tools, Logs, Settings).

// emptyListInvite is what an empty start shows instead of servers.
func (s *screenRun) emptyListInvite() fyne.CanvasObject {
	return s.find("the empty list's invitation", labelContaining("No servers yet"))
}

// catalogButton opens the catalog (the sidebar's "Add a server").
func (s *screenRun) catalogButton() fyne.CanvasObject {
	return s.find("the Add a server button", buttonText("Add a server"))
}

// catalogSearch is the catalog's search box.
func (s *screenRun) catalogSearch() fyne.CanvasObject {
	return s.find("the catalog's search box", entryPlaceholder("Search the templates and the registries by name, description or package"))
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
// action).
func (s *screenRun) templateSave() fyne.CanvasObject {
	return s.find("the template's Add server", importance(buttonText("Add server"), widget.HighImportance))
}

// serverRow is a server's row in the Servers place's list (its name
// there).
func (s *screenRun) serverRow(server string) fyne.CanvasObject {
	return s.find(server+" in the list", inList(labelText(server)))
}

// serverTab is a tab (Overview, Tools, Logs, Settings) of the server shown
// on the right of the list, under its name.
func (s *screenRun) serverTab(server, tab string) fyne.CanvasObject {
	return s.find("the "+tab+" tab of "+server, s.nearest(headingText(server), tabText(tab)))
}

// serverButton is a button of the server shown on the right of the list
// (its header's Start or Stop, its Overview's fixes).
func (s *screenRun) serverButton(server, label string) fyne.CanvasObject {
	return s.find(label+" of "+server, s.nearest(headingText(server), buttonText(label)))
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

// serverReason is where the window says why a server is not running:
// the text under "What is wrong" in its Overview tab.
func (s *screenRun) serverReason(server, says string) fyne.CanvasObject {
	return s.find("why "+server+" does not run", s.nearest(headingText(server), after(labelText("What is wrong"), labelContaining(says))))
}

// noServerReason waits until the server's Overview no longer says why it
// does not run.
func (s *screenRun) noServerReason(server, said string) {
	s.gone("why "+server+" did not run", s.nearest(headingText(server), after(labelText("What is wrong"), labelContaining(said))))
}

// overviewState is the state in words in a server's Overview tab
// ("running, for 5s").
func (s *screenRun) overviewState(server, state string) fyne.CanvasObject {
	return s.find(server+"'s Overview says "+state, s.nearest(headingText(server), after(labelText("State"), labelContaining(state))))
}

// editButton is the Overview's way to the Settings tab for a server whose
// command is not found.
func (s *screenRun) editButton(server string) fyne.CanvasObject {
	return s.serverButton(server, "Change the command in Settings")
}

// settingsField is the entry of the server form's field labelled label.
func (s *screenRun) settingsField(label string) fyne.CanvasObject {
	return s.find("the field "+label, formField(label))
}

// settingsSave is the server form's Save, in the bar at the bottom of
// the Settings tab.
func (s *screenRun) settingsSave() fyne.CanvasObject {
	return s.find("Save", importance(buttonText("Save"), widget.HighImportance))
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

// serverState is where the window shows a server's state in words: the
// header beside its name, above its tabs.
func (s *screenRun) serverState(server, state string) fyne.CanvasObject {
	return s.find(server+" "+state, s.nearest(headingText(server), labelText(state)))
}
