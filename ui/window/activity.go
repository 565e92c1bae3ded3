package window

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// The Activity place (issue 14 §1): the activity log's records, newest
// first, with filters (server, app, errors only), a detail pane with the
// arguments' preview, and per-server counts over the last day. It follows
// the log by asking the host for the records after the newest it has
// (activity.query's afterId) every activityPoll while it is shown.

const (
	placeActivity = "activity"
	allServers    = "All servers"
	// activityPoll is how often the page asks for new records.
	activityPoll = time.Second
	// maxActivityRows is how many records the page keeps.
	maxActivityRows = 2000
)

// activityView is the Activity page.
type activityView struct {
	w          *Window
	server     *widget.Select
	app        *widget.Entry
	errorsOnly *widget.Check
	note       *widget.Label // the log off, its problem, dropped records
	counts     *widget.Label // per server over the last day
	list       *widget.List
	detail     *widget.Label // the selected record, selectable
	err        *widget.Label
	obj        fyne.CanvasObject

	records  []hostapi.ActivityRecord // newest first
	selected int64                    // the selected record's ID, 0: none
	last     int64                    // the newest ID fetched
	gen      int                      // bumped when the filters change: older answers are dropped
	busy     bool                     // a poll is under way
	stopped  chan struct{}
	loc      *time.Location // the zone times are shown in (tests: UTC)
}

func (w *Window) openActivity() {
	v := &activityView{w: w, stopped: make(chan struct{}), loc: time.Local}
	v.server = widget.NewSelect(v.serverOptions(), func(string) { v.reload() })
	v.server.SetSelected(allServers)
	v.app = widget.NewEntry()
	v.app.SetPlaceHolder("App (claude-ai, cursor-vscode…)")
	v.app.OnChanged = func(string) { v.reload() }
	v.errorsOnly = widget.NewCheck("Errors only", func(bool) { v.reload() })
	v.note = widget.NewLabel("")
	v.note.Wrapping = fyne.TextWrapWord
	v.note.Hide()
	v.counts = selectableLabel("")
	v.counts.Wrapping = fyne.TextWrapWord
	v.err = errorLabel()
	v.detail = selectableLabel("Select a record to see its details and arguments.")
	v.detail.TextStyle = fyne.TextStyle{Monospace: true}
	v.detail.Wrapping = fyne.TextWrapBreak
	v.list = widget.NewList(func() int { return len(v.records) },
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(i widget.ListItemID, o fyne.CanvasObject) {
			if i < len(v.records) {
				o.(*widget.Label).SetText(activityRow(v.records[i], v.loc))
			}
		})
	v.list.OnSelected = func(i widget.ListItemID) {
		if i < len(v.records) {
			v.selected = v.records[i].ID
			v.detail.SetText(activityDetail(v.records[i], v.loc))
		}
	}
	filters := container.NewBorder(nil, nil, v.server, v.errorsOnly, v.app)
	top := container.NewVBox(filters, v.note, v.counts, v.err)
	split := container.NewHSplit(v.list, container.NewVScroll(v.detail))
	split.Offset = 0.55
	v.obj = container.NewBorder(top, nil, nil, nil, split)
	w.open(&page{title: "Activity", obj: v.obj, reload: v.reload, close: func() { close(v.stopped) }})
	w.activity = v
	go v.tick()
	v.reload()
}

// serverOptions are the servers the host has, after "All servers".
func (v *activityView) serverOptions() []string {
	opts := []string{allServers}
	for _, s := range v.w.snap.Servers {
		opts = append(opts, s.Name)
	}
	return opts
}

// tick asks for new records every activityPoll while the page is shown.
func (v *activityView) tick() {
	t := time.NewTicker(activityPoll)
	defer t.Stop()
	for {
		select {
		case <-v.stopped:
			return
		case <-v.w.ctx.Done():
			return
		case <-t.C:
			v.w.opts.Do(v.poll)
		}
	}
}

// params are the filters as activity.query's.
func (v *activityView) params() hostapi.ActivityQueryParams {
	p := hostapi.ActivityQueryParams{App: strings.TrimSpace(v.app.Text), ErrorsOnly: v.errorsOnly.Checked, Limit: maxActivityRows}
	if s := v.server.Selected; s != allServers {
		p.Server = s
	}
	return p
}

// reload fetches the records again (the filters changed, or Refresh).
func (v *activityView) reload() {
	if v.list == nil {
		return // still being built
	}
	v.gen++
	v.records, v.last, v.selected = nil, 0, 0
	v.list.UnselectAll()
	v.list.Refresh()
	v.busy = false
	v.fetch()
}

// poll fetches the records after the newest one shown.
func (v *activityView) poll() {
	if v.w.activity != v || v.busy {
		return
	}
	v.server.Options = v.serverOptions()
	v.fetch()
}

func (v *activityView) fetch() {
	gen, p := v.gen, v.params()
	p.AfterID = v.last
	v.busy = true
	var res hostapi.ActivityQueryResult
	var counts hostapi.ActivityCountsResult
	v.w.call(func(ctx context.Context) (err error) {
		if res, err = v.w.live.ActivityQuery(ctx, p); err != nil {
			return err
		}
		if len(res.Records) > 0 || p.AfterID == 0 {
			counts, err = v.w.live.ActivityCounts(ctx, hostapi.ActivityCountsParams{})
		}
		return err
	}, func(err error) {
		if v.w.activity != v || gen != v.gen {
			return // left, or the filters changed meanwhile
		}
		v.busy = false
		if err != nil {
			setText(v.err, err.Error())
			return
		}
		setText(v.err, "")
		v.show(res, counts)
	})
}

