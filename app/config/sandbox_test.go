package config

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

func sandboxEntry(t *testing.T, entry string) (*Server, serverspec.Policy) {
	t.Helper()
	s, err := ParseServer("srv", []byte(entry))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := s.SandboxPolicy()
	return s, p
}

func TestSandboxPresets(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	cases := []struct {
		entry string
		want  serverspec.Policy
	}{
		{`{"command": "x"}`, serverspec.Policy{}},
		{`{"command": "x", "sandbox": "off"}`, serverspec.Policy{}},
		{`{"command": "x", "sandbox": "strict"}`, serverspec.Policy{Enabled: true, Preset: "strict", Net: "none", Required: true}},
		{`{"command": "x", "sandbox": "network"}`, serverspec.Policy{Enabled: true, Preset: "network", Net: "outbound", Required: true}},
		{`{"command": "x", "sandbox": "strict", "sandboxRequired": false}`, serverspec.Policy{Enabled: true, Preset: "strict", Net: "none"}},
		{`{"command": "x", "args": ["-y", "pkg", "` + dir + `", "/does/not/exist"], "sandbox": "files"}`,
			serverspec.Policy{Enabled: true, Preset: "files", Net: "none", Required: true, Write: []string{dir}}},
		{`{"command": "x", "args": ["` + dir + `"], "sandbox": {"preset": "files", "read": ["~/notes", "${HOME}/docs"], "write": ["/srv/out/"]}}`,
			serverspec.Policy{Enabled: true, Preset: "files", Net: "none", Required: true,
				Read: []string{filepath.Join(home, "notes"), filepath.Join(home, "docs")}, Write: []string{"/srv/out"}}},
		{`{"command": "x", "sandbox": {"preset": "network", "net": "none"}}`, serverspec.Policy{Enabled: true, Preset: "network", Net: "none", Required: true}},
		{`{"command": "x", "sandbox": {"net": ["api.example.com:443", "10.0.0.1:8080"]}}`,
			serverspec.Policy{Enabled: true, Net: "allow", NetAllow: []string{"api.example.com:443", "10.0.0.1:8080"}, Required: true}},
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
		if !slices.ContainsFunc(ps, func(p Problem) bool { return p.Key == c.key && strings.Contains(p.Message, c.words) }) {
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
	_, pa := sandboxEntry(t, `{"command":"x","sandbox":"strict"}`)
	_, pb := sandboxEntry(t, `{"command":"x","sandbox":"network"}`)
	ja, _ := json.Marshal(pa)
	jb, _ := json.Marshal(pb)
	if string(ja) == string(jb) {
		t.Errorf("the policy does not change with the sandbox: %s", ja)
	}
	// A new entry gets the key in the usual order.
	s := &Server{Command: "x", Sandbox: &Sandbox{Preset: "network"}}
	out, _ := json.Marshal(s)
	if !strings.Contains(string(out), `"sandbox":"network"`) {
		t.Errorf("new entry = %s", out)
	}
}

// TestSandboxUnix: "unix" lists the sockets the server may connect to,
// ~ and ${HOME} expanded, into the policy's Unix; a relative path is a
// problem on its key; it is written back as it was.
func TestSandboxUnix(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	s, pol := sandboxEntry(t, `{"command":"x","sandbox":{"preset":"strict","unix":["~/agent.sock","${HOME}/run/b.sock","/run/user/1000/c.sock"]}}`)
	if !s.Valid() {
		t.Fatalf("problems %v", s.Problems())
	}
	want := []string{filepath.Join(home, "agent.sock"), filepath.Join(home, "run", "b.sock"), "/run/user/1000/c.sock"}
	if !slices.Equal(pol.Unix, want) {
		t.Errorf("Unix = %q, want %q", pol.Unix, want)
	}
	out, _ := json.Marshal(s)
	if !strings.Contains(string(out), `"unix":["~/agent.sock","${HOME}/run/b.sock","/run/user/1000/c.sock"]`) {
		t.Errorf("written back as %s", out)
	}
	for _, preset := range SandboxPresets {
		_, pol := sandboxEntry(t, `{"command":"x","args":["`+home+`"],"sandbox":"`+preset+`"}`)
		if len(pol.Unix) != 0 {
			t.Errorf("preset %s grants sockets %q", preset, pol.Unix)
		}
	}
	for _, c := range []struct{ entry, key, words string }{
		{`{"command":"x","sandbox":{"unix":["agent.sock"]}}`, "sandbox.unix[0]", "relative path"},
		{`{"command":"x","sandbox":{"unix":"/a.sock"}}`, "sandbox.unix", ""},
	} {
		s, _ := sandboxEntry(t, c.entry)
		if !slices.ContainsFunc(s.Problems(), func(p Problem) bool { return p.Key == c.key && strings.Contains(p.Message, c.words) }) {
			t.Errorf("%s: problems %v, want one on %s", c.entry, s.Problems(), c.key)
		}
	}
}

// TestSandboxWideGrants: a read, write or unix entry that is /, the home
// folder or one that holds it, a shared install prefix, or a folder that
// holds (or lies in) a credential file or Switchboard's own state, after
// ".." and symbolic links, is a problem on its key with the remedy: the
// entry is invalid (never started). A narrow folder is not.
func TestSandboxWideGrants(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home", "u")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv(EnvConfig, "")
	t.Setenv("SWITCHBOARD_RUNTIME_DIR", "")
	for _, d := range []string{"Projects/notes", ".ssh", ".local/bin", ".config/switchboard", "elsewhere"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	// A link to home, and one to ~/.config: resolved before the check.
	if err := os.Symlink(home, filepath.Join(root, "home-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".config"), filepath.Join(home, "elsewhere", "cfg")); err != nil {
		t.Fatal(err)
	}
	// A host running in this process with another config folder.
	other := filepath.Join(root, "other-state")
	unregister := RegisterOwnState([]string{other})
	defer unregister()

	for _, c := range []struct{ list, path, words string }{
		{"read", "/", "root folder"},
		{"read", "~", "home folder"},
		{"write", "${HOME}", "home folder"},
		{"read", filepath.Join(root, "home"), "holds the home folder"},
		{"read", "~/Projects/..", "home folder"},
		{"read", filepath.Join(root, "home-link"), "home folder"},
		{"read", "~/.local", "~/.local"},
		{"read", "~/.ssh", "~/.ssh"},
		{"read", "~/.ssh/id_rsa", "inside ~/.ssh"},
		{"write", "~/.config", "~/.config"},
		{"write", "~/elsewhere/cfg", "~/.config"},
		{"read", "~/.config/switchboard", "~/.config/switchboard"},
		{"read", "~/.local/state", "~/.local/state/switchboard"},
		{"write", "~/.cache/switchboard/host.sock", "inside ~/.cache/switchboard"},
		{"unix", "~/.cache/switchboard/host.sock", "inside ~/.cache/switchboard"},
		{"unix", "~/.cache/switchboard/mcp.sock", "inside ~/.cache/switchboard"},
		{"read", root, "holds the home folder"},
		{"read", other, "other-state"},
	} {
		entry := `{"command":"x","sandbox":{"preset":"files","` + c.list + `":["` + c.path + `"]}}`
		s, pol := sandboxEntry(t, entry)
		key := "sandbox." + c.list + "[0]"
		if !slices.ContainsFunc(s.Problems(), func(p Problem) bool {
			return p.Key == key && strings.Contains(p.Message, c.words) && strings.Contains(p.Message, `"sandbox": "off"`) && strings.Contains(p.Message, "narrower folder")
		}) {
			t.Errorf("%s: problems %v, want one on %s saying %q with the remedy", entry, s.Problems(), key, c.words)
		}
		if s.Valid() || len(pol.Read)+len(pol.Write)+len(pol.Unix) != 0 {
			t.Errorf("%s: valid %v, policy %+v", entry, s.Valid(), pol)
		}
	}
	// The bare "files" with the home folder as an arg.
	s, _ := sandboxEntry(t, `{"command":"x","args":["`+home+`"],"sandbox":"files"}`)
	if s.Valid() || !strings.Contains(s.Problems()[0].Message, "home folder") || s.Problems()[0].Key != "sandbox" {
		t.Errorf("files with home in args: %v", s.Problems())
	}
	// Narrow folders are fine.
	s, pol := sandboxEntry(t, `{"command":"x","sandbox":{"preset":"files","read":["~/Projects/notes"],"write":["~/elsewhere"],"unix":["/run/user/1000/agent.sock"]}}`)
	if !s.Valid() || len(pol.Read) != 1 || len(pol.Write) != 1 || len(pol.Unix) != 1 {
		t.Errorf("narrow grants: problems %v, policy %+v", s.Problems(), pol)
	}
}

// TestStrictNote: "strict" on an entry whose args name existing folders
// gets a note (not a problem) saying "files" gives them; not when the
// folders are listed, nor for another preset, nor without such args.
func TestStrictNote(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	dir := t.TempDir()
	for _, c := range []struct {
		entry string
		note  bool
	}{
		{`{"command":"x","args":["-y","pkg","` + dir + `"],"sandbox":"strict"}`, true},
		{`{"command":"x","args":["-y","pkg","` + dir + `"],"sandbox":{"preset":"strict","net":"none"}}`, true},
		{`{"command":"x","args":["-y","pkg","` + dir + `"],"sandbox":{"preset":"strict","read":["` + dir + `"]}}`, false},
		{`{"command":"x","args":["-y","pkg","` + dir + `"],"sandbox":"network"}`, false},
		{`{"command":"x","args":["-y","pkg","` + dir + `"]}`, false},
		{`{"command":"x","args":["-y","pkg","/does/not/exist"],"sandbox":"strict"}`, false},
	} {
		s, _ := sandboxEntry(t, c.entry)
		if !s.Valid() {
			t.Errorf("%s: problems %v", c.entry, s.Problems())
		}
		ns := s.Notes("srv")
		if (len(ns) > 0) != c.note {
			t.Errorf("%s: notes %v, want a note: %v", c.entry, ns, c.note)
			continue
		}
		if c.note && (!ns[0].Warning || ns[0].Key != "sandbox" || !strings.Contains(ns[0].Message, `strict gives the server none of its folders: "files" does`) || !strings.Contains(ns[0].Message, dir)) {
			t.Errorf("%s: note %+v", c.entry, ns[0])
		}
	}
}
