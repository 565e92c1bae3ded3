package cli

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestActivityLineWait: a record that waited for its server (a sleeping
// server woken) says how long, and one that did not says nothing of it.
func TestActivityLineWait(t *testing.T) {
	r := hostapi.ActivityRecord{Time: time.Now(), Server: "s", Kind: "tools/call", Target: "alpha", Outcome: "ok", DurationMs: 3, WaitMs: 1200}
	if got := activityRecordLine(r); !strings.Contains(got, "after waiting 1.2s for the server to start") {
		t.Errorf("line %q does not show the wait", got)
	}
	r.WaitMs = 0
	if got := activityRecordLine(r); strings.Contains(got, "waiting") {
		t.Errorf("line %q shows a wait of 0", got)
	}
}
