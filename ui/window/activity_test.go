package window

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestActivityPage: the Activity place lists the calls as the host
// records them, new ones as they come (the page polls), with a detail
// pane that shows the arguments' preview pretty-printed, the per-server
// counts of the last day, and filters that ask the host again.
func TestActivityPage(t *testing.T) {
	h := start(t, map[string]any{"alpha": helperEntry(), "beta": helperEntry()})
	h.state("alpha", hostapi.StateRunning)
	h.state("beta", hostapi.StateRunning)
	call := func(server, args string) {
		t.Helper()
		if err := h.call(func(ctx context.Context, c *client.Live) error {
			_, err := c.Call(ctx, server, "echo", json.RawMessage(args))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	call("alpha", `{"message":"first"}`)

	w := h.w
	w.showPlace(placeActivity)
	h.until("the activity page", func() bool { return w.activity != nil && len(w.activity.records) == 1 })
	v := w.activity
	if row := activityRow(v.records[0], time.Local); !strings.Contains(row, "alpha  echo  ok  switchboard") {
		t.Errorf("the row: %q", row)
	}
	h.until("the counts", func() bool { return strings.Contains(v.counts.Text, "alpha: 1 call, 0 errors") })

	// New calls come in while the page is shown, newest first.
	call("beta", `{"message":"second","times":2}`)
	call("alpha", `{"message":"third"}`)
	h.until("the new records", func() bool { return len(v.records) == 3 })
	if v.records[0].Server != "alpha" || v.records[1].Server != "beta" || v.records[2].Preview != `{"message":"first"}` {
		t.Errorf("records: %+v", v.records)
	}
	v.list.Select(1)
	for _, want := range []string{"Server    beta", "Request   tools/call echo", "Outcome   ok", "App       switchboard (api", "\"message\": \"second\",\n  \"times\": 2"} {
		if !strings.Contains(v.detail.Text, want) {
			t.Errorf("the detail lacks %q:\n%s", want, v.detail.Text)
		}
	}
	h.until("the counts of both", func() bool {
		return strings.Contains(v.counts.Text, "alpha: 2 calls") && strings.Contains(v.counts.Text, "beta: 1 call")
	})

	// Filters: a server, errors only, an app.
	v.server.Options = v.serverOptions()
	v.server.SetSelected("beta")
	h.until("beta's records", func() bool { return len(v.records) == 1 && v.records[0].Server == "beta" })
	test.Tap(v.errorsOnly)
	h.until("no errors", func() bool { return len(v.records) == 0 && !v.busy })
	test.Tap(v.errorsOnly)
	v.server.SetSelected(allServers)
	test.Type(v.app, "claude")
	h.until("no calls from claude", func() bool { return len(v.records) == 0 && !v.busy })
	v.app.SetText("switchboard")
	h.until("every call again", func() bool { return len(v.records) == 3 })
	if v.note.Visible() {
		t.Errorf("a note with the log on and nothing dropped: %q", v.note.Text)
	}
}
