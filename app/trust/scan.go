package trust

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Kind is what a [Flag] found.
type Kind = hostapi.TrustFlagKind

const (
	// KindInvisible: a zero-width or otherwise invisible character (or a
	// control character) that a reader does not see but the model reads.
	KindInvisible Kind = "invisible-unicode"
	// KindBidi: a bidirectional control, which reorders what a reader sees.
	KindBidi Kind = "bidi-control"
	// KindTag: Unicode tag characters (U+E0000-U+E007F), invisible ASCII
	// look-alikes that smuggle text; Match decodes them.
	KindTag Kind = "unicode-tag"
	// KindInstruction: text that addresses the model rather than describing
	// the tool ("ignore previous instructions", "you must first read").
	KindInstruction Kind = "model-instruction"
	// KindConceal: text that asks to keep something from the user ("do not
	// tell the user").
	KindConceal Kind = "conceal-from-user"
	// KindMarkup: <IMPORTANT>-style tags that frame text as instructions.
	KindMarkup Kind = "instruction-markup"
	// KindSensitive: a path or name of credentials (~/.ssh, id_rsa, mcp.json).
	KindSensitive Kind = "sensitive-path"
	// KindOtherTool: the name of another server's tool (tool shadowing).
	KindOtherTool Kind = "other-server-tool"
	// KindLong: a description over [MaxDescription] bytes.
	KindLong Kind = "long-description"
)

// MaxDescription is the description length (bytes) over which a
// definition is flagged.
const MaxDescription = 2048

// Flag is one finding of [Scan]: evidence for the user, never a block
// (the contract's type: the API carries it as it is).
type Flag = hostapi.TrustFlag

// pattern is one of the text patterns; docs/trust.md says why each.
type pattern struct {
	kind Kind
	re   *regexp.Regexp
	// any is the lower-case words of which the text must hold one for re
	// to be tried (a cheap filter: the bounded repetitions make the
	// regexps slow).
	any []string
}

