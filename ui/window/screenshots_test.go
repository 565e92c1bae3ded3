package window

import (
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// fixedVariant is a theme that draws one variant whatever the app asks.
type fixedVariant struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (f fixedVariant) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return f.Theme.Color(n, f.v)
}

// TestThemeScreenshots renders the places issue 27 items 14, 20 and 21
// changed (Activity, the review, the servers list's states) with the window's theme, light and dark,
// through Fyne's software painter, and checks the pixels: the review
// draws its new text in the theme's warning colour and nothing in the
// success green. With SWITCHBOARD_SCREENSHOTS=DIR it writes the PNGs
// there (docs/screenshots: <place>-<variant>-1120.png); the other
// screenshots there are scripts/screenshots.sh's, of the real app.
func TestThemeScreenshots(t *testing.T) {
	out := os.Getenv("SWITCHBOARD_SCREENSHOTS")
	if out == "" {
		out = t.TempDir()
	}
	for _, variant := range []struct {
		name string
		v    fyne.ThemeVariant
	}{{"light", theme.VariantLight}, {"dark", theme.VariantDark}} {
		th := fixedVariant{Theme(), variant.v}
		shoot := func(place string, scene func(w *Window)) image.Image {
			a := test.NewTempApp(t)
			a.Settings().SetTheme(th)
			w, _ := goldenWindowIn(t, a)
			scene(w)
			w.win.Canvas().Unfocus()
			settle(w.win.Canvas())
			img := w.win.Canvas().Capture()
			f, err := os.Create(filepath.Join(out, place+"-"+variant.name+"-1120.png"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := png.Encode(f, img); err != nil {
				t.Fatal(err)
			}
			return img
		}
		shoot("activity", activityScene)
		// Issue 28: the "Add a server" place's registry results, and a
		// registry entry's card and form.
		shoot("add-a-server", func(w *Window) { addServerScene(t, w) })
		shoot("registry-card", func(w *Window) { w.showCard(goldenCard(t)) })
		// Item 20's secondary text: the list's states and summaries.
		shoot("contrast-servers", func(w *Window) { w.servers.choose("everything") })
		img := shoot("review", func(w *Window) { reviewScene(t, w) })
		warning := nrgba(th.Color(theme.ColorNameWarning, variant.v))
		success := nrgba(th.Color(theme.ColorNameSuccess, variant.v))
		var nWarning, nSuccess int
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				switch nrgba(img.At(x, y)) {
				case warning:
					nWarning++
				case success:
					nSuccess++
				}
			}
		}
		if nWarning < 50 || nSuccess > 0 {
			t.Errorf("%s: the review has %d pixels of the warning colour %v, %d of the success colour %v; want the new text in warning, none in success",
				variant.name, nWarning, warning, nSuccess, success)
		}
	}
}
