package config

import (
	"strings"
	"testing"
	"time"
)

// TestStartModes: "start" and the file's "defaults" decide how an entry
// starts and when it stops idle; the entry's own keys win.
func TestStartModes(t *testing.T) {
	for _, tt := range []struct {
		name, file string
		start      map[string]string
		idle       map[string]time.Duration
	}{
		{"none", `{"mcpServers": {"a": {"command": "x"}}}`,
			map[string]string{"a": StartAlways}, map[string]time.Duration{"a": 10 * time.Minute}},
		{"entry", `{"mcpServers": {"a": {"command": "x", "start": "on-demand", "idleStop": 2000}, "b": {"command": "x", "start": "always"}}}`,
			map[string]string{"a": StartOnDemand, "b": StartAlways}, map[string]time.Duration{"a": 2 * time.Second, "b": 10 * time.Minute}},
		{"defaults", `{"defaults": {"start": "on-demand", "idleStop": 60000},
			"mcpServers": {"a": {"command": "x"}, "b": {"command": "x", "start": "always", "idleStop": 5000}}}`,
			map[string]string{"a": StartOnDemand, "b": StartAlways}, map[string]time.Duration{"a": time.Minute, "b": 5 * time.Second}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Parse([]byte(tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Report().Err(); err != nil {
				t.Fatalf("problems: %v", err)
			}
			d := f.Defaults()
			for n, want := range tt.start {
				if got := f.Servers[n].StartMode(d); got != want {
					t.Errorf("%s: StartMode = %q, want %q", n, got, want)
				}
				if got := f.Servers[n].IdleStop(d); got != tt.idle[n] {
					t.Errorf("%s: IdleStop = %v, want %v", n, got, tt.idle[n])
				}
			}
		})
	}
}

// TestStartTypo: a "start" that is not a mode is reported on its key with
// the remedy, the entry stays valid and starts as "always" (even under an
// on-demand default), and writing the file back keeps the value as
// written.
func TestStartTypo(t *testing.T) {
	src := `{"defaults": {"start": "on-demand"}, "mcpServers": {"a": {"command": "x", "start": "on-demand "}}}`
	f, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Servers["a"]
	if !s.Valid() {
		t.Fatalf("the entry is invalid: %v", s.Problems())
	}
	if got := s.StartMode(f.Defaults()); got != StartAlways {
		t.Errorf("StartMode = %q, want always", got)
	}
	ps := f.Report().Problems()
	if len(ps) != 1 || ps[0].Path() != "mcpServers.a.start" || !strings.Contains(ps[0].Message, `"on-demand "`) ||
		!strings.Contains(ps[0].Message, `use "always"`) {
		t.Fatalf("problems %v, want one on mcpServers.a.start naming the value and the remedy", ps)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"start": "on-demand "`) {
		t.Errorf("the value was lost:\n%s", out)
	}
}

// TestDefaultsProblems: a bad "defaults" is a problem of the file on its
// key; what is usable of it is used, the rest falls back to the built-in
// defaults.
func TestDefaultsProblems(t *testing.T) {
	for _, tt := range []struct{ defaults, key string }{
		{`"on-demand"`, "defaults"},
		{`{"start": "sleep"}`, "defaults.start"},
		{`{"idleStop": 10}`, "defaults.idleStop"},
		{`{"idleStop": "10s"}`, "defaults.idleStop"},
		{`{"idelStop": 10000}`, "defaults.idelStop"},
	} {
		f, err := Parse([]byte(`{"defaults": ` + tt.defaults + `, "mcpServers": {"a": {"command": "x"}}}`))
		if err != nil {
			t.Fatal(err)
		}
		ps := f.Report().Problems()
		if len(ps) != 1 || ps[0].Path() != tt.key {
			t.Errorf("%s: problems %v, want one on %s", tt.defaults, ps, tt.key)
		}
		if !f.Servers["a"].Valid() {
			t.Errorf("%s: the entry is invalid", tt.defaults)
		}
		if got := f.Servers["a"].IdleStop(f.Defaults()); got != 10*time.Minute {
			t.Errorf("%s: IdleStop = %v, want the built-in default", tt.defaults, got)
		}
	}
}
