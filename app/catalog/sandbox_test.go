package catalog

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// Every template has a sandbox decision, and only known templates do.
func TestEveryTemplateHasASandbox(t *testing.T) {
	for _, s := range All() {
		f, ok := fits[s.Name]
		if !ok {
			t.Errorf("template %q has no sandbox fit: add it to fits", s.Name)
			continue
		}
		if !slices.Contains(config.SandboxPresets, f.preset) {
			t.Errorf("%s: preset %q", s.Name, f.preset)
		}
		for _, id := range f.write {
			if !slices.ContainsFunc(s.Fields, func(fd Field) bool {
				return fd.ID == id && (fd.Kind == Dir || fd.Kind == Dirs || fd.Kind == File)
			}) {
				t.Errorf("%s: write field %q is not one of its path fields", s.Name, id)
			}
		}
		if f.preset == config.SandboxOff && f.why == "" {
			t.Errorf("%s is off without a reason", s.Name)
		}
		if w := s.SandboxWords(); !strings.HasPrefix(w, "Sandbox: ") || len(w) < 20 {
			t.Errorf("%s: words %q", s.Name, w)
		}
	}
	for name := range fits {
		if _, ok := Lookup(name); !ok {
			t.Errorf("fits names %q, which is not a template", name)
		}
	}
}

// The presets the issue names: filesystem is files with the chosen
// directories in its write list, everything is strict, the web API
// servers are network.
func TestTemplateSandboxes(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	mem := filepath.Join(t.TempDir(), "graph.jsonl")
	cases := []struct {
		name string
		v    Values
		want string
	}{
		{"filesystem", Values{"dirs": {d1, " " + d2 + " ", d1}}, `{"preset": "files", "write": [` + q(d1) + `,` + q(d2) + `]}`},
		{"memory", Values{"file": {mem}}, `{"preset": "files", "write": [` + q(filepath.Dir(mem)) + `]}`},
		{"memory", Values{}, ``}, // no file chosen: unconfined (a bare "files" is refused by the config)
		{"git", Values{}, ``},
		{"git", Values{"repository": {d2}}, `{"preset": "files", "write": [` + q(d2) + `]}`},
		{"everything", nil, `"strict"`},
		{"fetch", nil, `"network"`},
		{"brave-search", Values{"key": {"k"}}, `"network"`},
		{"playwright", nil, ``},
	}
	for _, c := range cases {
		s, _ := Lookup(c.name)
		b, errs := s.Build(c.v)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", c.name, errs)
		}
		if string(b.Sandbox) != c.want {
			t.Errorf("%s: sandbox %s, want %s", c.name, b.Sandbox, c.want)
		}
		if b.Sandbox == nil {
			continue
		}
		// The config takes it (an entry with problems would not be saved).
		e, _ := json.Marshal(map[string]any{"command": b.Command, "args": b.Args, "sandbox": b.Sandbox})
		srv, err := config.ParseServer(c.name, e)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if ps := srv.Problems(); len(ps) > 0 {
			t.Errorf("%s: the entry has problems: %v", c.name, ps)
		}
	}
}

// Where the OS does not enforce a sandbox, the entry keeps the preset as
// its intent and says it is not required, so the server starts.
func TestTemplateSandboxOptionalElsewhere(t *testing.T) {
	defer func(e bool) { enforcedHere = e }(enforcedHere)
	s, _ := Lookup("everything")
	for _, enforced := range []bool{true, false} {
		enforcedHere = enforced
		b, _ := s.Build(nil)
		if string(b.Sandbox) != `"strict"` || b.SandboxOptional == enforced {
			t.Errorf("enforced here %v: sandbox %s, optional %v", enforced, b.Sandbox, b.SandboxOptional)
		}
	}
	p, _ := Lookup("playwright")
	if b, _ := p.Build(nil); b.SandboxOptional {
		t.Error("an entry with no sandbox says it is not required")
	}
}

func TestPresetSentence(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range config.SandboxPresets {
		s := PresetSentence(p)
		if seen[s] || !strings.HasSuffix(s, ".") {
			t.Errorf("%s: %q", p, s)
		}
		seen[s] = true
	}
	if !strings.Contains(PresetSentence("strict"), "no internet") {
		t.Error("strict does not say there is no internet")
	}
}

func q(s string) string { b, _ := json.Marshal(s); return string(b) }
