//go:build linux

package host

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestActivityQuerySeesEndedCalls: a call that has ended is in the next
// activity.query and activity.counts at once, although the log's writer
// lingers to batch records ('switchboard call' then 'switchboard
// activity' showed nothing).
func TestActivityQuerySeesEndedCalls(t *testing.T) {
	th := runHostWith(t, nil, map[string]any{"b": helperEntry("modern", "b")}, func(o *Options) {
		o.StateDir = filepath.Join(filepath.Dir(o.RuntimeDir), "state")
	})
	th.waitRunning(t, "b")
	for i := range 3 {
		th.must(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "b", Tool: "echo", Arguments: json.RawMessage(`{"message":"hi"}`)}, nil)
		var q hostapi.ActivityQueryResult
		th.must(t, hostapi.MethodActivityQuery.Name, hostapi.ActivityQueryParams{Server: "b"}, &q)
		if len(q.Records) != i+1 {
			t.Fatalf("after %d calls, activity.query has %d records: %+v", i+1, len(q.Records), q.Records)
		}
		var c hostapi.ActivityCountsResult
		th.must(t, hostapi.MethodActivityCounts.Name, hostapi.ActivityCountsParams{}, &c)
		if len(c.Servers) != 1 || c.Servers[0].Calls != i+1 {
			t.Fatalf("after %d calls, activity.counts: %+v", i+1, c.Servers)
		}
	}
}
