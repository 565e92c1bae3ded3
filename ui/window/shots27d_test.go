//go:build shots

package window

// Screenshots of the AI apps place with the connected apps' tool counts
// (issue 27 item 23), in the light and the dark theme, rendered by the
// test driver (the same layout as the goldens; the fonts and colours of
// Fyne's default theme). The Settings' Start row and the Tools tab's
// marks are shot by their journeys (SWITCHBOARD_SHOTS, ui/journey):
//
//	go test -tags shots -run TestShots27d ./ui/window/ -args -shots=docs/screenshots

import (
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

var shotsDir = flag.String("shots", "", "where TestShots27d writes its PNGs")

func TestShots27d(t *testing.T) {
	if *shotsDir == "" {
		t.Fatal("give -shots=DIR")
	}
	shoot := func(w *Window, name string) {
		t.Helper()
		w.win.Canvas().Unfocus()
		settle(w.win.Canvas())
		img := w.win.Canvas().Capture()
		f, err := os.Create(filepath.Join(*shotsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []struct {
		name string
		v    fyne.ThemeVariant
	}{{"light", theme.VariantLight}, {"dark", theme.VariantDark}} {
		// The AI apps place: the apps connected now, with their tools.
		files := goldenAppFiles(t)
		useAppFiles(t, files)
		w, _ := goldenWindow(t)
		fyne.CurrentApp().Settings().SetTheme(fixedVariant{Theme(), v.v})
		c := goldenCosts()
		w.costs.all, w.costs.have, w.costs.sel = c.all, c.have, c.sel
		w.showPlace(placeApps)
		w.apps.show(loadApps(files), must(files.exe()), nil)
		shoot(w, "ai-apps-tools-"+v.name+"-1120.png")
	}
}
