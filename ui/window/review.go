package window

import (
	"context"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/trust"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"github.com/switchboard-mcp/switchboard/ui/phrase"
)

// The review of a server's tools held for review (docs/trust.md): a tool
// whose definition changed, or a new tool of a trusted server, is hidden
// from the AI apps until the user accepts it. The page shows per tool the
// description's diff and the rest of the definition's, as -/+ lines, the
// scanner's flags with the matched text highlighted, and Accept and
// Reject. The Overview's badge ("1 tool changed: review") and the tray's
// menu line open it.

// reviewView is the review page of one server.
type reviewView struct {
	w      *Window
	server string
	p      *page
	err    *widget.Label
	box    *fyne.Container // one card per held tool
	held   []hostapi.HeldTool
	// accept and reject are each tool's buttons, by tool name (tests).
	accept, reject map[string]*widget.Button
	obj            fyne.CanvasObject
}

// ShowReview shows the window at the review of a server's held tools
// (the tray's "NAME: 1 tool changed: review").
func (w *Window) ShowReview(name string) {
	w.Show()
	w.showServer(name, tabOverview)
	w.openReview(name)
}

// openReview opens the review page of server over the current place.
func (w *Window) openReview(server string) *reviewView {
	v := &reviewView{w: w, server: server}
	v.err = errorLabel()
	v.box = container.NewVBox(widget.NewLabel("Loading…"))
	intro := hintLabel("A tool whose definition changed, or a new tool of a server you already use, is hidden from your AI apps until you accept it: a changed description can carry instructions to the model. Flags point at text worth a careful look; they never block a tool on their own.")
	v.obj = container.NewBorder(container.NewVBox(intro, v.err), nil, nil, nil, pageScroll(v.box))
	v.p = &page{title: "Review the tools of " + server, obj: v.obj, reload: v.fetch}
	w.open(v.p)
	v.fetch()
	return v
}

// fetch reads the held tools (tools.review) and shows them.
func (v *reviewView) fetch() {
	var held []hostapi.HeldTool
	var enabled bool
	v.w.call(func(ctx context.Context) (err error) {
		held, enabled, err = v.w.live.ReviewTools(ctx, v.server)
		return err
	}, func(err error) {
		if v.w.page != v.p {
			return // left since
		}
		if err != nil {
			setText(v.err, err.Error())
			return
		}
		setText(v.err, "")
		if !enabled {
			v.show(nil, "This host pins no tool definitions (it was started without a pin file): nothing is held for review.")
			return
		}
		v.show(held, "")
	})
}

// show shows the held tools, or note (or "no tool awaits review").
func (v *reviewView) show(held []hostapi.HeldTool, note string) {
	v.held = held
	v.accept, v.reject = map[string]*widget.Button{}, map[string]*widget.Button{}
	var objs []fyne.CanvasObject
	if len(held) == 0 {
		if note == "" {
			note = fmt.Sprintf("No tool of %s awaits review: your AI apps see every tool it lists.", v.server)
		}
		l := widget.NewLabel(note)
		l.Wrapping = fyne.TextWrapWord
		objs = append(objs, l)
	} else {
		objs = append(objs, bold(fmt.Sprintf("%s: %s", v.server, phrase.HeldBadge(len(held)))))
	}
	for _, h := range held {
		objs = append(objs, widget.NewSeparator(), v.card(h))
	}
	v.box.Objects = objs
	v.box.Refresh()
}

// card is one held tool: what happened, the diffs, the flags, the buttons.
func (v *reviewView) card(h hostapi.HeldTool) fyne.CanvasObject {
	what := "its definition changed"
	if h.State == hostapi.TrustHeldNew {
		what = "a new tool"
	}
	head := container.NewHBox(bold(termtext.Escape(h.Tool)), widget.NewLabel(what+" · held since "+h.Since.In(v.w.opts.Now().Location()).Format(time.DateTime)))
	objs := []fyne.CanvasObject{head}
	if changedLines(h.DescriptionDiff) {
		objs = append(objs, caption("Description"+diffLegend), diffText(h.DescriptionDiff))
	}
	if changedLines(h.SchemaDiff) {
		objs = append(objs, caption("Name, title, schemas and annotations"+diffLegend), diffText(h.SchemaDiff))
	}
	if len(h.Flags) > 0 {
		objs = append(objs, caption(fmt.Sprintf("Flags (%d): text worth a careful look", len(h.Flags))))
		for _, f := range h.Flags {
			objs = append(objs, flagText(h.New, f))
		}
	}
	tool := h.Tool
	accept := widget.NewButtonWithIcon("Accept", theme.ConfirmIcon(), func() { v.decide(tool, true) })
	accept.Importance = widget.HighImportance
	reject := widget.NewButtonWithIcon("Reject", theme.CancelIcon(), func() { v.decide(tool, false) })
	reject.Importance = widget.DangerImportance
	v.accept[tool], v.reject[tool] = accept, reject
	hint := hintLabel("Accept: your AI apps see it as it is now. Reject: it stays hidden until the server changes it again.")
	objs = append(objs, container.NewHBox(accept, reject), hint)
	return container.NewVBox(objs...)
}

