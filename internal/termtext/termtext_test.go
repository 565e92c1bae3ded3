package termtext

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, ünïcode ✓, tab\tkept", "plain text, ünïcode ✓, tab\tkept"},
		{"\x1b]0;pwned\x07title", `\e]0;pwned\x07title`},
		{"\x1b[2K\x1b[1Goverwritten", `\e[2K\e[1Goverwritten`},
		{"line\rback", `line\rback`},
		{"two\nlines", `two\nlines`},
		{"bs\b\x7fdel\x00nul", `bs\b\x7fdel\x00nul`},
		{"c1 csi \u009b31m red", `c1 csi \u009b31m red`},
		{"bidi \u202eevil\u202c \u2066x\u2069 sep\u2028", `bidi \u202eevil\u202c \u2066x\u2069 sep\u2028`},
		{"bad utf8 \xff\xfe end", `bad utf8 \xff\xfe end`},
		{`back\slash`, `back\slash`},
		{"", ""},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// Whatever goes in, nothing a terminal acts on comes out, and the result
// is valid UTF-8.
func FuzzEscape(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\r\n\u009b\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Escape(%q) = %q is not UTF-8", s, out)
		}
		for i, r := range out {
			if unsafeRune(r, utf8.RuneLen(r)) {
				t.Fatalf("Escape(%q) = %q keeps %U at %d", s, out, r, i)
			}
		}
	})
}

func TestLines(t *testing.T) {
	in := []string{"ok", "\x1b[2J"}
	out := Lines(in)
	if out[0] != "ok" || out[1] != `\e[2J` || in[1] != "\x1b[2J" {
		t.Fatalf("Lines: %q (input now %q)", out, in)
	}
}

func TestText(t *testing.T) {
	got := Text("first\r\nsecond \x1b[2J\nthird\r")
	if got != "first\nsecond \\e[2J\nthird\\r" {
		t.Fatalf("Text = %q", got)
	}
}

func TestJSON(t *testing.T) {
	v := map[string]string{"line": "\x1b]0;t\x07 \u009b31m \u202eevil \x7f ok ✓"}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(b)
	for i, r := range string(out) {
		if r < 0x20 || unsafeRune(r, utf8.RuneLen(r)) {
			t.Fatalf("JSON kept %U at %d: %s", r, i, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["line"] != v["line"] {
		t.Fatalf("JSON changed the value: %q %v", back, err)
	}
	if plain := []byte(`{"a":"ok ✓"}`); &JSON(plain)[0] != &plain[0] {
		t.Error("JSON copied a document with nothing to escape")
	}
}
