package window

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// The Approvals place (issue 14): the tool calls waiting for the user,
// each with its app, server and tool, its arguments pretty-printed, and
// Allow once / Allow for this app / Always allow / Deny. It follows the
// live view's waiting set (the approvals event). The servers' questions
// for the user wait here too, above the calls (questions.go).

const placeApprovals = "approvals"

// approvalsLabel is the sidebar's label: short, and the same whatever
// waits, so that the sidebar keeps its width (the pages fit at 800
// pixels, TestFitsSmallScreen); the count shows as the button's icon
// (a warning while calls or questions wait) and in the page's title.
const approvalsLabel = "Approve"

// approvalsPlace is the sidebar's entry (one row of frame.go's places).
func approvalsPlace() *place {
	return &place{id: placeApprovals, label: approvalsLabel, icon: theme.QuestionIcon,
		show: func(w *Window) fyne.CanvasObject { return w.approvalsView().obj }}
}

// approvalsView is the place's content.
type approvalsView struct {
	obj   fyne.CanvasObject
	title *widget.Label
	empty *widget.Label
	list  *fyne.Container
	shown []string // the IDs of the cards, in order
	cards map[string]*approvalCard
	// qlist holds the questions' cards, above the calls' (questions.go);
	// asked are their IDs, in order.
	qlist     *fyne.Container
	asked     []string
	questions map[string]*questionCard
	loc       *time.Location // the zone deadlines are shown in (nil: local; tests: UTC)
}

// approvalCard is one waiting call.
type approvalCard struct {
	obj                      fyne.CanvasObject
	once, forApp, always, no *widget.Button
}

func (w *Window) approvalsView() *approvalsView {
	if w.approvals != nil {
		return w.approvals
	}
	v := &approvalsView{title: heading("Approvals"), cards: map[string]*approvalCard{},
		empty: widget.NewLabel("No tool call is waiting for your approval. A call waits here when its server's policy says \"ask\", or when its tool says it is destructive. " +
			"A server's question for you waits here too, when the app that made the call cannot ask it."),
		list: container.NewVBox(), qlist: container.NewVBox(), questions: map[string]*questionCard{}}
	v.empty.Wrapping = fyne.TextWrapWord
	v.obj = container.NewBorder(container.NewVBox(v.title, v.empty), nil, nil, nil, container.NewVScroll(container.NewVBox(v.qlist, v.list)))
	w.approvals = v
	w.updateApprovals(w.snap)
	return v
}

// updateApprovals shows a snapshot's waiting calls, and their count on
// the sidebar's button.
func (w *Window) updateApprovals(s client.Snapshot) {
	if b := w.nav[placeApprovals]; b != nil {
		icon := theme.QuestionIcon()
		if len(s.Approvals) > 0 || len(s.Requests) > 0 {
			icon = theme.WarningIcon()
		}
		if b.Icon != icon {
			b.SetIcon(icon)
		}
	}
	v := w.approvals
	if v == nil {
		return
	}
	ids := make([]string, len(s.Approvals))
	for i, a := range s.Approvals {
		ids[i] = a.ID
	}
	asked := v.updateQuestions(w, s) // questions.go
	if slices.Equal(ids, v.shown) && !asked {
		return
	}
	v.shown = ids
	objs := make([]fyne.CanvasObject, 0, len(s.Approvals))
	cards := map[string]*approvalCard{}
	for _, a := range s.Approvals {
		c := v.cards[a.ID]
		if c == nil {
			c = w.approvalCard(a)
		}
		cards[a.ID] = c
		objs = append(objs, c.obj)
	}
	v.cards = cards
	v.list.Objects = objs
	v.list.Refresh()
	var waiting []string
	if len(ids) > 0 {
		waiting = append(waiting, english.Plural(len(ids), "call"))
	}
	if len(v.asked) > 0 {
		waiting = append(waiting, english.Plural(len(v.asked), "question"))
	}
	if len(waiting) == 0 {
		v.empty.Show()
		v.title.SetText("Approvals")
	} else {
		v.empty.Hide()
		v.title.SetText(fmt.Sprintf("Approvals: %s waiting", strings.Join(waiting, " and ")))
	}
}

// approvalCard builds the card of a waiting call.
func (w *Window) approvalCard(a hostapi.Approval) *approvalCard {
	app := a.App
	if app == "" {
		app = "An app"
	}
	if a.Conn != "" {
		app += " (" + a.Conn + ")"
	}
	head := widget.NewLabelWithStyle(fmt.Sprintf("%s wants to call %s on %s", app, a.Tool, a.Server), fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	head.Wrapping = fyne.TextWrapWord
	why := widget.NewLabel(fmt.Sprintf("Asked because %s. Denied at %s unless you decide.", a.Why, w.approvals.clock(a.Deadline)))
	why.Wrapping = fyne.TextWrapWord
	args := widget.NewLabelWithStyle(prettyArguments(a), fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	args.Wrapping = fyne.TextWrapBreak
	c := &approvalCard{}
	decide := func(decision, done string) func() {
		return func() {
			for _, b := range []*widget.Button{c.once, c.forApp, c.always, c.no} {
				b.Disable()
			}
			w.call(func(ctx context.Context) error { return w.live.Decide(ctx, a.ID, decision) }, func(err error) {
				if err != nil {
					for _, b := range []*widget.Button{c.once, c.forApp, c.always, c.no} {
						b.Enable()
					}
					w.showErr(err)
					return
				}
				w.setStatus(fmt.Sprintf("%s %s's %s", done, a.Server, a.Tool), false)
			})
		}
	}
	c.once = widget.NewButton("Allow once", decide(hostapi.DecideOnce, "Allowed"))
	c.once.Importance = widget.HighImportance
	c.forApp = widget.NewButton("Allow for this app", decide(hostapi.DecideApp, "Allowed, until the app disconnects,"))
	c.always = widget.NewButton("Always allow", decide(hostapi.DecideAlways, "Always allowed"))
	c.no = widget.NewButton("Deny", decide(hostapi.DecideDeny, "Denied"))
	c.no.Importance = widget.DangerImportance
	c.obj = widget.NewCard("", "", container.NewVBox(head, why, args, container.NewHBox(c.once, c.forApp, c.always, c.no)))
	return c
}

// clock is a deadline's time of day, in the view's zone.
func (v *approvalsView) clock(t time.Time) string {
	if v != nil && v.loc != nil {
		t = t.In(v.loc)
	} else {
		t = t.Local()
	}
	return t.Format(time.TimeOnly)
}

// prettyArguments are a call's arguments indented, or their size when
// they are too large to carry.
func prettyArguments(a hostapi.Approval) string {
	if a.Arguments == nil {
		return fmt.Sprintf("(arguments of %d bytes, too large to show)", a.ArgumentBytes)
	}
	var b bytes.Buffer
	if json.Indent(&b, a.Arguments, "", "  ") != nil {
		return string(a.Arguments)
	}
	return b.String()
}

// ShowApprovals shows the window at its Approvals place (the tray's
// "1 request waiting: review").
func (w *Window) ShowApprovals() {
	w.Show()
	w.showPlace(placeApprovals)
}
