package tray

import (
	"strings"

	"fyne.io/fyne/v2"
)

// NoTrayNotification is the notification shown (once) when the desktop
// has no tray host to show the icon on: the window is shown instead, and
// this says how to get the icon on that desktop. desktop is
// $XDG_CURRENT_DESKTOP ("ubuntu:GNOME", "GNOME", "KDE", ...).
func NoTrayNotification(desktop string) *fyne.Notification {
	const title = "Switchboard has no tray icon on this desktop"
	const after = " Until then Switchboard shows its window at login; closing it closes the app, and your servers keep running."
	for _, d := range strings.Split(strings.ToUpper(desktop), ":") {
		if d == "GNOME" || d == "UBUNTU" {
			return fyne.NewNotification(title,
				"GNOME shows tray icons with the “AppIndicator and KStatusNotifierItem Support” extension: "+
					"turn it on in the Extensions app (Ubuntu ships it as “Ubuntu AppIndicators”), or install it "+
					"(the gnome-shell-extension-appindicator package), then log out and back in."+after)
		}
	}
	return fyne.NewNotification(title,
		"This desktop has no tray that shows StatusNotifierItem icons: add a tray (or system tray) widget to "+
			"the panel, or run a tray host such as snixembed or waybar's tray."+after)
}
