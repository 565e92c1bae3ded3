package aiapps

import "testing"

// TestIsBridge: an entry that runs Switchboard's bridge, under any name,
// is never taken for a server (importing it would make the host run a
// bridge to itself).
func TestIsBridge(t *testing.T) {
	for _, c := range []struct {
		name, json string
		want       bool
	}{
		{EntryName, `{"command": "anything"}`, true},
		{"sb", `{"command": "/usr/bin/switchboard", "args": ["bridge"]}`, true},
		{"sb", `{"command": "C:\\Program Files\\Switchboard\\SWITCHBOARD.EXE", "args": ["bridge", "--servers", "a"]}`, true},
		{"sb", `{"command": "/usr/bin/switchboard-bridge", "args": ["bridge"]}`, true},
		{"sb", `{"command": "/usr/bin/switchboard-bridge"}`, true},
		{"sb", `{"command": "C:\\Program Files\\Switchboard\\switchboard-bridge.exe", "args": []}`, true},
		{"sb", `{"command": "/usr/bin/switchboard", "args": ["serve"]}`, false},
		{"sb", `{"command": "/usr/bin/switchboard"}`, false},
		{"gh", `{"command": "npx", "args": ["bridge"]}`, false},
		{"gh", `not json`, false},
	} {
		if got := (Server{Name: c.name, JSON: []byte(c.json)}).IsBridge(); got != c.want {
			t.Errorf("%s %s: %v", c.name, c.json, got)
		}
	}
}
