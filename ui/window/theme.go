package window

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// The window's theme (issue 27 item 20): Fyne's default, with the colours
// that text is drawn in changed where the default does not reach WCAG AA
// (a contrast ratio of 4.5:1 against every background the text is drawn
// on) in the light or the dark variant. The default's LowImportance
// labels (field hints, the review's introduction, "Not found") are drawn
// in its "disabled" colour, #e3e3e3 on white (1.3:1), its success green
// is #43f436 on white (1.6:1), its warning orange 2.2:1, its error red
// 3.7:1. TestThemeContrast checks every pair of textColours below with
// the WCAG formula; the fixed primary keeps links and high-importance
// text readable whatever accent the desktop prefers.

// Theme is the window's theme: the app sets it (ui.Run) for every window.
func Theme() fyne.Theme { return readableTheme{theme.DefaultTheme()} }

type readableTheme struct{ fyne.Theme }

// palette is what the window changes of the default, by variant.
var palette = map[fyne.ThemeVariant]map[fyne.ThemeColorName]color.NRGBA{
	theme.VariantLight: {
		theme.ColorNameForeground:          {0x26, 0x26, 0x26, 0xff},
		theme.ColorNameDisabled:            {0x5e, 0x5e, 0x5e, 0xff},
		theme.ColorNamePlaceHolder:         {0x5e, 0x5e, 0x5e, 0xff},
		theme.ColorNamePrimary:             {0x12, 0x59, 0xa8, 0xff},
		theme.ColorNameHyperlink:           {0x12, 0x59, 0xa8, 0xff},
		theme.ColorNameForegroundOnPrimary: {0xff, 0xff, 0xff, 0xff},
		theme.ColorNameError:               {0xb3, 0x1b, 0x1b, 0xff},
		theme.ColorNameSuccess:             {0x23, 0x69, 0x27, 0xff},
		theme.ColorNameWarning:             {0x8f, 0x47, 0x00, 0xff},
		theme.ColorNameSelection:           {0x12, 0x59, 0xa8, 0x30},
		theme.ColorNameForegroundOnError:   {0xff, 0xff, 0xff, 0xff},
		theme.ColorNameForegroundOnSuccess: {0xff, 0xff, 0xff, 0xff},
		theme.ColorNameForegroundOnWarning: {0xff, 0xff, 0xff, 0xff},
	},
	theme.VariantDark: {
		theme.ColorNameDisabled:            {0xa8, 0xa8, 0xa8, 0xff},
		theme.ColorNamePrimary:             {0x6e, 0xa8, 0xff, 0xff},
		theme.ColorNameHyperlink:           {0x6e, 0xa8, 0xff, 0xff},
		theme.ColorNameForegroundOnPrimary: {0x10, 0x10, 0x12, 0xff},
		theme.ColorNameError:               {0xff, 0x7b, 0x6e, 0xff},
	},
}

func (t readableTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if c, ok := palette[v][n]; ok {
		return c
	}
	return t.Theme.Color(n, v)
}

// textColour is a colour text is drawn in and the backgrounds it is drawn
// on in the window (a background given as two names is the first, a
// translucent one, over the second).
type textColour struct {
	text fyne.ThemeColorName
	on   [][]fyne.ThemeColorName
}

// surfaces are where ordinary text is: the window, entries, buttons,
// menus, dialogs, headers, and a selected or hovered list row.
var surfaces = [][]fyne.ThemeColorName{
	{theme.ColorNameBackground}, {theme.ColorNameInputBackground}, {theme.ColorNameButton},
	{theme.ColorNameMenuBackground}, {theme.ColorNameOverlayBackground}, {theme.ColorNameHeaderBackground},
	{theme.ColorNameSelection, theme.ColorNameBackground}, {theme.ColorNameHover, theme.ColorNameBackground},
	{theme.ColorNameHover, theme.ColorNameButton},
}

// textColours are every colour the window draws text in: the theme's
// text colours (labels of each importance: LowImportance is "disabled",
// HighImportance "primary"), the status colours the window uses for
// states ("running" in success, "failed" in error, held tools and the
// review's new text in warning: list.go's stateImportance, review.go's
// diffText), and the foregrounds of the coloured buttons.
var textColours = []textColour{
	{theme.ColorNameForeground, surfaces},
	{theme.ColorNameDisabled, append(surfaces, []fyne.ThemeColorName{theme.ColorNameDisabledButton})},
	{theme.ColorNamePlaceHolder, [][]fyne.ThemeColorName{{theme.ColorNameInputBackground}, {theme.ColorNameBackground}}},
	{theme.ColorNamePrimary, surfaces},
	{theme.ColorNameHyperlink, surfaces},
	{theme.ColorNameError, surfaces},
	{theme.ColorNameSuccess, surfaces},
	{theme.ColorNameWarning, surfaces},
	{theme.ColorNameForegroundOnPrimary, [][]fyne.ThemeColorName{{theme.ColorNamePrimary}}},
	{theme.ColorNameForegroundOnError, [][]fyne.ThemeColorName{{theme.ColorNameError}}},
	{theme.ColorNameForegroundOnSuccess, [][]fyne.ThemeColorName{{theme.ColorNameSuccess}}},
	{theme.ColorNameForegroundOnWarning, [][]fyne.ThemeColorName{{theme.ColorNameWarning}}},
}
