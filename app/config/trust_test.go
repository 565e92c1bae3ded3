package config

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTrustKey: an entry's "trust" is "pin" or "auto"; another value is a
// problem of that key (the entry is not run), and writing the entry back
// keeps the key where it was.
func TestTrustKey(t *testing.T) {
	for _, v := range []string{"pin", "auto"} {
		s, err := ParseServer("x", []byte(`{"command": "cat", "trust": "`+v+`", "disabled": false}`))
		if err != nil {
			t.Fatal(err)
		}
		if s.Trust != v || len(s.Problems()) != 0 {
			t.Errorf("%s: Trust %q, problems %v", v, s.Trust, s.Problems())
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if want := `{"command":"cat","trust":"` + v + `","disabled":false}`; string(b) != want {
			t.Errorf("written back as %s, want %s", b, want)
		}
	}
	for _, raw := range []string{`"always"`, `true`, `""`} {
		s, err := ParseServer("x", []byte(`{"command": "cat", "trust": `+raw+`}`))
		if err != nil {
			t.Fatal(err)
		}
		ps := s.Problems()
		if len(ps) != 1 || ps[0].Key != "trust" || !strings.Contains(ps[0].Message, `use "pin"`) {
			t.Errorf("trust %s: problems %+v", raw, ps)
		}
		if b, _ := json.Marshal(s); !strings.Contains(string(b), `"trust":`+raw) {
			t.Errorf("trust %s not kept as written: %s", raw, b)
		}
	}
	// A new entry gets the key after the others.
	s, _ := ParseServer("x", []byte(`{"command": "cat"}`))
	s.Trust = "auto"
	if b, _ := json.Marshal(s); !strings.HasSuffix(string(b), `"trust":"auto"}`) {
		t.Errorf("a set trust written as %s", b)
	}
}
