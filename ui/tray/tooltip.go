package tray

import "fyne.io/systray"

// setFyneTooltip sets the tooltip of Fyne's own tray (macOS, Windows),
// which is fyne.io/systray's icon: Fyne has no method for it. Before the
// tray is up it is dropped (Windows) or kept for the icon to come.
func setFyneTooltip(tip string) { systray.SetTooltip(tip) }
