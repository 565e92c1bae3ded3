package trust

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FieldText returns the text of a definition's field as [Scan] names it
// ("description", "inputSchema.properties.path.description", ...), from a
// stored definition (canonical or indented JSON, as [Held] carries it):
// what a flag's Offset and Length point into, for highlighting. "" if the
// definition does not decode or has no such field.
func FieldText(def, field string) string {
	if def == "" {
		return ""
	}
	var t mcp.Tool
	if json.Unmarshal([]byte(def), &t) != nil {
		return ""
	}
	for _, ft := range fieldTexts(&t) {
		if ft.field == field {
			return ft.text
		}
	}
	return ""
}

// Around marks the lines of a diff to show: each changed line and up to
// around lines on either side of it. A run of unmarked lines is left out
// (the CLI and the window write "..." there).
func Around(d []DiffLine, around int) []bool {
	keep := make([]bool, len(d))
	for i, l := range d {
		if l.Op == " " {
			continue
		}
		for j := max(0, i-around); j <= min(len(d)-1, i+around); j++ {
			keep[j] = true
		}
	}
	return keep
}

// Excerpt is a flag's match in its field's text, with some text on either
// side, as the review shows it. The strings are the definition's own text
// (escape them for a terminal or a window).
type Excerpt struct {
	Before, Match, After string
	// CutBefore and CutAfter: the field's text goes on beyond Before or
	// After.
	CutBefore, CutAfter bool
	// Named: Match is the scanner's name for invisible characters
	// ("U+200B"), not the text itself.
	Named bool
}

// ExcerptOf returns f's match in def's field with up to around bytes on
// either side, cut at character boundaries; ok is false when the field's
// text is not there or the flag does not point into it (show f.Match).
func ExcerptOf(def string, f Flag, around int) (e Excerpt, ok bool) {
	text := FieldText(def, f.Field)
	if text == "" || f.Offset < 0 || f.Length <= 0 || f.Offset+f.Length > len(text) {
		return Excerpt{}, false
	}
	from, to := max(0, f.Offset-around), min(len(text), f.Offset+f.Length+around)
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	e = Excerpt{Before: text[from:f.Offset], Match: text[f.Offset : f.Offset+f.Length], After: text[f.Offset+f.Length : to],
		CutBefore: from > 0, CutAfter: to < len(text)}
	if strings.Contains(f.Match, "U+") {
		e.Match, e.Named = f.Match, true
	}
	return e, true
}
