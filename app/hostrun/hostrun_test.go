package hostrun_test

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/hostrun"
)

// TestOneStateEverywhere: an entry that does not run has the same state
// through the host's status API, the gateway's server list (what an AI
// app is told) and 'switchboard status' without a host: a disabled entry
// with problems is disabled in all three (the user said not to run it),
// an entry with problems invalid, a disabled one disabled.
func TestOneStateEverywhere(t *testing.T) {
	f, err := config.Parse([]byte(`{"mcpServers": {
		"dp":  {"command": "x", "comand": "y", "disabled": true},
		"bad": {"command": "x", "comand": "y"},
		"off": {"command": "x", "disabled": true}}}`))
	if err != nil {
		t.Fatal(err)
	}
	m := host.NewManager(host.ManagerOptions{Version: "test"})
	t.Cleanup(m.StopAll)
	m.Apply(host.ServerConfigs(f))

	want := map[string]hostapi.State{"dp": hostapi.StateDisabled, "bad": hostapi.StateInvalid, "off": hostapi.StateDisabled}
	got := map[string]map[string]hostapi.State{"status API": {}, "gateway": {}, "no-host status": {}}
	for _, st := range m.Status() {
		got["status API"][st.Name] = st.State
	}
	for _, s := range m.GatewayBackend().Servers() {
		got["gateway"][s.Name] = s.State
	}
	for _, st := range hostrun.Statuses(f, "", "PATH") {
		got["no-host status"][st.Name] = st.State
	}
	for where, states := range got {
		for name, w := range want {
			if states[name] != w {
				t.Errorf("%s: %s is %q, want %q", where, name, states[name], w)
			}
		}
	}
}
