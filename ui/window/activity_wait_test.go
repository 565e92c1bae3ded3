package window

import (
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestActivityDetailWait: the detail of a call that woke its server says
// how long it waited; one that went at once has no such line.
func TestActivityDetailWait(t *testing.T) {
	r := hostapi.ActivityRecord{Time: time.Now(), Server: "s", Kind: "tools/call", Target: "alpha", Outcome: "ok", DurationMs: 3, WaitMs: 1200}
	if got := activityDetail(r); !strings.Contains(got, "Waited    1.2s for the server to start first") {
		t.Errorf("detail does not show the wait:\n%s", got)
	}
	r.WaitMs = 0
	if got := activityDetail(r); strings.Contains(got, "Waited") {
		t.Errorf("detail shows a wait of 0:\n%s", got)
	}
}
