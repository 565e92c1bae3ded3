package configedit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSandboxReadWrite(t *testing.T) {
	cases := []struct{ in, out string }{
		{``, ``},
		{`null`, ``},
		{`"strict"`, `"strict"`},
		{`{"preset": "files", "write": ["/p"], "net": "none"}`, `{"preset": "files", "write": ["/p"], "net": "none"}`},
		{`{"read": ["/r"], "net": ["a.b:443"], "x-later": {"k": 1}}`, `{"read": ["/r"], "net": ["a.b:443"], "x-later": {"k":1}}`},
		{`{"preset": "network"}`, `"network"`},
	}
	for _, c := range cases {
		s, err := ReadSandbox(json.RawMessage(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		got := ""
		if !s.isZero() {
			got = string(s.JSON())
		}
		if got != c.out {
			t.Errorf("%s: wrote %s, want %s", c.in, got, c.out)
		}
	}
	for _, bad := range []string{`"sometimes"`, `42`, `{"read": "/x"}`, `{"net": 1}`} {
		if _, err := ReadSandbox(json.RawMessage(bad)); err == nil || !strings.Contains(err.Error(), "sandbox") {
			t.Errorf("%s: err = %v, want one naming the key", bad, err)
		}
	}
}

func TestSandboxChangeApply(t *testing.T) {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	s, err := SandboxChange{Preset: "files", Read: []string{"~/Notes", "rel"}, Write: []string{"/w", "/w"}, Net: "api.github.com:443, localhost:8080"}.Apply(Sandbox{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Read, []string{filepath.Join(home, "Notes"), filepath.Join(cwd, "rel")}) || !slices.Equal(s.Write, []string{"/w"}) {
		t.Errorf("paths = %q %q", s.Read, s.Write)
	}
	if !slices.Equal(s.NetAllow, []string{"api.github.com:443", "localhost:8080"}) || s.Net != "" {
		t.Errorf("net = %q %q", s.Net, s.NetAllow)
	}
	// Adding to what is there; a net mode replaces the allow-list.
	s, err = SandboxChange{Write: []string{"/v"}, Net: "outbound"}.Apply(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Write, []string{"/w", "/v"}) || s.Net != "outbound" || s.NetAllow != nil {
		t.Errorf("after the second change: %+v", s)
	}
	if got := string(s.JSON()); !strings.Contains(got, `"net": "outbound"`) || !strings.Contains(got, `"preset": "files"`) {
		t.Errorf("JSON = %s", got)
	}
	// Off drops the lists; a preset after off starts afresh.
	off, err := SandboxChange{Preset: "off"}.Apply(s)
	if err != nil || string(off.JSON()) != `"off"` {
		t.Fatalf("off = %s, %v", off.JSON(), err)
	}
	st, err := SandboxChange{Preset: "strict"}.Apply(off)
	if err != nil || string(st.JSON()) != `"strict"` {
		t.Fatalf("strict after off = %s, %v", st.JSON(), err)
	}
	for _, bad := range []SandboxChange{
		{Preset: "paranoid"},
		{Preset: "off", Write: []string{"/x"}},
		{Net: "example.com"},
		{Net: "example.com:0"},
		{Net: "a:443,\"b\":1"},
		{Read: []string{" "}},
	} {
		if _, err := bad.Apply(Sandbox{}); err == nil {
			t.Errorf("%+v was accepted", bad)
		}
	}
	if _, err := (SandboxChange{Write: []string{"/x"}}).Apply(Sandbox{Preset: "off"}); err == nil {
		t.Error("a path on an entry that is off was accepted without a preset")
	}
}

// changeSandbox writes the key and keeps the entry's other keys, unknown
// ones included, and the rest of the file.
func TestChangeSandbox(t *testing.T) {
	f := parse(t)
	if err := changeSandbox(f, "files", SandboxChange{Preset: "files", Write: []string{"/tmp"}}); err != nil {
		t.Fatal(err)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"sandbox": {`, `"preset": "files"`, `"/tmp"`, `"x-mine"`, `"${keyring:files-TOKEN}"`, `"deny": [`, `"x-top"`, `"callTimeout": 1000`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the file lacks %s:\n%s", want, out)
		}
	}
	if err := changeSandbox(f, "nope", SandboxChange{Preset: "strict"}); code(err) != "not_found" {
		t.Errorf("a missing entry: %v", err)
	}
	before, _ := f.Marshal()
	if err := changeSandbox(f, "a", SandboxChange{Preset: "bogus"}); code(err) != "invalid_config" {
		t.Errorf("a bad preset: %v", err)
	}
	if after, _ := f.Marshal(); string(after) != string(before) {
		t.Error("a refused change changed the file")
	}
}

// TestSandboxUnixEdit: "unix" is read and written with the other keys
// (unknown keys kept), and --sandbox-unix adds to it, made absolute.
func TestSandboxUnixEdit(t *testing.T) {
	in := `{"preset": "strict", "unix": ["/run/a.sock"], "x-later": 1}`
	s, err := ReadSandbox(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Unix, []string{"/run/a.sock"}) {
		t.Errorf("Unix = %q", s.Unix)
	}
	if got := string(s.JSON()); got != `{"preset": "strict", "unix": ["/run/a.sock"], "x-later": 1}` {
		t.Errorf("written back as %s", got)
	}
	home, _ := os.UserHomeDir()
	s, err = SandboxChange{Unix: []string{"~/agent.sock", "/run/a.sock"}}.Apply(s)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Unix, []string{"/run/a.sock", filepath.Join(home, "agent.sock")}) {
		t.Errorf("after --sandbox-unix: %q", s.Unix)
	}
	if _, err := (SandboxChange{Unix: []string{"/x.sock"}}).Apply(Sandbox{Preset: "off"}); err == nil {
		t.Error("a socket on an entry that is off was accepted without a preset")
	}
	if _, err := (SandboxChange{Preset: "off", Unix: []string{"/x.sock"}}).Apply(Sandbox{}); err == nil || !strings.Contains(err.Error(), "--sandbox-unix") {
		t.Errorf("off with a socket: %v", err)
	}
	if _, err := ReadSandbox(json.RawMessage(`{"unix": "/x.sock"}`)); err == nil || !strings.Contains(err.Error(), "sandbox.unix") {
		t.Errorf("unix not a list: %v", err)
	}
}
