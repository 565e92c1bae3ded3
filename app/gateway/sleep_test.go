package gateway

import (
	"context"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSleepingListed: a sleeping server's cached lists are listed (its
// first list does not wait for it: it is not starting), its tools are not
// hidden in the mapping, and when it runs and lists otherwise (a wrong
// cache) every client gets list_changed and the new list.
func TestSleepingListed(t *testing.T) {
	asleep := running("s", "a")
	asleep.State = hostapi.StateSleeping
	h := newHarness(t, "raw", asleep)
	changed := make(chan struct{}, 16)
	cs := h.connect(t, nil, "2025-11-25", &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	if got := toolNames(t, cs); !slices.Equal(got, []string{"s__a"}) {
		t.Fatalf("a sleeping server's tools: %v, want [s__a]", got)
	}
	m := h.g.Mapping()
	if len(m.Pending) != 0 || len(m.Tools) != 1 || m.Tools[0].Hidden != "" {
		t.Fatalf("mapping of a sleeping server: %+v", m)
	}
	h.fake.set(running("s", "a", "b"))
	h.g.Notify()
	deadline := time.After(wait)
	for !slices.Equal(toolNames(t, cs), []string{"s__a", "s__b"}) {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no list_changed with s__b: %v", toolNames(t, cs))
		}
	}
}
