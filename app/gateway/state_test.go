package gateway

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestTransientEveryState: every state the host gives (hostapi.States())
// is classified: a server whose last lists stay listed (it comes back by
// itself or once the user acts) or not. A remote server that cannot be
// reached is retrying, and keeps its lists as a restarting one does.
func TestTransientEveryState(t *testing.T) {
	gone := map[hostapi.State]bool{hostapi.StateFailed: true, hostapi.StateDisabled: true, hostapi.StateInvalid: true}
	for _, s := range hostapi.States() {
		if got := transient(&Server{State: s}); got == gone[s] {
			t.Errorf("transient(%q) = %v", s, got)
		}
	}
	if transient(&Server{State: hostapi.StateStopped, UserStopped: true}) {
		t.Error("a server the user stopped keeps its lists")
	}
}
