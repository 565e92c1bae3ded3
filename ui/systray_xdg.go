//go:build linux || freebsd || netbsd || openbsd

package ui

import "github.com/switchboard-mcp/switchboard/ui/tray"

// startSystray starts the tray without Fyne's driver (see [tray.Systray]).
func startSystray(title string) (trayHost, error) {
	s, err := tray.StartSystray(title)
	if err != nil {
		return nil, err
	}
	return s, nil
}
