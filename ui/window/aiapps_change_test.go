package window

import (
	"image/color"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
)

// TestChangeDiffColours shows a change the way Connect does and reads
// what the test driver renders: the added line in the theme's success
// colour (green), the removed one in its error colour (red), the context
// and the file names in the foreground colour, the hunk's head in the
// primary one; Copy copies the diff
// as text; a sentence (no change) shows as plain text.
func TestChangeDiffColours(t *testing.T) {
	w, _ := goldenWindow(t)
	v := &appsView{w: w}
	r := &appRow{v: v, st: &appState{loc: aiapps.Location{Path: "/home/me/.config/app/config.json"}}}
	before := []byte("{\n  \"a\": 1,\n  \"old\": 2\n}\n")
	after := []byte("{\n  \"a\": 1,\n  \"new\": 3\n}\n")
	c := v.newChange(r, "Connect", "The change:", "Connect", before, nil, nil)
	c.set(after, true, "")
	c.show()
	t.Cleanup(c.close)

	th, variant := w.app.Settings().Theme(), w.app.Settings().ThemeVariant()
	want := map[string]color.Color{
		`+  "new": 3`: th.Color(theme.ColorNameSuccess, variant),
		`-  "old": 2`: th.Color(theme.ColorNameError, variant),
		`   "a": 1,`:  th.Color(theme.ColorNameForeground, variant),
	}
	texts := renderedTexts(c.diff)
	for line, col := range want {
		got, ok := texts[line]
		if !ok {
			t.Errorf("%q is not rendered; rendered: %q", line, keys(texts))
			continue
		}
		if got.Color != col {
			t.Errorf("%q is rendered in %v, want %v", line, got.Color, col)
		}
		if !got.TextStyle.Monospace {
			t.Errorf("%q is not in a fixed-width font", line)
		}
	}
	if want[`+  "new": 3`] == want[`-  "old": 2`] {
		t.Fatal("the theme gives added and removed lines one colour: the test proves nothing")
	}
	if h, ok := texts["+++ /home/me/.config/app/config.json"]; !ok || h.Color != th.Color(theme.ColorNameForeground, variant) {
		t.Errorf("the new file's name is not a line of text in the foreground colour: %+v", h)
	}
	if h, ok := texts["@@ -1,4 +1,4 @@"]; !ok || h.Color != th.Color(theme.ColorNamePrimary, variant) {
		t.Errorf("the hunk's head is not in the primary colour: %+v (rendered %q)", h, keys(texts))
	}
	if !strings.Contains(c.diffText, `+  "new": 3`) {
		t.Errorf("diffText: %q", c.diffText)
	}
	test.Tap(c.copyB)
	if got := w.app.Clipboard().Content(); got != c.diffText {
		t.Errorf("Copy put %q on the clipboard, not the diff", got)
	}

	c.set(after, false, "No change: the entry is already there.")
	texts = renderedTexts(c.diff)
	if got, ok := texts["No change: the entry is already there."]; !ok || got.Color != th.Color(theme.ColorNameForeground, variant) || !c.ok.Disabled() {
		t.Errorf("no change: %q; ok disabled %v", keys(texts), c.ok.Disabled())
	}
}

// renderedTexts returns the texts the test driver renders for o, by text.
func renderedTexts(o fyne.CanvasObject) map[string]*canvas.Text {
	out := map[string]*canvas.Text{}
	var walk func(o fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *canvas.Text:
			out[x.Text] = x
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
		case fyne.Widget:
			for _, c := range test.WidgetRenderer(x).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return out
}

func keys(m map[string]*canvas.Text) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
