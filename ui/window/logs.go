package window

import (
	"context"
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"strings"
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// maxLogLines is how many lines the logs view keeps (the host keeps the
// last 1000 of a server's stderr).
const maxLogLines = 5000

// logsView shows a server's captured stderr: what the host kept
// (servers.logs), then each new line as the host publishes it
// (live.FollowLogs), with a filter and a copy button.
type logsView struct {
	w      *Window
	server string
	lines  []string // every line, oldest first
	early  []string // lines that came before servers.logs answered
	loaded bool

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
	pending   []string
	scheduled bool
}

func (w *Window) openLogs(name string) {
	v := &logsView{w: w, server: name, stopped: make(chan struct{})}
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
			v.pending = append(v.pending, l.Line)
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
	var res hostapi.LogsResult
	v.w.call(func(ctx context.Context) (err error) {
		res.Lines, err = v.w.live.Logs(ctx, v.server)
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
		v.load(res.Lines)
	})
}

// load shows the kept lines, then those that came meanwhile, less the
// ones the kept lines already end with.
func (v *logsView) load(kept []string) {
	more := v.early
	v.early = nil
	v.loaded = true
	v.lines = nil
	v.append(kept)
	v.append(more[overlap(kept, more):])
}

// overlap returns the length of the longest prefix of b that a ends with.
func overlap(a, b []string) int {
	for k := min(len(a), len(b)); k > 0; k-- {
		match := true
		for i := 0; i < k; i++ {
			if a[len(a)-k+i] != b[i] {
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

func (v *logsView) append(lines []string) {
	if len(lines) == 0 && v.text.Text != "" {
		return
	}
	v.lines = append(v.lines, termtext.Lines(lines)...) // a server's bytes, shown escaped
	if n := len(v.lines) - maxLogLines; n > 0 {
		v.lines = append([]string(nil), v.lines[n:]...)
	}
	v.render()
}

// shown returns the lines the filter lets through.
func (v *logsView) shown() []string {
	f := strings.ToLower(strings.TrimSpace(v.filter.Text))
	if f == "" {
		return v.lines
	}
	var out []string
	for _, l := range v.lines {
		if strings.Contains(strings.ToLower(l), f) {
			out = append(out, l)
		}
	}
	return out
}

func (v *logsView) render() {
	lines := v.shown()
	switch {
	case len(v.lines) == 0:
		v.count.SetText("no lines")
	case len(lines) == len(v.lines):
		v.count.SetText(fmt.Sprintf("%d lines", len(lines)))
	default:
		v.count.SetText(fmt.Sprintf("%d of %d lines", len(lines), len(v.lines)))
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
	v.w.setStatus(fmt.Sprintf("Copied %d lines to the clipboard.", len(lines)), false)
}