// decide accepts or rejects a tool, then reads the review again.
func (v *reviewView) decide(tool string, accept bool) {
	b := v.reject[tool]
	if accept {
		b = v.accept[tool]
	}
	b.Disable()
	v.w.call(func(ctx context.Context) error {
		if accept {
			return v.w.live.AcceptTool(ctx, v.server, tool)
		}
		return v.w.live.RejectTool(ctx, v.server, tool)
	}, func(err error) {
		if v.w.page != v.p {
			return
		}
		if err != nil {
			b.Enable()
			setText(v.err, err.Error())
			return
		}
		verb := "Rejected"
		if accept {
			verb = "Accepted"
		}
		v.w.setStatus(fmt.Sprintf("%s %s of %s.", verb, tool, v.server), false)
		v.fetch()
	})
}

// diffLegend says what the diff's marks mean: "+" is not "good".
const diffLegend = " (+ new, not yet accepted; - as you accepted it)"

func caption(text string) *widget.Label {
	l := widget.NewLabelWithStyle(text, fyne.TextAlignLeading, fyne.TextStyle{Italic: true})
	l.SizeName = theme.SizeNameCaptionText
	return l
}

func changedLines(d []hostapi.DiffLine) bool {
	for _, l := range d {
		if l.Op != " " {
			return true
		}
	}
	return false
}

// diffText is a diff as monospaced lines: "+ " (the new text, not yet
// accepted) in the warning colour, never the success green, which in a
// security review reads as safe (issue 27 item 21); "- " (the accepted
// text) in the disabled colour; the lines around them plain; runs of more
// than two unchanged lines away from a change are left out ("…").
func diffText(d []hostapi.DiffLine) *widget.RichText {
	keep := trust.Around(d, 2)
	var segs []widget.RichTextSegment
	line := func(text string, color fyne.ThemeColorName) {
		segs = append(segs, &widget.TextSegment{Text: text, Style: widget.RichTextStyle{
			ColorName: color, TextStyle: fyne.TextStyle{Monospace: true}, SizeName: theme.SizeNameText}})
	}
	gap := false
	for i, l := range d {
		if !keep[i] {
			gap = true
			continue
		}
		if gap {
			line("  …", theme.ColorNameDisabled)
			gap = false
		}
		text := termtext.Escape(l.Text)
		switch l.Op {
		case "-":
			line("- "+text, theme.ColorNameDisabled)
		case "+":
			line("+ "+text, theme.ColorNameWarning)
		default:
			line("  "+text, theme.ColorNameForeground)
		}
	}
	if gap {
		line("  …", theme.ColorNameDisabled)
	}
	rt := widget.NewRichText(segs...)
	rt.Wrapping = fyne.TextWrapBreak
	return rt
}

// flagText is a flag: its kind and field, then the field's text around
// the match with the match itself bold in the error colour (the
// scanner's own words for invisible characters).
func flagText(def string, f hostapi.TrustFlag) *widget.RichText {
	plain := func(s string) widget.RichTextSegment {
		return &widget.TextSegment{Text: s, Style: widget.RichTextStyleInline}
	}
	mark := func(s string) widget.RichTextSegment {
		return &widget.TextSegment{Text: s, Style: widget.RichTextStyle{Inline: true, ColorName: theme.ColorNameError, TextStyle: fyne.TextStyle{Bold: true}}}
	}
	segs := []widget.RichTextSegment{plain(fmt.Sprintf("%s in %s: ", flagWords(f.Kind), f.Field))}
	if e, ok := trust.ExcerptOf(def, f, 40); !ok {
		segs = append(segs, mark(termtext.Escape(f.Match)))
	} else {
		flat := func(s string) string { return termtext.Escape(strings.ReplaceAll(s, "\n", " ")) }
		match := e.Match
		if !e.Named {
			match = flat(match)
		}
		pre, post := flat(e.Before), flat(e.After)
		if e.CutBefore {
			pre = "…" + pre
		}
		if e.CutAfter {
			post += "…"
		}
		segs = append(segs, plain(pre), mark(match), plain(post))
	}
	rt := widget.NewRichText(segs...)
	rt.Wrapping = fyne.TextWrapWord
	return rt
}

// flagWords names a flag's kind for a person.
func flagWords(k trust.Kind) string {
	switch k {
	case trust.KindInvisible:
		return "Invisible characters"
	case trust.KindBidi:
		return "Text-direction controls"
	case trust.KindTag:
		return "Hidden tag characters"
	case trust.KindInstruction:
		return "Instructions to the model"
	case trust.KindConceal:
		return "Asks to keep something from you"
	case trust.KindMarkup:
		return "Instruction markup"
	case trust.KindSensitive:
		return "Names a credentials file"
	case trust.KindOtherTool:
		return "Names another server's tool"
	case trust.KindLong:
		return "A very long description"
	case trust.KindForeignURL:
		return "A link to a host that is not the server's own"
	}
	return string(k)
}
