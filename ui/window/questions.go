package window

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Questions (issue 30 §2): a server asks the user something while it
// serves an app's call (an MCP elicitation) and that app cannot ask it;
// the host holds the question (hostapi.InputRequest) and the Approvals
// place shows it as a card above the waiting calls: the server, the app,
// its words, and a form built from its fields (a text box, a number box
// with its range, a check box, a choice, a group of check boxes for a
// multiple choice; defaults filled in, required fields marked). Answer
// sends the values (requests.answer), and the host's problems show beside
// their fields; Decline says no. A question that asks to open a page
// (url mode) names the page's host, and opens it in the browser only
// after the user confirms that host.

// questionCard is one waiting question.
type questionCard struct {
	obj     fyne.CanvasObject
	q       hostapi.InputRequest
	fields  []*questionField
	problem *widget.Label // a problem that is no one field's
	answer  *widget.Button
	decline *widget.Button
}

// questionField is one field of a question's form: one of its widgets is
// set, by the field's type.
type questionField struct {
	f      hostapi.InputField
	label  string
	entry  *widget.Entry
	check  *widget.Check
	choice *widget.Select
	group  *widget.CheckGroup
	err    *widget.Label
}

// updateQuestions shows a snapshot's waiting questions; it returns
// whether their set changed.
func (v *approvalsView) updateQuestions(w *Window, s client.Snapshot) bool {
	ids := make([]string, len(s.Requests))
	for i, q := range s.Requests {
		ids[i] = q.ID
	}
	if slices.Equal(ids, v.asked) {
		return false
	}
	v.asked = ids
	objs := make([]fyne.CanvasObject, 0, len(s.Requests))
	cards := map[string]*questionCard{}
	for _, q := range s.Requests {
		c := v.questions[q.ID]
		if c == nil {
			c = w.questionCard(q)
		}
		cards[q.ID] = c
		objs = append(objs, c.obj)
	}
	v.questions = cards
	v.qlist.Objects = objs
	v.qlist.Refresh()
	return true
}

