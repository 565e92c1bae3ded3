package config

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

func sandboxEntry(t *testing.T, entry string) (*Server, sandbox.Policy) {
	t.Helper()
	s, err := ParseServer("srv", []byte(entry))
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := s.validate("srv")
	return s, spec.Sandbox
}

func TestSandboxPresets(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	cases := []struct {
		entry string
		want  sandbox.Policy
	}{
		{`{"command": "x"}`, sandbox.Policy{}},
		{`{"command": "x", "sandbox": "off"}`, sandbox.Policy{}},
		{`{"command": "x", "sandbox": "strict"}`, sandbox.Policy{Enabled: true, Preset: "strict", Net: "none", Required: true}},
		{`{"command": "x", "sandbox": "network"}`, sandbox.Policy{Enabled: true, Preset: "network", Net: "outbound", Required: true}},
		{`{"command": "x", "sandbox": "strict", "sandboxRequired": false}`, sandbox.Policy{Enabled: true, Preset: "strict", Net: "none"}},
		{`{"command": "x", "args": ["-y", "pkg", "` + dir + `", "/does/not/exist"], "sandbox": "files"}`,
			sandbox.Policy{Enabled: true, Preset: "files", Net: "none", Required: true, Write: []string{dir}}},
		{`{"command": "x", "args": ["` + dir + `"], "sandbox": {"preset": "files", "read": ["~/notes", "${HOME}/docs"], "write": ["/srv/out/"]}}`,
			sandbox.Policy{Enabled: true, Preset: "files", Net: "none", Required: true,
				Read: []string{filepath.Join(home, "notes"), filepath.Join(home, "docs")}, Write: []string{"/srv/out"}}},
		{`{"command": "x", "sandbox": {"preset": "network", "net": "none"}}`, sandbox.Policy{Enabled: true, Preset: "network", Net: "none", Required: true}},
		{`{"command": "x", "sandbox": {"net": ["api.example.com:443", "10.0.0.1:8080"]}}`,
			sandbox.Policy{Enabled: true, Net: "allow", NetAllow: []string{"api.example.com:443", "10.0.0.1:8080"}, Required: true}},
	}
	for _, c := range cases {
		s, got := sandboxEntry(t, c.entry)
		if !s.Valid() {
			t.Errorf("%s: problems %v", c.entry, s.Problems())
		}
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(c.want)
		if string(gj) != string(wj) {
			t.Errorf("%s:\n got %s\nwant %s", c.entry, gj, wj)
		}
	}
}

func TestSandboxProblems(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	cases := []struct{ entry, key, words string }{
		{`{"command": "x", "sandbox": "strickt"}`, "sandbox", "is not a preset"},
		{`{"command": "x", "sandbox": 3}`, "sandbox", "must be a preset or an object"},
		{`{"command": "x", "sandbox": {"read": ["data"]}}`, "sandbox.read[0]", "relative path"},
		{`{"command": "x", "sandbox": {"write": ["./out"]}}`, "sandbox.write[0]", "relative path"},
		{`{"command": "x", "sandbox": {"net": "everywhere"}}`, "sandbox.net", "not a network mode"},
		{`{"command": "x", "sandbox": {"net": ["example.com"]}}`, "sandbox.net[0]", `"host:port"`},
		{`{"command": "x", "sandbox": {"net": ["example.com:99999"]}}`, "sandbox.net[0]", `"host:port"`},
		{`{"command": "x", "sandbox": {"net": []}}`, "sandbox.net", "empty list"},
		{`{"command": "x", "sandbox": {"preset": "off"}}`, "sandbox.preset", "not a preset to extend"},
		{`{"command": "x", "sandbox": {"raed": []}}`, "sandbox.raed", "not a known key"},
		{`{"command": "x", "sandbox": "files"}`, "sandbox", "found no directory"},
		{`{"command": "x", "sandboxRequired": "no"}`, "sandboxRequired", "true or false"},
	}
	for _, c := range cases {
		s, _ := sandboxEntry(t, c.entry)
		ps := s.Problems()
		if !slices.ContainsFunc(ps, func(p Problem) bool { return p.Key == c.key && strings.Contains(p.Msg, c.words) }) {
			t.Errorf("%s: problems %v, want %s: ...%s...", c.entry, ps, c.key, c.words)
		}
		if len(ps) > 0 && !strings.HasPrefix(ps[0].Error(), "mcpServers.srv.") {
			t.Errorf("%s: problem path %q", c.entry, ps[0].Error())
		}
	}
}

// TestSandboxRoundTrip: the key is written back as it was, and a change
// of the sandbox changes the spec (the host's fingerprint: that server
// restarts, the others do not).
func TestSandboxRoundTrip(t *testing.T) {
	for _, entry := range []string{
		`{"command":"x","sandbox":"strict","sandboxRequired":false}`,
		`{"command":"x","sandbox":{"preset":"files","read":["~/a"],"write":["/b"],"net":["h:1"]}}`,
		`{"command":"x","sandbox":{"net":"outbound"}}`,
	} {
		s, _ := sandboxEntry(t, entry)
		out, err := json.Marshal(s)
		if err != nil || string(out) != entry {
			t.Errorf("round trip of %s = %s (%v)", entry, out, err)
		}
	}
	a, _ := sandboxEntry(t, `{"command":"x","sandbox":"strict"}`)
	b, _ := sandboxEntry(t, `{"command":"x","sandbox":"network"}`)
	sa, _ := a.Spec("srv")
	sb, _ := b.Spec("srv")
	ja, _ := json.Marshal(sa)
	jb, _ := json.Marshal(sb)
	if string(ja) == string(jb) {
		t.Errorf("the spec does not change with the sandbox: %s", ja)
	}
	// A new entry gets the key in the usual order.
	s := &Server{Command: "x", Sandbox: &Sandbox{Preset: "network"}}
	out, _ := json.Marshal(s)
	if !strings.Contains(string(out), `"sandbox":"network"`) {
		t.Errorf("new entry = %s", out)
	}
}
