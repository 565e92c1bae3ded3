// Package appicon embeds Switchboard's application icon, for the window,
// the tray app's About and notifications, and anything else that shows the
// app itself (the tray's health icons live in ui/tray/icons).
//
// The PNGs are drawn by packaging/icons/gen.go, which also writes the
// hicolor, .ico and FyneApp.toml copies of the same picture: change the
// design there, then run `go run packaging/icons/gen.go` from the
// repository root.
package appicon

import (
	_ "embed"

	"fyne.io/fyne/v2"
)

var (
	//go:embed switchboard.png
	png512 []byte
	//go:embed switchboard-64.png
	png64 []byte
)

// Icon is the application icon, 512x512 PNG: the window icon and
// fyne.App.SetIcon.
var Icon fyne.Resource = fyne.NewStaticResource("switchboard.png", png512)

// Small is the same picture drawn for 64x64, sharper than Icon scaled down
// (menus, notifications).
var Small fyne.Resource = fyne.NewStaticResource("switchboard-64.png", png64)
