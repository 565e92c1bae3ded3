package bundle

import (
	"testing"
)

// TestParseRange: npm-style ranges as manifests write them.
func TestParseRange(t *testing.T) {
	cases := []struct {
		r, v string
		ok   bool
	}{
		{">=18.0.0", "18.0.0", true}, {">=18.0.0", "v22.11.0", true}, {">=18.0.0", "16.20.2", false},
		{">=3.8", "3.12.1", true}, {">=3.8", "3.7.9", false}, {">= 3.10", "3.10.0", true},
		{">1.0.0 <2.0.0", "1.5.0", true}, {">1.0.0 <2.0.0", "2.0.0", false},
		{"^1.2.3", "1.9.0", true}, {"^1.2.3", "2.0.0", false}, {"^0.2.3", "0.3.0", false},
		{"~3.10", "3.10.4", true}, {"~3.10", "3.11.0", false},
		{"18.x", "18.4.1", true}, {"18.x", "19.0.0", false}, {"3.12", "3.12.7", true},
		{"<=18", "18.9.0", true}, {"<=18", "19.0.0", false}, {">18", "18.5.0", false},
		{"<16 || >=20", "22.0.0", true}, {"<16 || >=20", "18.0.0", false}, {"*", "1.0.0", true},
	}
	for _, c := range cases {
		r, err := parseRange(c.r)
		if err != nil {
			t.Errorf("%q: %v", c.r, err)
			continue
		}
		v, _, err := parseVersion(c.v)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.contains(v); got != c.ok {
			t.Errorf("%q contains %s = %v, want %v", c.r, c.v, got, c.ok)
		}
	}
	for _, bad := range []string{"", ">=eighteen", "latest"} {
		if _, err := parseRange(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// TestCheckPlatform: a bundle for darwin and win32 is refused on linux with
// the remedy, accepted on windows.
func TestCheckPlatform(t *testing.T) {
	m := &Manifest{Server: Server{Type: "binary"}, Compatibility: Compatibility{Platforms: []string{"darwin", "win32"}}}
	none := func(string) (string, error) { t.Fatal("a binary bundle looked for a runtime"); return "", nil }
	ps := m.Check(t.Context(), "linux", none)
	if len(ps) != 1 || ps[0].Error() != "compatibility.platforms: the bundle runs on darwin or win32, not on this linux: use a build of the bundle for linux" {
		t.Errorf("linux: %v", ps)
	}
	if ps := m.Check(t.Context(), "windows", none); len(ps) != 0 {
		t.Errorf("windows: %v", ps)
	}
}
