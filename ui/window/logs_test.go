package window

import (
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestLogsTimes checks the time before each line: today's lines show the
// time of day, an older one its date too, a line from a host that sends
// no time none; the times are shown in the view's zone; the filter looks
// at the text only; followed lines that repeat the kept ones are dropped
// only when their time is the same too.
func TestLogsTimes(t *testing.T) {
	w, q := goldenWindow(t)
	w.openLogs("files")
	v := w.logs
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Skipf("no time zone database: %v", err)
	}
	v.loc = paris // goldenNow is 12:00 UTC, 13:00 in Paris (CET in winter, CEST in July: 14:00)
	at := func(d time.Duration) time.Time { return goldenNow.Add(-d) }
	kept := []hostapi.LogLine{
		{Server: "files", Line: "--- started, pid 1 ---", Time: at(48 * time.Hour)},
		{Server: "files", Line: "12:00 is in the text", Time: at(90 * time.Second)},
		{Server: "files", Line: "no time"},
		{Server: "files", Line: "same", Time: at(time.Second)},
	}
	// Lines followed before servers.logs answered: the first repeats the
	// last kept line; the second has its text but a later time (a second
	// line with the same text).
	v.early = []hostapi.LogLine{
		{Server: "files", Line: "same", Time: at(time.Second).In(time.FixedZone("X", 3600))}, // another zone, the same instant
		{Server: "files", Line: "same", Time: at(0)},
	}
	v.load(kept)
	q.pump()
	want := "Jul 26 14:00:00  --- started, pid 1 ---\n" +
		"13:58:30  12:00 is in the text\n" +
		"no time\n" +
		"13:59:59  same\n" +
		"14:00:00  same"
	if v.text.Text != want {
		t.Errorf("shown:\n%s\nwant:\n%s", v.text.Text, want)
	}
	test.Type(v.filter, "13:58") // a time is not text
	if v.count.Text != "0 of 5 lines" {
		t.Errorf("filtering on a time: %s, %q", v.count.Text, v.text.Text)
	}
	v.filter.SetText("12:00")
	if v.text.Text != "13:58:30  12:00 is in the text" {
		t.Errorf("filtering on text: %q", v.text.Text)
	}
	if !strings.HasPrefix(v.shown()[0], "13:58:30  ") {
		t.Errorf("shown: %q", v.shown())
	}
}

// TestLogsCountOfOne: the count line speaks of one line in the singular.
func TestLogsCountOfOne(t *testing.T) {
	w, q := goldenWindow(t)
	w.openLogs("files")
	v := w.logs
	v.load([]hostapi.LogLine{{Server: "files", Line: "--- started, pid 1 ---"}})
	q.pump()
	if v.count.Text != "1 line" {
		t.Errorf("one line is counted %q", v.count.Text)
	}
	test.Type(v.filter, "nothing like it")
	if v.count.Text != "0 of 1 line" {
		t.Errorf("one line filtered out is counted %q", v.count.Text)
	}
}
