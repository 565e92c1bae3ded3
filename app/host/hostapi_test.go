package host

import (
	"reflect"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/gateway"
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

// TestWireMappingTags: hostapi's copy of the gateway's mapping has the
// same JSON names, field by field (wireMapping's conversions check the
// fields' names and types at compile time, but not their tags).
func TestWireMappingTags(t *testing.T) {
	pairs := [][2]any{
		{gateway.Mapping{}, hostapi.GatewayMapping{}},
		{gateway.MappedName{}, hostapi.MappedName{}},
		{gateway.MappedResource{}, hostapi.MappedResource{}},
		{gateway.MappedTemplate{}, hostapi.MappedTemplate{}},
		{gateway.Conflict{}, hostapi.Conflict{}},
	}
	for _, p := range pairs {
		a, b := reflect.TypeOf(p[0]), reflect.TypeOf(p[1])
		if a.NumField() != b.NumField() {
			t.Errorf("%v has %d fields, %v %d", a, a.NumField(), b, b.NumField())
			continue
		}
		for i := range a.NumField() {
			fa, fb := a.Field(i), b.Field(i)
			if fa.Name != fb.Name || fa.Tag.Get("json") != fb.Tag.Get("json") {
				t.Errorf("%v.%s `json:%q` differs from %v.%s `json:%q`", a, fa.Name, fa.Tag.Get("json"), b, fb.Name, fb.Tag.Get("json"))
			}
		}
	}
}
