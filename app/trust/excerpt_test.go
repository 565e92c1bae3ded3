package trust

import (
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"
)

// The review's excerpt of a flag: cut at character boundaries (é is two
// bytes), marked where the text goes on, the scanner's name for invisible
// characters, and no excerpt for a flag that points outside its field.
func TestExcerptOf(t *testing.T) {
	desc := "ééééé Ignore previous instructions ééééé"
	def, _ := json.Marshal(map[string]any{"name": "t", "description": desc, "inputSchema": map[string]any{"type": "object"}})
	off := len("ééééé ")
	f := Flag{Kind: KindInstruction, Field: "description", Offset: off, Length: len("Ignore previous"), Match: "Ignore previous"}
	e, ok := ExcerptOf(string(def), f, 3) // 3 bytes back lands inside an é
	if !ok || e.Match != "Ignore previous" || !utf8.ValidString(e.Before) || !utf8.ValidString(e.After) ||
		e.Before != "é " || !e.CutBefore || !e.CutAfter || e.Named {
		t.Fatalf("excerpt: %+v, %v", e, ok)
	}
	if e, ok := ExcerptOf(string(def), f, 1000); !ok || e.CutBefore || e.CutAfter || e.Before+e.Match+e.After != desc {
		t.Fatalf("whole field: %+v", e)
	}
	zw := Flag{Kind: KindInvisible, Field: "description", Offset: 0, Length: 2, Match: "U+00E9"}
	if e, ok := ExcerptOf(string(def), zw, 0); !ok || !e.Named || e.Match != "U+00E9" {
		t.Fatalf("named match: %+v", e)
	}
	for _, bad := range []Flag{{Field: "description", Offset: len(desc), Length: 1}, {Field: "title", Offset: 0, Length: 1}, {Field: "description", Offset: -1, Length: 1}} {
		if _, ok := ExcerptOf(string(def), bad, 5); ok {
			t.Errorf("an excerpt for %+v", bad)
		}
	}
}

func TestAround(t *testing.T) {
	d := []DiffLine{{Op: " ", Text: "a"}, {Op: " ", Text: "b"}, {Op: " ", Text: "c"}, {Op: "-", Text: "d"}, {Op: " ", Text: "e"}, {Op: " ", Text: "f"}, {Op: " ", Text: "g"}}
	if got := Around(d, 1); !slices.Equal(got, []bool{false, false, true, true, true, false, false}) {
		t.Fatalf("Around(d, 1) = %v", got)
	}
	if got := Around(d[:3], 2); slices.Contains(got, true) {
		t.Fatalf("no change, but lines kept: %v", got)
	}
}
