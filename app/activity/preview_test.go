package activity

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPreviewKeepsSmallArgumentsWhole(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1, "b": [true, null, "x"], "c": {"d": 2.5e3}}`: `{"a":1,"b":[true,null,"x"],"c":{"d":2.5e3}}`,
		`"just a string"`:  `"just a string"`,
		`[]`:               `[]`,
		`{}`:               `{}`,
		`{"html":"<a&b>"}`: `{"html":"<a&b>"}`,
		``:                 ``,
		`not json`:         `"not json"`,
		`{"a":1} {"b":2}`:  `"{\"a\":1} {\"b\":2}"`,
		`{"a":`:            `"{\"a\":"`,
	} {
		if got := Preview([]byte(in), true, nil); got != want {
			t.Errorf("Preview(%s) = %s, want %s", in, got, want)
		}
	}
}

func TestPreviewCutsAtValueBoundaries(t *testing.T) {
	many := map[string]any{}
	for i := range 200 {
		many[strings.Repeat("k", 5)+string(rune('a'+i%26))+strings.Repeat("z", i%7)] = i
	}
	manyJSON, _ := json.Marshal(many)
	nested := strings.Repeat(`{"a":[`, 200) + `1` + strings.Repeat(`]}`, 200)
	deep := strings.Repeat(`[`, 2000) + strings.Repeat(`]`, 2000)
	cases := map[string]string{
		"long string":  `{"content":"` + strings.Repeat("é", 3000) + `","after":1}`,
		"many members": string(manyJSON),
		"long array":   `[` + strings.Repeat(`"item",`, 500) + `"end"]`,
		"nested":       nested,
		"very deep":    deep,
		"long key":     `{"` + strings.Repeat("k", 2000) + `":1}`,
		"top string":   `"` + strings.Repeat("s", 5000) + `"`,
		"escapes":      `{"t":"` + strings.Repeat(`\n\u0001`, 1000) + `"}`,
	}
	for name, in := range cases {
		if !json.Valid([]byte(in)) {
			t.Fatalf("%s: test input is not JSON", name)
		}
		got := Preview([]byte(in), true, nil)
		if len(got) > PreviewLimit {
			t.Errorf("%s: preview is %d bytes, limit %d", name, len(got), PreviewLimit)
		}
		if !json.Valid([]byte(got)) {
			t.Errorf("%s: preview is not JSON: %s", name, got)
		}
		if !strings.Contains(got, "…") {
			t.Errorf("%s: a cut preview has no marker: %s", name, got)
		}
		if len(got) < PreviewLimit/2 && name != "very deep" && name != "long key" {
			t.Errorf("%s: preview uses %d of %d bytes: %s", name, len(got), PreviewLimit, got)
		}
	}
	// A long string keeps its start and the cut is marked.
	got := Preview([]byte(cases["long string"]), true, nil)
	if !strings.HasPrefix(got, `{"content":"éé`) || !strings.HasSuffix(got, `…"}`) {
		t.Errorf("long string preview: %s", got)
	}
}

func TestPreviewOfACopiedPrefix(t *testing.T) {
	red := NewRedactor(map[string]string{"N": "987654321"})
	for _, c := range []struct{ in, want string }{
		// The string runs past the copy: it is left out, not cut.
		{`{"a":1,"s":"abc`, `{"a":1,"s":"…"}`},
		// A number at the very end may run on: left out.
		{`{"a":"x","n":98765`, `{"a":"x","n":"…"}`},
		{`[1,2,`, `[1,2,"…"]`},
		{`{"a`, `{"…":"…"}`},
	} {
		got := Preview([]byte(c.in), false, red)
		if got != c.want {
			t.Errorf("Preview(%s, incomplete) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestRedactor(t *testing.T) {
	r := NewRedactor(map[string]string{
		"SHORT": "abc", "A": "secret-one", "AB": "secret-one-two", "Q": `quo"te<`,
	})
	for in, want := range map[string]string{
		"x secret-one y":        "x [secret A] y",
		"secret-one-two":        "[secret AB]", // the longest wins
		"abc":                   "abc",         // too short
		`json: "quo\"te\u003c"`: `json: "[secret Q]"`,
		`json: "quo\"te<"`:      `json: "[secret Q]"`,
		`raw quo"te<`:           `raw [secret Q]`,
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	if s := r.Skipped(); len(s) != 1 || s[0] != "SHORT" {
		t.Errorf("Skipped() = %v", s)
	}
	var nilR *Redactor
	if nilR.String("secret-one") != "secret-one" {
		t.Error("the nil Redactor changed text")
	}
	// In a preview: decoded strings (escaped forms), keys and numbers.
	r2 := NewRedactor(map[string]string{"K": "hunter22", "NUM": "31415926"})
	got := Preview([]byte(`{"p":"hun\u0074er22","hunter22":[31415926, 1]}`), true, r2)
	want := `{"p":"[secret K]","[secret K]":["[secret NUM]",1]}`
	if got != want {
		t.Errorf("preview %s, want %s", got, want)
	}
}

// TestRedactorMinimumLength: the documented rule at its boundary. A value
// of MinSecretLen-1 bytes is not redacted (and is named by Skipped); one of
// exactly MinSecretLen bytes, and one of MinSecretLen+1, are redacted in
// text and in a preview (both the decoding path and the fast path, which
// stands aside only when the redactor changes the text). A comparison off
// by one in either direction fails here (issue 31).
func TestRedactorMinimumLength(t *testing.T) {
	below := strings.Repeat("q", MinSecretLen-1)
	at := strings.Repeat("w", MinSecretLen)
	above := strings.Repeat("e", MinSecretLen+1)
	r := NewRedactor(map[string]string{"BELOW": below, "AT": at, "ABOVE": above})
	if s := r.Skipped(); len(s) != 1 || s[0] != "BELOW" {
		t.Errorf("Skipped() = %v, want [BELOW] (only the value under %d bytes)", s, MinSecretLen)
	}
	for in, want := range map[string]string{
		"x " + below + " y": "x " + below + " y", // under the minimum: kept
		"x " + at + " y":    "x [secret AT] y",
		"x " + above + " y": "x [secret ABOVE] y",
	} {
		if got := r.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	for args, want := range map[string]string{
		`{"k":"` + at + `"}`:    `{"k":"[secret AT]"}`,
		`{"k":"` + above + `"}`: `{"k":"[secret ABOVE]"}`,
		`{"k":"` + below + `"}`: `{"k":"` + below + `"}`,
	} {
		if got := Preview([]byte(args), true, r); got != want {
			t.Errorf("Preview(%s) = %s, want %s", args, got, want)
		}
	}
	// Alone, the minimum-length secret is the redactor's only value.
	only := NewRedactor(map[string]string{"PIN": "1234"})
	if got := Preview([]byte(`{"pin":"1234","n":1234}`), true, only); got != `{"pin":"[secret PIN]","n":"[secret PIN]"}` {
		t.Errorf("a %d-byte secret alone: preview %s", MinSecretLen, got)
	}
	if len(only.Skipped()) != 0 {
		t.Errorf("a %d-byte secret is skipped: %v", MinSecretLen, only.Skipped())
	}
}

// TestPreviewCut: PreviewCut says whether the preview holds all of the
// arguments. Whole arguments are not cut however much shorter than the
// arguments their preview is (compacted, a secret redacted to a shorter
// name: issue 27 item 14 saw such a one labelled "the first 37 bytes");
// cut ones are, by the token path, a string cut, and a copied prefix.
func TestPreviewCut(t *testing.T) {
	red := NewRedactor(map[string]string{"K": "a-long-secret-value-of-many-bytes"})
	for _, c := range []struct {
		name     string
		in       string
		complete bool
		cut      bool
	}{
		{"compact", `{"a":1}`, true, false},
		{"spaced", `{ "a" : 1,   "b" : [ 1, 2 ] }`, true, false},
		{"redacted", `{"token":"a-long-secret-value-of-many-bytes"}`, true, false},
		{"escaped, token path", `{"t":"line\nbreak"}`, true, false},
		{"not JSON", `not json`, true, false},
		{"empty", ``, true, false},
		{"long string", `{"s":"` + strings.Repeat("x", 3000) + `"}`, true, true},
		{"long array", `[` + strings.Repeat(`1,`, 1000) + `1]`, true, true},
		{"long text", strings.Repeat("not json ", 300), true, true},
		{"copied prefix", `{"a":1,"s":"abc`, false, true},
		{"copied prefix, not JSON", `abc`, false, true},
	} {
		got, cut := PreviewCut([]byte(c.in), c.complete, red)
		if cut != c.cut {
			t.Errorf("%s: PreviewCut(%.40s) = %.60s, cut %v; want cut %v", c.name, c.in, got, cut, c.cut)
		}
		if p := Preview([]byte(c.in), c.complete, red); p != got {
			t.Errorf("%s: Preview %s, PreviewCut %s", c.name, p, got)
		}
	}
}
