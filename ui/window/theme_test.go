package window

import (
	"fmt"
	"image/color"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
)

// luminance is WCAG 2's relative luminance of an opaque colour.
func luminance(c color.NRGBA) float64 {
	ch := func(v uint8) float64 {
		s := float64(v) / 255
		if s <= 0.04045 {
			return s / 12.92
		}
		return math.Pow((s+0.055)/1.055, 2.4)
	}
	return 0.2126*ch(c.R) + 0.7152*ch(c.G) + 0.0722*ch(c.B)
}

// contrast is WCAG 2's contrast ratio of two opaque colours.
func contrast(a, b color.NRGBA) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// over is c drawn over the opaque colour base (alpha blending).
func over(c, base color.NRGBA) color.NRGBA {
	a := float64(c.A) / 255
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x)*a + float64(y)*(1-a))) }
	return color.NRGBA{mix(c.R, base.R), mix(c.G, base.G), mix(c.B, base.B), 0xff}
}

func nrgba(c color.Color) color.NRGBA { return color.NRGBAModel.Convert(c).(color.NRGBA) }

// background resolves a background given as names, the last opaque.
func background(th fyne.Theme, v fyne.ThemeVariant, names []fyne.ThemeColorName) color.NRGBA {
	bg := nrgba(th.Color(names[len(names)-1], v))
	bg.A = 0xff
	for i := len(names) - 2; i >= 0; i-- {
		bg = over(nrgba(th.Color(names[i], v)), bg)
	}
	return bg
}

// TestContrastFormula: the formula gives WCAG's figures (black on white
// 21:1, #777 on white 4.48:1, the default's light "disabled" on white).
func TestContrastFormula(t *testing.T) {
	white, black := color.NRGBA{0xff, 0xff, 0xff, 0xff}, color.NRGBA{0, 0, 0, 0xff}
	for _, c := range []struct {
		a, b color.NRGBA
		want float64
	}{{black, white, 21}, {color.NRGBA{0x77, 0x77, 0x77, 0xff}, white, 4.48}, {color.NRGBA{0xe3, 0xe3, 0xe3, 0xff}, white, 1.28}} {
		if got := contrast(c.a, c.b); math.Abs(got-c.want) > 0.01 {
			t.Errorf("contrast(%v, %v) = %.2f, want %.2f", c.a, c.b, got, c.want)
		}
	}
}

// TestThemeContrast (issue 27 item 20): every colour the window draws
// text in reaches WCAG AA (4.5:1) against every background it is drawn
// on, in the light and the dark variant. Fyne's default fails it (its
// light hints are 1.3:1, its light "running" green 1.6:1): the same check
// over theme.DefaultTheme() must find failures, or the check checks
// nothing.
func TestThemeContrast(t *testing.T) {
	test.NewTempApp(t) // the default theme reads the app's accent colour
	check := func(th fyne.Theme) []string {
		var fails []string
		for _, v := range []fyne.ThemeVariant{theme.VariantLight, theme.VariantDark} {
			for _, tc := range textColours {
				fg := nrgba(th.Color(tc.text, v))
				for _, on := range tc.on {
					bg := background(th, v, on)
					if fg.A != 0xff {
						fails = append(fails, fmt.Sprintf("variant %d: %s is translucent", v, tc.text))
						continue
					}
					if r := contrast(fg, bg); r < 4.5 {
						fails = append(fails, fmt.Sprintf("variant %d: %s %v on %v %v: %.2f:1", v, tc.text, fg, on, bg, r))
					}
				}
			}
		}
		return fails
	}
	if fails := check(Theme()); len(fails) > 0 {
		t.Errorf("text below 4.5:1:\n%s", strings.Join(fails, "\n"))
	}
	if fails := check(theme.DefaultTheme()); len(fails) == 0 {
		t.Error("Fyne's default theme passes the check: it checks nothing")
	}
	// Every text colour name the theme has is in the table.
	have := map[fyne.ThemeColorName]bool{}
	for _, tc := range textColours {
		have[tc.text] = true
	}
	for _, n := range []fyne.ThemeColorName{theme.ColorNameForeground, theme.ColorNameDisabled, theme.ColorNamePlaceHolder,
		theme.ColorNamePrimary, theme.ColorNameHyperlink, theme.ColorNameError, theme.ColorNameSuccess, theme.ColorNameWarning,
		theme.ColorNameForegroundOnPrimary, theme.ColorNameForegroundOnError, theme.ColorNameForegroundOnSuccess, theme.ColorNameForegroundOnWarning} {
		if !have[n] {
			t.Errorf("the text colour %s is not checked", n)
		}
	}
}
