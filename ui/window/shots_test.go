package window

import (
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// shoot saves what the window shows, in the light and the dark theme, as
// docs/screenshots/NAME-THEME-WIDTH.png, when SWITCHBOARD_SHOTS names the
// folder (scripts/screenshots.sh shoots the real app; these are the places
// that need a state the demo does not have). setup shows the place; it
// runs again for each theme.
func shoot(t *testing.T, w *Window, name string, size fyne.Size, setup func()) {
	t.Helper()
	dir := os.Getenv("SWITCHBOARD_SHOTS")
	if dir == "" {
		return
	}
	for _, th := range []struct {
		name    string
		variant fyne.ThemeVariant
	}{{"light", theme.VariantLight}, {"dark", theme.VariantDark}} {
		fyne.CurrentApp().Settings().SetTheme(variantTheme{Theme(), th.variant}) // the app's (ui.Run sets it)
		w.win.Resize(size)
		setup()
		w.win.Canvas().Unfocus()
		settle(w.win.Canvas())
		img := w.win.Canvas().Capture()
		path := filepath.Join(dir, name+"-"+th.name+"-"+strconv.Itoa(int(size.Width))+".png")
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(f, img); err != nil {
			t.Fatal(err)
		}
		f.Close()
		t.Logf("wrote %s", path)
	}
}

// variantTheme is a theme in one variant, whatever the system's.
type variantTheme struct {
	fyne.Theme
	v fyne.ThemeVariant
}

func (t variantTheme) Color(n fyne.ThemeColorName, _ fyne.ThemeVariant) color.Color {
	return t.Theme.Color(n, t.v)
}
