package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestActivityLineWait: a record that waited for its server (a sleeping
// server woken) says how long, and one that did not says nothing of it.
func TestActivityLineWait(t *testing.T) {
	r := hostapi.ActivityRecord{Time: time.Now(), Server: "s", Kind: "tools/call", Target: "alpha", Outcome: "ok", DurationMs: 3, WaitMs: 1200}
	if got := activityRecordLine(r); !strings.Contains(got, "after waiting 1.2 s for the server to start") {
		t.Errorf("line %q does not show the wait", got)
	}
	r.WaitMs = 0
	if got := activityRecordLine(r); strings.Contains(got, "waiting") {
		t.Errorf("line %q shows a wait of 0", got)
	}
}

// TestActivityTable (issue 27 item 14): 'activity' prints a table with a
// header line whose columns line up with the rows', durations in one
// style ("1.5 s" beside "1.9 ms", not "1.5036s" beside "1.9ms"), and a
// cut preview marked as cut.
func TestActivityTable(t *testing.T) {
	yes, no := true, false
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.Local)
	rs := []hostapi.ActivityRecord{
		{Time: at, Server: "everything", Kind: "tools/call", Target: "echo", Outcome: "ok", DurationMs: 1503.6,
			App: "claude-ai", Conn: "bridge pid 7", ArgBytes: 20, Preview: `{"message":"hi"}`, PreviewCut: &no},
		{Time: at, Server: "t", Kind: "tools/call", Target: "get_current_time", Outcome: "tool_error", DurationMs: 1.9,
			ArgBytes: 5000, ResultBytes: 3, Preview: `{"s":"aaa…"}`, PreviewCut: &yes},
	}
	var b bytes.Buffer
	printActivity(&b, rs, true)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("printed %d lines:\n%s", len(lines), b.String())
	}
	head := lines[0]
	for _, col := range []string{"TIME", "SERVER", "REQUEST", "OUTCOME", "DURATION", "APP", "IN", "OUT", "ARGUMENTS"} {
		if !strings.Contains(head, col) {
			t.Errorf("the header %q lacks %s", head, col)
		}
	}
	requests := []string{"echo", "get_current_time"}
	for i, want := range []string{"1.5 s", "1.9 ms"} {
		row := lines[i+1]
		if strings.Index(row, want) != strings.Index(head, "DURATION") {
			t.Errorf("row %d: %q is not under DURATION:\n%s\n%s", i, want, head, row)
		}
		if strings.Index(row, requests[i]) != strings.Index(head, "REQUEST") {
			t.Errorf("row %d: the request is not under REQUEST:\n%s\n%s", i, head, row)
		}
	}
	if !strings.HasSuffix(lines[2], `{"s":"aaa…"} (cut)`) || strings.Contains(lines[1], "(cut)") {
		t.Errorf("the cut preview is not marked, or the whole one is:\n%s", b.String())
	}
	b.Reset()
	printActivity(&b, rs[:1], false)
	if strings.Contains(b.String(), "SERVER") {
		t.Errorf("a batch after the first printed the header again:\n%s", b.String())
	}
}