// show adds the new records (newest first) and the counts.
func (v *activityView) show(res hostapi.ActivityQueryResult, counts hostapi.ActivityCountsResult) {
	setText(v.note, activityNote(res.ActivityStatus))
	if len(res.Records) > 0 {
		v.last = max(v.last, res.Records[0].ID)
		v.records = append(res.Records, v.records...)
		if len(v.records) > maxActivityRows {
			v.records = v.records[:maxActivityRows]
		}
		v.list.Refresh()
		if v.selected != 0 { // keep the selection on its record
			for i, r := range v.records {
				if r.ID == v.selected {
					v.list.Select(i)
					break
				}
			}
		}
	}
	if counts.Servers != nil {
		v.counts.SetText(countsText(counts.Servers))
	}
}

// activityNote says why nothing is recorded, or what was lost.
func activityNote(st hostapi.ActivityStatus) string {
	switch {
	case st.Problem != "":
		return "The activity log is not recorded: " + st.Problem
	case !st.On:
		return `The activity log is off ("activity": false in the config file): nothing is recorded.`
	case st.Dropped > 0:
		return fmt.Sprintf("%d records were dropped since the host started (the log's queue was full).", st.Dropped)
	}
	return ""
}

// countsText is the per-server counts of the last day: a heading, then
// a line a server (not one run-on paragraph: issue 27 item 14).
func countsText(cs []hostapi.ActivityCounts) string {
	if len(cs) == 0 {
		return "Last 24 hours: no calls."
	}
	lines := make([]string, 0, len(cs)+1)
	lines = append(lines, "Last 24 hours:")
	for _, c := range cs {
		lines = append(lines, fmt.Sprintf("    %s: %s, %s, median %s", c.Server, plural(c.Calls, "call"), plural(c.Errors, "error"), english.DurationMs(c.P50Ms)))
	}
	return strings.Join(lines, "\n")
}

// activityRow is a record in the list: time, server, what, outcome, app.
func activityRow(r hostapi.ActivityRecord, loc *time.Location) string {
	what := r.Target
	if r.Kind != "tools/call" {
		what = strings.TrimPrefix(r.Kind, "resources/") + " " + r.Target
	}
	app := r.App
	if app == "" {
		app = r.Conn
	}
	return termtext.Escape(fmt.Sprintf("%s  %s  %s  %s  %s", r.Time.In(loc).Format("15:04:05"), r.Server, what, outcomeWords(r), app))
}

func outcomeWords(r hostapi.ActivityRecord) string {
	switch r.Outcome {
	case "protocol_error":
		if r.Code != 0 {
			return fmt.Sprintf("protocol error %d", r.Code)
		}
		return "protocol error"
	case "tool_error":
		return "tool error"
	case "timed_out":
		return "timed out"
	}
	return r.Outcome
}

// activityDetail is a record in full, with its arguments' preview
// pretty-printed.
func activityDetail(r hostapi.ActivityRecord, loc *time.Location) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Time      %s\n", r.Time.In(loc).Format("2006-01-02 15:04:05.000"))
	fmt.Fprintf(&b, "App       %s (%s)\n", orNone(r.App), orNone(r.Conn))
	fmt.Fprintf(&b, "Server    %s\n", r.Server)
	fmt.Fprintf(&b, "Request   %s %s\n", r.Kind, r.Target)
	fmt.Fprintf(&b, "Outcome   %s\n", outcomeWords(r))
	fmt.Fprintf(&b, "Duration  %s\n", english.DurationMs(r.DurationMs))
	if r.WaitMs > 0 {
		fmt.Fprintf(&b, "Waited    %s for the server to start first\n", english.DurationMs(r.WaitMs))
	}
	fmt.Fprintf(&b, "Sizes     %d bytes of arguments, %d of result\n", r.ArgBytes, r.ResultBytes)
	if r.Approval != "" {
		fmt.Fprintf(&b, "Approval  %s\n", r.Approval)
	}
	b.WriteString("\nArguments")
	switch {
	case r.Preview == "":
		b.WriteString(": none\n")
	default:
		b.WriteString(previewWords(r))
		b.WriteString("\n")
		var out bytes.Buffer
		if json.Indent(&out, []byte(r.Preview), "", "  ") == nil {
			b.WriteString(out.String())
		} else {
			b.WriteString(r.Preview)
		}
		b.WriteString("\n")
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	for i, l := range lines {
		lines[i] = termtext.Escape(l) // an app's and a server's text, shown escaped
	}
	return strings.Join(lines, "\n")
}

// previewWords says how much of the arguments the preview holds: all of
// them, or a cut part; the preview's length beside the arguments' size
// cannot say (redaction and compaction change it: issue 27 item 14), the
// host's record does. A record an earlier host wrote does not say.
func previewWords(r hostapi.ActivityRecord) string {
	switch {
	case r.PreviewCut == nil:
		return " (as recorded, secrets redacted: this record does not say whether it is cut)"
	case *r.PreviewCut:
		return fmt.Sprintf(" (cut: the first part of %d bytes, secrets redacted)", r.ArgBytes)
	}
	return " (complete, secrets redacted)"
}

func orNone(s string) string {
	if s == "" {
		return "(none given)"
	}
	return s
}