var patterns = []pattern{
	// Overriding the model's instructions.
	{KindInstruction, regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override)\s+(all\s+|any\s+|the\s+|your\s+)*(previous|prior|above|earlier|preceding|other|system)\s+(instructions?|prompts?|messages?|rules|directions|context)`), []string{"ignore", "disregard", "forget", "override"}},
	// Talking about the model's own prompt or role.
	{KindInstruction, regexp.MustCompile(`(?i)\b(system\s+prompt|you\s+are\s+now\b|new\s+instructions?\s*:|as\s+an\s+ai\b|as\s+a\s+language\s+model)`), []string{"system", "you are now", "instruction", "as an ai", "language model"}},
	// Ordering the model to act before or besides the tool's own job.
	{KindInstruction, regexp.MustCompile(`(?i)\b(before|after|when)\s+(using|calling|invoking|running)\s+(this|any|the|that)\s+(tool|function)\b[^.]{0,40}\b(you\s+must|must|always|first)\b`), []string{"using", "calling", "invoking", "running"}},
	{KindInstruction, regexp.MustCompile(`(?i)\byou\s+(must|should|need\s+to)\s+(first\s+|also\s+|always\s+)?(read|open|fetch|send|forward|include|pass|upload|call|copy|email)\b[^.]{0,60}\b(file|contents?|keys?|secrets?|tokens?|passwords?|credentials?|conversation|history|emails?)\b`), []string{"you must", "you should", "you need"}},
	{KindInstruction, regexp.MustCompile(`(?i)\b(otherwise|or\s+else)\s+the\s+tool\s+(will\s+not|won'?t|does\s+not|doesn'?t|cannot|can'?t)\s+work`), []string{"otherwise", "or else"}},
	// Keeping it from the user.
	{KindConceal, regexp.MustCompile(`(?i)\b(do\s+not|don'?t|never|without)\s+(tell|mention|inform|reveal|show|notify|alert|let)\w*\b[^.]{0,80}?\b(the\s+)?(user|human)s?\b`), []string{"user", "human"}},
	{KindConceal, regexp.MustCompile(`(?i)\b(the\s+)?user\s+(must|should)\s+(not|never)\s+(know|see|be\s+told|find\s+out)`), []string{"user"}},
	{KindConceal, regexp.MustCompile(`(?i)\b(mere|just\s+an?)\s+implementation\s+detail`), []string{"implementation detail"}},
	// Markup that frames text as instructions.
	{KindMarkup, regexp.MustCompile(`(?i)<\s*/?\s*(important|system|instructions?|secret|hidden|admin|critical|override|assistant|prompt)\s*>`), []string{"<"}},
	{KindMarkup, regexp.MustCompile(`(?i)\[\s*/?\s*(important|system|instructions?|inst)\s*\]`), []string{"["}},
	// Credentials and agent configuration.
	{KindSensitive, regexp.MustCompile(`(?i)(~/\.ssh\b|id_(rsa|ed25519|ecdsa|dsa)\b|\.aws/credentials|\bmcp\.json\b|\.cursor/|/etc/(passwd|shadow)\b|\.npmrc\b|\.netrc\b|\.git-credentials\b|\.env\b)`), []string{".ssh", "id_", "credentials", "mcp.json", ".cursor", "/etc/", ".npmrc", ".netrc", ".env"}},
}

// Scan flags a tool's definition. others are the tool names of other
// servers (and, if the caller wants, their exposed names): a definition
// that names one is flagged, when the name is identifier-like (it has '_',
// '-', '.', a digit or an inner capital) so that plain words such as
// "echo" or "search" do not flag. own are the server's own hosts: a URL
// to any other host is flagged (see [OwnHosts]). The result is in field,
// then offset order.
func Scan(t *mcp.Tool, others []string, own ...string) []Flag {
	if t == nil {
		return nil
	}
	var flags []Flag
	texts := fieldTexts(t)
	var names []string
	for _, n := range others {
		if identifierLike(n) && n != t.Name {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, ft := range texts {
		flags = append(flags, scanRunes(ft.field, ft.text)...)
		lower := strings.ToLower(ft.text)
		ascii := isASCII(ft.text) // (?i) also folds ſ to s, K to k: no filter then
		for _, p := range patterns {
			if ascii && !containsAny(lower, p.any) {
				continue
			}
			for _, m := range p.re.FindAllStringIndex(ft.text, -1) {
				flags = append(flags, Flag{Kind: p.kind, Field: ft.field, Offset: m[0], Length: m[1] - m[0], Match: ft.text[m[0]:m[1]]})
			}
		}
		if ft.field != "name" {
			flags = append(flags, scanNames(ft.field, ft.text, names)...)
		}
		if strings.Contains(ft.text, "://") && prose(ft.field) {
			flags = append(flags, scanURLs(ft.field, ft.text, own)...)
		}
	}
	if len(t.Description) > MaxDescription {
		flags = append(flags, Flag{Kind: KindLong, Field: "description", Offset: MaxDescription, Length: len(t.Description) - MaxDescription,
			Match: fmt.Sprintf("%d bytes, over %d", len(t.Description), MaxDescription)})
	}
	sort.SliceStable(flags, func(i, j int) bool {
		if flags[i].Field != flags[j].Field {
			return fieldOrder(flags[i].Field) < fieldOrder(flags[j].Field)
		}
		return flags[i].Offset < flags[j].Offset
	})
	return flags
}

func fieldOrder(f string) string {
	switch f {
	case "name":
		return "0"
	case "title":
		return "1"
	case "description":
		return "2"
	}
	return "3" + f
}

type fieldText struct{ field, text string }

// fieldTexts are the strings of a definition that the model may read: its
// name, title, description, annotations' title, and every string (and
// property name) in its schemas.
func fieldTexts(t *mcp.Tool) []fieldText {
	out := []fieldText{{"name", t.Name}}
	if t.Title != "" {
		out = append(out, fieldText{"title", t.Title})
	}
	if t.Description != "" {
		out = append(out, fieldText{"description", t.Description})
	}
	if t.Annotations != nil && t.Annotations.Title != "" {
		out = append(out, fieldText{"annotations.title", t.Annotations.Title})
	}
	for _, s := range []struct {
		field  string
		schema any
	}{{"inputSchema", t.InputSchema}, {"outputSchema", t.OutputSchema}} {
		if s.schema == nil {
			continue
		}
		raw, err := json.Marshal(s.schema)
		if err != nil {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if d.Decode(&v) != nil {
			continue
		}
		walkStrings(s.field, v, &out)
	}
	return out
}

func walkStrings(path string, v any, out *[]fieldText) {
	switch v := v.(type) {
	case string:
		*out = append(*out, fieldText{path, v})
	case []any:
		for i, e := range v {
			walkStrings(path+"."+strconv.Itoa(i), e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			// A property name is read by the model as much as a description.
			*out = append(*out, fieldText{path + "." + k + "(key)", k})
			walkStrings(path+"."+k, v[k], out)
		}
	}
}

// scanRunes flags invisible, bidi and tag characters; a run of adjacent
// characters of one kind is one flag.
func scanRunes(field, s string) []Flag {
	var flags []Flag
	var cur *Flag
	var tagText strings.Builder
	for i, r := range s {
		k := runeKind(r)
		if r == 0x200D && joinsSymbols(s, i) {
			k = "" // a zero-width joiner inside an emoji sequence
		}
		if cur != nil && (k != cur.Kind || cur.Offset+cur.Length != i) {
			finishRun(cur, &tagText)
			flags = append(flags, *cur)
			cur = nil
		}
		if k == "" {
			continue
		}
		size := utf8.RuneLen(r)
		if r == utf8.RuneError {
			size = 1
		}
		if cur == nil {
			cur = &Flag{Kind: k, Field: field, Offset: i}
			tagText.Reset()
		} else {
			cur.Match += " "
		}
		cur.Length += size
		cur.Match += fmt.Sprintf("U+%04X", r)
		if k == KindTag && r >= 0xE0020 && r <= 0xE007E {
			tagText.WriteRune(r - 0xE0000)
		}
	}
	if cur != nil {
		finishRun(cur, &tagText)
		flags = append(flags, *cur)
	}
	return flags
}

func finishRun(f *Flag, tagText *strings.Builder) {
	if f.Kind == KindTag && tagText.Len() > 0 {
		f.Match = fmt.Sprintf("%s = %q", shorten(f.Match, 60), tagText.String())
	} else {
		f.Match = shorten(f.Match, 200)
	}
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + ".."
}

func runeKind(r rune) Kind {
	switch {
	case r >= 0xE0000 && r <= 0xE007F:
		return KindTag
	case r == 0x200E || r == 0x200F || r == 0x061C || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069:
		return KindBidi
	case r >= 0x200B && r <= 0x200D, r >= 0x2060 && r <= 0x2064, r == 0xFEFF, r == 0x00AD, r == 0x180E,
		r == 0x034F, r == 0x115F, r == 0x1160, r == 0x3164, r == 0xFFA0,
		r >= 0xE0100 && r <= 0xE01EF, // variation selectors supplement: invisible, used to smuggle bytes
		r >= 0xFFF9 && r <= 0xFFFB,   // interlinear annotation
		r < 0x20 && r != '\t' && r != '\n' && r != '\r', r >= 0x7F && r <= 0x9F:
		return KindInvisible
	}
	return ""
}

func identifierLike(n string) bool {
	if len(n) < 4 {
		return false
	}
	for i, r := range n {
		if r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || i > 0 && r >= 'A' && r <= 'Z' {
			return true
		}
	}
	return false
}

// scanNames flags each whole-word occurrence of a name in s (longest names
// first; an occurrence inside a longer flagged one is not flagged again).
func scanNames(field, s string, names []string) []Flag {
	var flags []Flag
	taken := make([]bool, len(s))
	for _, n := range names {
		for from := 0; ; {
			i := strings.Index(s[from:], n)
			if i < 0 {
				break
			}
			i += from
			end := i + len(n)
			from = i + 1
			if i > 0 && wordByte(s[i-1]) || end < len(s) && wordByte(s[end]) || taken[i] {
				continue
			}
			for j := i; j < end; j++ {
				taken[j] = true
			}
			flags = append(flags, Flag{Kind: KindOtherTool, Field: field, Offset: i, Length: len(n), Match: n})
		}
	}
	return flags
}

func wordByte(b byte) bool {
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// joinsSymbols reports whether the zero-width joiner at s[i] stands
// between two symbols (emoji sequences join with it).
func joinsSymbols(s string, i int) bool {
	before, _ := utf8.DecodeLastRuneInString(s[:i])
	after, _ := utf8.DecodeRuneInString(s[i+3:])
	return before >= 0x2000 && before != utf8.RuneError && runeKind(before) == "" &&
		after >= 0x2000 && after != utf8.RuneError && runeKind(after) == ""
}

func containsAny(s string, words []string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// prose reports whether a field is text the model reads as words about
// the tool (its title and description, a schema's "description" and
// "title" strings), where a URL is a destination the text points the
// model at. Values (a parameter's "default", "examples", "enum", a JSON
// Schema's "$schema") are not: a real server's default page to fetch
// ("https://raw.githubusercontent.com/…/README.md" in the everything
// server) is its data, not an instruction (TestCorpusRealServersNoFlag).
func prose(field string) bool {
	switch field {
	case "title", "description", "annotations.title":
		return true
	}
	return strings.HasSuffix(field, ".description") || strings.HasSuffix(field, ".title")
}
