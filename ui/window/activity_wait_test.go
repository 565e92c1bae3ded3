package window

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestActivityDetailWait: the detail of a call that woke its server says
// how long it waited; one that went at once has no such line.
func TestActivityDetailWait(t *testing.T) {
	r := hostapi.ActivityRecord{Time: time.Now(), Server: "s", Kind: "tools/call", Target: "alpha", Outcome: "ok", DurationMs: 3, WaitMs: 1200}
	if got := activityDetail(r, time.UTC); !strings.Contains(got, "Waited    1.2 s for the server to start first") {
		t.Errorf("detail does not show the wait:\n%s", got)
	}
	r.WaitMs = 0
	if got := activityDetail(r, time.UTC); strings.Contains(got, "Waited") {
		t.Errorf("detail shows a wait of 0:\n%s", got)
	}
}

// TestActivityWording (issue 27 item 14): a complete argument's preview
// says it is complete, however much shorter than the arguments it is (a
// secret redacted, spaces compacted); only a cut one says it is cut; a
// record an older host wrote says it does not know. Durations are in one
// style ("1.5 s" and "1.9 ms", not "1.5036s" and "1.9ms"), and the day's
// counts are a line a server under a heading.
func TestActivityWording(t *testing.T) {
	yes, no := true, false
	r := hostapi.ActivityRecord{Time: time.Now(), Server: "s", Kind: "tools/call", Target: "t", Outcome: "ok",
		DurationMs: 1503.6, ArgBytes: 80, Preview: `{"token":"[secret api-key]"}`, PreviewCut: &no}
	got := activityDetail(r, time.UTC)
	if !strings.Contains(got, "Arguments (complete") || strings.Contains(got, "first") {
		t.Errorf("a complete preview:\n%s", got)
	}
	if !strings.Contains(got, "Duration  1.5 s\n") {
		t.Errorf("the duration:\n%s", got)
	}
	r.PreviewCut = &yes
	if got := activityDetail(r, time.UTC); !strings.Contains(got, "Arguments (cut: the first part of 80 bytes") {
		t.Errorf("a cut preview:\n%s", got)
	}
	r.PreviewCut = nil
	if got := activityDetail(r, time.UTC); !strings.Contains(got, "does not say whether it is cut") {
		t.Errorf("a preview of an older record:\n%s", got)
	}
	counts := countsText([]hostapi.ActivityCounts{{Server: "alpha", Calls: 3, Errors: 1, P50Ms: 1503.6}, {Server: "beta", Calls: 1, P50Ms: 1.9}})
	want := "Last 24 hours:\n    alpha: 3 calls, 1 error, median 1.5 s\n    beta: 1 call, 0 errors, median 1.9 ms"
	if counts != want {
		t.Errorf("counts:\n%s\nwant\n%s", counts, want)
	}
}

// TestGoldenActivity is the Activity place with fixed records: the
// table's rows, the day's counts a line a server, and a selected
// record's detail with a complete, redacted preview.
func TestGoldenActivity(t *testing.T) {
	w, _ := goldenWindow(t)
	activityScene(w)
	assertMarkup(t, w, "activity.xml")
}

// activityScene shows the Activity place with fixed records (the golden's
// and the screenshots').
func activityScene(w *Window) {
	w.showPlace(placeActivity)
	v := w.activity
	v.loc = time.UTC
	no := false
	at := func(d time.Duration) time.Time { return goldenNow.Add(-d) }
	v.show(hostapi.ActivityQueryResult{ActivityStatus: hostapi.ActivityStatus{On: true}, Records: []hostapi.ActivityRecord{
		{ID: 3, Time: at(time.Minute), App: "claude-ai", Conn: "bridge pid 4242", Server: "everything", Kind: "tools/call", Target: "echo",
			ArgBytes: 64, ResultBytes: 120, Preview: `{"message":"hello","token":"[secret api-key]"}`, PreviewCut: &no, DurationMs: 1.9, Outcome: "ok"},
		{ID: 2, Time: at(2 * time.Minute), App: "claude-ai", Conn: "bridge pid 4242", Server: "time", Kind: "tools/call", Target: "get_current_time",
			ArgBytes: 2, Preview: `{}`, PreviewCut: &no, DurationMs: 1503.6, Outcome: "tool_error"},
	}}, hostapi.ActivityCountsResult{Servers: []hostapi.ActivityCounts{
		{Server: "everything", Calls: 12, Errors: 0, P50Ms: 1.9}, {Server: "time", Calls: 3, Errors: 1, P50Ms: 1503.6}}})
	v.list.Select(0)
	setText(v.err, "") // the golden window's host is never connected
	w.win.Resize(fyne.NewSize(1120, 720))
}
