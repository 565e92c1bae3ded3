package window

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// maxLogLines is how many lines the logs view keeps (the host keeps the
// last 1000 of a server's stderr).
const maxLogLines = 5000

// logsView shows a server's captured stderr: what the host kept
// (servers.logs), then each new line as the host publishes it
// (live.FollowLogs), each after the local time the host read it, with a
// filter and a copy button.
type logsView struct {
	w      *Window
	server string
	lines  []logLine         // every line, oldest first
	early  []hostapi.LogLine // lines that came before servers.logs answered
	loaded bool
	loc    *time.Location // the zone of the times shown: the local one

	filter  *widget.Entry
	follow  *widget.Check // keep the newest line in view
	copyB   *widget.Button
	count   *widget.Label
	text    *widget.Label // selectable, monospace
	scroll  *container.Scroll
	err     *widget.Label
	obj     fyne.CanvasObject
	stopped chan struct{}

	mu        sync.Mutex
	pending   []hostapi.LogLine
	scheduled bool
}

// logLine is a line as the view keeps it: its text escaped for the
// screen, and when the host read it (zero from an older host).
type logLine struct {
	at   time.Time
	text string
}

func (w *Window) openLogs(name string) {
	v := &logsView{w: w, server: name, stopped: make(chan struct{}), loc: time.Local}
	v.filter = widget.NewEntry()
	v.filter.SetPlaceHolder("Filter: show only the lines that contain this text")
	v.filter.OnChanged = func(string) { v.render() }
	v.copyB = widget.NewButtonWithIcon("Copy", theme.ContentCopyIcon(), v.copyShown)
	v.count = widget.NewLabel("")
	v.text = selectableLabel("")
	v.text.TextStyle = fyne.TextStyle{Monospace: true}
	v.scroll = container.NewScroll(v.text)
	v.follow = widget.NewCheck("Follow", func(on bool) {
		if on {
			v.scroll.ScrollToBottom()
		}
	})
	v.follow.SetChecked(true)
	v.err = errorLabel()
	top := container.NewVBox(
		container.NewBorder(nil, nil, nil, container.NewHBox(v.follow, v.copyB, v.count), v.filter),
		v.err)
	v.obj = container.NewBorder(top, nil, nil, nil, v.scroll)

	// Subscribe before reading what the host kept, so no line falls
	// between; the overlap is dropped when the two meet (see load).
	ch, cancel := w.live.FollowLogs()
	go v.collect(ch)
	w.open(&page{title: "Logs of " + name, obj: v.obj, reload: v.fetch, close: func() {
		cancel()
		close(v.stopped)
	}})
	w.logs = v
	v.fetch()
	w.focus(v.filter)
}

// collect passes the server's published lines to the UI goroutine, one
// hand-over per burst.
func (v *logsView) collect(ch <-chan hostapi.LogLine) {
	for {
		select {
		case <-v.stopped:
			return
		case <-v.w.ctx.Done():
			return
		case l := <-ch:
			if l.Server != v.server {
				continue
			}
			v.mu.Lock()
			v.pending = append(v.pending, l)
			schedule := !v.scheduled
			v.scheduled = true
			v.mu.Unlock()
			if schedule {
				v.w.opts.Do(v.flush)
			}
		}
	}
}

// flush shows the lines collected since the last flush.
func (v *logsView) flush() {
	v.mu.Lock()
	lines := v.pending
	v.pending, v.scheduled = nil, false
	v.mu.Unlock()
	if v.w.logs != v {
		return // the page was left
	}
	if !v.loaded {
		v.early = append(v.early, lines...)
		return
	}
	v.append(lines)
}

// fetch reads the lines the host kept (again, on Refresh).
func (v *logsView) fetch() {
	var kept []hostapi.LogLine
	v.w.call(func(ctx context.Context) (err error) {
		kept, err = v.w.live.LogLines(ctx, v.server)
		return err
	}, func(err error) {
		if v.w.logs != v {
			return
		}
		if err != nil {
			setText(v.err, err.Error())
			return
		}
		setText(v.err, "")
		v.load(kept)
	})
}

// load shows the kept lines, then those that came meanwhile, less the
// ones the kept lines already end with.
func (v *logsView) load(kept []hostapi.LogLine) {
	more := v.early
	v.early = nil
	v.loaded = true
	v.lines = nil
	v.append(kept)
	v.append(more[overlap(kept, more):])
}

// overlap returns the length of the longest prefix of b that a ends with
// (the same text read at the same time).
func overlap(a, b []hostapi.LogLine) int {
	for k := min(len(a), len(b)); k > 0; k-- {
		match := true
		for i := 0; i < k; i++ {
			if x, y := a[len(a)-k+i], b[i]; x.Line != y.Line || !x.Time.Equal(y.Time) { // Equal: zones decode apart
				match = false
				break
			}
		}
		if match {
			return k
		}
	}
	return 0
}

func (v *logsView) append(lines []hostapi.LogLine) {
	if len(lines) == 0 && v.text.Text != "" {
		return
	}
	for _, l := range lines {
		v.lines = append(v.lines, logLine{at: l.Time, text: termtext.Escape(l.Line)}) // a server's bytes, shown escaped
	}
	if n := len(v.lines) - maxLogLines; n > 0 {
		v.lines = append([]logLine(nil), v.lines[n:]...)
	}
	v.render()
}

// shown returns the lines the filter lets through (it looks at their
// text, not their times), each after its time.
func (v *logsView) shown() []string {
	f := strings.ToLower(strings.TrimSpace(v.filter.Text))
	var out []string
	for _, l := range v.lines {
		if f == "" || strings.Contains(strings.ToLower(l.text), f) {
			out = append(out, v.stamp(l.at)+l.text)
		}
	}
	return out
}

// stamp returns how a line's time shows before it: the local time of day
// to the second for a line of today, with the date for an older one, and
// nothing for a line that came with no time.
func (v *logsView) stamp(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	at = at.In(v.loc)
	y, m, d := at.Date()
	if ny, nm, nd := v.w.opts.Now().In(v.loc).Date(); y == ny && m == nm && d == nd {
		return at.Format("15:04:05  ")
	}
	return at.Format("Jan 2 15:04:05  ")
}

func (v *logsView) render() {
	lines := v.shown()
	switch {
	case len(v.lines) == 0:
		v.count.SetText("no lines")
	case len(lines) == len(v.lines):
		v.count.SetText(english.Plural(len(lines), "line"))
	default:
		v.count.SetText(fmt.Sprintf("%d of %s", len(lines), english.Plural(len(v.lines), "line")))
	}
	text := strings.Join(lines, "\n")
	if len(v.lines) == 0 {
		text = "(no output captured yet)"
	}
	v.text.SetText(text)
	if v.follow.Checked {
		v.scroll.ScrollToBottom()
	}
}

// copyShown copies the lines shown (all of them, or those the filter
// lets through) to the clipboard.
func (v *logsView) copyShown() {
	lines := v.shown()
	v.w.app.Clipboard().SetContent(strings.Join(lines, "\n"))
	v.w.setStatus("Copied "+english.Plural(len(lines), "line")+" to the clipboard.", false)
}
