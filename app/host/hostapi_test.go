package host

import (
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// TestSupervisorStatesInContract: every state the supervisor reports is
// one of hostapi's, spelled the same (the host passes it through as it
// is, and the clients read it through hostapi's predicates).
func TestSupervisorStatesInContract(t *testing.T) {
	sup := []supervisor.State{supervisor.Stopped, supervisor.Starting, supervisor.Running, supervisor.Backoff,
		supervisor.WaitingSecret, supervisor.Failed, supervisor.Stopping}
	known := hostapi.States()
	for _, s := range sup {
		if !slices.Contains(known, hostapi.State(s)) {
			t.Errorf("the supervisor's state %q is not in hostapi.States(): add it there with its predicates", s)
		}
	}
}
