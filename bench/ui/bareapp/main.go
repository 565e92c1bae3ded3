// Command bareapp is the baseline of the tray app's figures (bench/ui/run.sh):
// a bare Fyne app, one window with a label and a button, started the same
// way as switchboard (same Xvfb, same environment).
package main

import (
	"fyne.io/fyne/v2/app"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

func main() {
	a := app.NewWithID("io.github.switchboard-mcp.bareapp")
	w := a.NewWindow("Bare")
	label := widget.NewLabel("Hello")
	w.SetContent(container.NewVBox(label, widget.NewButton("Click", func() { label.SetText("Clicked") })))
	w.ShowAndRun()
}