// questionCard builds the card of a waiting question.
func (w *Window) questionCard(q hostapi.InputRequest) *questionCard {
	c := &questionCard{q: q, problem: errorLabel()}
	app := q.App
	if app == "" {
		app = "an app"
	}
	what := "asks you"
	if q.Mode == hostapi.InputURL {
		what = "asks you to open a page on " + q.URLHost
	}
	head := widget.NewLabelWithStyle(fmt.Sprintf("%s %s (while serving %s)", q.Server, what, app), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	objs := []fyne.CanvasObject{head}
	if q.Message != "" {
		msg := selectableLabel(q.Message)
		msg.Wrapping = fyne.TextWrapWord
		objs = append(objs, msg)
	}
	c.decline = widget.NewButton("Decline", func() { w.answerQuestion(c, hostapi.ActionDecline, nil) })
	if q.Mode == hostapi.InputURL {
		page := selectableLabel(q.URL)
		page.Wrapping = fyne.TextWrapBreak
		page.TextStyle = fyne.TextStyle{Monospace: true}
		objs = append(objs, page)
		c.answer = widget.NewButton("Open page on "+shortHost(q.URLHost)+"…", func() { w.askOpen(c) })
	} else {
		if len(q.Fields) > 0 {
			var rows []fyne.CanvasObject
			for _, f := range q.Fields {
				qf := newQuestionField(f)
				c.fields = append(c.fields, qf)
				rows = append(rows, widget.NewLabel(qf.label), qf.cell())
			}
			objs = append(objs, formGrid(rows...))
			if slices.ContainsFunc(q.Fields, func(f hostapi.InputField) bool { return f.Required }) {
				objs = append(objs, hintLabel("* required"))
			}
		}
		c.answer = widget.NewButton("Answer", func() {
			content, _ := json.Marshal(c.values())
			w.answerQuestion(c, hostapi.ActionAccept, content)
		})
	}
	c.answer.Importance = widget.HighImportance
	objs = append(objs, hintLabel(fmt.Sprintf("Cancelled at %s unless you answer.", w.approvals.clock(q.Deadline))),
		c.problem, container.NewHBox(c.answer, c.decline))
	c.obj = widget.NewCard("", "", container.NewVBox(objs...))
	return c
}

// newQuestionField builds a field's widget, filled with its default.
func newQuestionField(f hostapi.InputField) *questionField {
	qf := &questionField{f: f, label: f.Title, err: errorLabel()}
	if qf.label == "" {
		qf.label = f.Name
	}
	if f.Required {
		qf.label += " *"
	}
	labels := f.Enum
	if len(f.EnumNames) == len(f.Enum) {
		labels = f.EnumNames
	}
	switch {
	case f.Type == "boolean":
		qf.check = widget.NewCheck("", nil)
		var d bool
		if json.Unmarshal(f.Default, &d) == nil {
			qf.check.SetChecked(d)
		}
	case f.Type == "array":
		qf.group = widget.NewCheckGroup(labels, nil)
		var d []string
		if json.Unmarshal(f.Default, &d) == nil {
			var on []string
			for _, v := range d {
				if i := slices.Index(f.Enum, v); i >= 0 {
					on = append(on, labels[i])
				}
			}
			qf.group.SetSelected(on)
		}
	case len(f.Enum) > 0:
		qf.choice = widget.NewSelect(labels, nil)
		var d string
		if json.Unmarshal(f.Default, &d) == nil {
			if i := slices.Index(f.Enum, d); i >= 0 {
				qf.choice.SetSelectedIndex(i)
			}
		}
	default:
		qf.entry = widget.NewEntry()
		qf.entry.SetPlaceHolder(placeholder(f))
		var s string
		var n float64
		switch {
		case json.Unmarshal(f.Default, &s) == nil:
			qf.entry.SetText(s)
		case json.Unmarshal(f.Default, &n) == nil:
			qf.entry.SetText(strconv.FormatFloat(n, 'f', -1, 64))
		}
	}
	return qf
}

// cell is the field's widget, its description and its problem.
func (qf *questionField) cell() fyne.CanvasObject {
	var in fyne.CanvasObject
	switch {
	case qf.check != nil:
		in = qf.check
	case qf.group != nil:
		in = qf.group
	case qf.choice != nil:
		in = qf.choice
	default:
		in = qf.entry
	}
	return container.NewVBox(in, hintLabel(qf.f.Description), qf.err)
}

// placeholder is a text box's hint: the format's shape, a number's range,
// a text's length.
func placeholder(f hostapi.InputField) string {
	switch f.Type {
	case "number", "integer":
		what := "a number"
		if f.Type == "integer" {
			what = "a whole number"
		}
		switch {
		case f.Minimum != nil && f.Maximum != nil:
			return fmt.Sprintf("%s from %s to %s", what, number(*f.Minimum), number(*f.Maximum))
		case f.Minimum != nil:
			return fmt.Sprintf("%s, at least %s", what, number(*f.Minimum))
		case f.Maximum != nil:
			return fmt.Sprintf("%s, at most %s", what, number(*f.Maximum))
		}
		return what
	}
	switch f.Format {
	case "email":
		return "an email address, like name@example.com"
	case "uri":
		return "an address, like https://example.com"
	case "date":
		return "a date, like 2026-12-05"
	case "date-time":
		return "a date and time, like 2026-12-05T14:30:00Z"
	}
	switch {
	case f.MinLength != nil && f.MaxLength != nil:
		return fmt.Sprintf("%d to %d characters", *f.MinLength, *f.MaxLength)
	case f.MinLength != nil:
		return fmt.Sprintf("at least %d characters", *f.MinLength)
	case f.MaxLength != nil:
		return fmt.Sprintf("at most %d characters", *f.MaxLength)
	}
	return ""
}

// values are the form's answer: each field the user filled (a number as
// typed: the host reads and checks it), a check box always.
func (c *questionCard) values() map[string]any {
	out := map[string]any{}
	for _, qf := range c.fields {
		f := qf.f
		switch {
		case qf.check != nil:
			out[f.Name] = qf.check.Checked
		case qf.group != nil:
			labels := qf.group.Options
			var vs []string
			for _, l := range qf.group.Selected {
				if i := slices.Index(labels, l); i >= 0 {
					vs = append(vs, f.Enum[i])
				}
			}
			if len(vs) > 0 {
				out[f.Name] = vs
			}
		case qf.choice != nil:
			if i := qf.choice.SelectedIndex(); i >= 0 {
				out[f.Name] = f.Enum[i]
			}
		default:
			if s := qf.entry.Text; strings.TrimSpace(s) != "" {
				out[f.Name] = s
			}
		}
	}
	return out
}

// showProblems shows the host's problems beside their fields ("" text
// clears them).
func (c *questionCard) showProblems(err error) {
	for _, qf := range c.fields {
		setText(qf.err, "")
	}
	setText(c.problem, "")
	if err == nil {
		return
	}
	he, ok := hostError(err)
	if !ok || len(he.Problems) == 0 {
		setText(c.problem, "Not sent: "+err.Error())
		return
	}
	var rest []string
	for _, p := range he.Problems {
		i := slices.IndexFunc(c.fields, func(qf *questionField) bool { return qf.f.Name == p.Key })
		if i < 0 {
			msg := p.Message
			if p.Key != "" {
				msg = p.Key + " " + msg
			}
			rest = append(rest, msg)
			continue
		}
		qf := c.fields[i]
		label := strings.TrimSuffix(qf.label, " *")
		text := label + " " + p.Message
		if qf.err.Text != "" {
			text = qf.err.Text + "\n" + text
		}
		setText(qf.err, text)
	}
	msg := "Not sent: correct the fields marked in red."
	if len(rest) > 0 {
		msg = "Not sent: " + strings.Join(rest, "; ")
	}
	setText(c.problem, msg)
}

// answerQuestion sends an answer to the host; the card goes when the
// host's waiting set no longer holds it.
func (w *Window) answerQuestion(c *questionCard, action string, content json.RawMessage) {
	c.answer.Disable()
	c.decline.Disable()
	q := c.q
	w.call(func(ctx context.Context) error { return w.live.Answer(ctx, q.ID, action, content) }, func(err error) {
		c.answer.Enable()
		c.decline.Enable()
		c.showProblems(err)
		if err != nil {
			w.setStatus(fmt.Sprintf("The answer to %s's question was not sent: see the card.", q.Server), true)
			return
		}
		done := "Answered"
		if action == hostapi.ActionDecline {
			done = "Declined"
		}
		w.setStatus(fmt.Sprintf("%s %s's question.", done, q.Server), false)
	})
}

// askOpen confirms the page's host, then opens the page in the browser
// and tells the server the user opened it.
func (w *Window) askOpen(c *questionCard) {
	q := c.q
	u, err := url.Parse(q.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Hostname() != q.URLHost {
		setText(c.problem, fmt.Sprintf("The page's address %q is not a web address on %s: decline the question.", q.URL, q.URLHost))
		return
	}
	d := dialog.NewConfirm("Open a page on "+q.URLHost+"?",
		fmt.Sprintf("%s asks you to open\n%s\nin your browser. Open it only if you expect %s to ask you for this (a sign-in, a payment).", q.Server, q.URL, q.URLHost),
		func(ok bool) {
			if !ok {
				return
			}
			if err := w.app.OpenURL(u); err != nil {
				setText(c.problem, fmt.Sprintf("Cannot open %s: %v", q.URL, err))
				return
			}
			w.answerQuestion(c, hostapi.ActionAccept, nil)
		}, w.win)
	d.SetConfirmText("Open " + q.URLHost)
	d.SetDismissText("Not now")
	w.confirm = d
	w.escapable(d, nil)
}

// shortHost is a host as a button names it: a long one keeps its end
// (the domain that owns it), so that the button keeps the window's width.
func shortHost(h string) string {
	const most = 40
	if r := []rune(h); len(r) > most {
		return "…" + string(r[len(r)-most+1:])
	}
	return h
}
