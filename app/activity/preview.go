package activity

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"
	"unicode/utf8"
)

// PreviewLimit is the most bytes a record's arguments preview holds.
const PreviewLimit = 1024

// MinSecretLen is the shortest secret value a [Redactor] replaces. Shorter
// values (a PIN of 3 digits, "yes") would match ordinary text everywhere
// and are not redacted; [Redactor.Skipped] names them so the caller can say
// so.
const MinSecretLen = 4

// ArgsCopyLimit is how much of a call's arguments [Log.Add] copies for
// the preview (the preview is built on the writer goroutine, off the
// call's path). A string value that runs past it is left out of the
// preview, never cut, so a secret straddling the cut cannot leak half of
// itself.
const ArgsCopyLimit = 16 << 10

// A Redactor replaces the values of secrets with "[secret NAME]". It is
// immutable: build a new one when the set of secrets in use changes. The
// nil *Redactor redacts nothing.
type Redactor struct {
	rep     *strings.Replacer
	skipped []string
}

// NewRedactor builds a Redactor from secrets (name -> value). Every
// occurrence of a value, and of its JSON-escaped form, is replaced; at a
// given place the longest value wins. Values shorter than [MinSecretLen]
// bytes are not redacted (see [Redactor.Skipped]).
func NewRedactor(secrets map[string]string) *Redactor {
	type pair struct{ old, name string }
	seen := map[string]string{}
	var skipped []string
	for name, v := range secrets {
		if len(v) < MinSecretLen {
			skipped = append(skipped, name)
			continue
		}
		for _, form := range forms(v) {
			if prev, ok := seen[form]; !ok || name < prev {
				seen[form] = name
			}
		}
	}
	pairs := make([]pair, 0, len(seen))
	for old, name := range seen {
		pairs = append(pairs, pair{old, name})
	}
	sort.Slice(pairs, func(i, j int) bool {
		if len(pairs[i].old) != len(pairs[j].old) {
			return len(pairs[i].old) > len(pairs[j].old)
		}
		return pairs[i].old < pairs[j].old
	})
	args := make([]string, 0, 2*len(pairs))
	for _, p := range pairs {
		args = append(args, p.old, "[secret "+p.name+"]")
	}
	sort.Strings(skipped)
	return &Redactor{rep: strings.NewReplacer(args...), skipped: skipped}
}

// forms is a value as it may appear in text: raw, JSON-escaped, and
// JSON-escaped with HTML escaping (Go's encoding/json default).
func forms(v string) []string {
	out := []string{v}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	if s := strings.TrimSuffix(b.String(), "\n"); len(s) >= 2 && s[1:len(s)-1] != v {
		out = append(out, s[1:len(s)-1])
	}
	if m, err := json.Marshal(v); err == nil && len(m) >= 2 {
		if s := string(m[1 : len(m)-1]); s != v && s != out[len(out)-1] {
			out = append(out, s)
		}
	}
	return out
}

// String returns s with every secret value replaced.
func (r *Redactor) String(s string) string {
	if r == nil || r.rep == nil {
		return s
	}
	return r.rep.Replace(s)
}

// Skipped names the secrets whose values are too short to redact.
func (r *Redactor) Skipped() []string {
	if r == nil {
		return nil
	}
	return r.skipped
}

// Preview returns the arguments preview of a call: args (JSON) with every
// secret redacted, at most [PreviewLimit] bytes, and always valid JSON.
//
// Arguments that fit are kept whole (their tokens re-encoded compactly).
// Longer ones are cut at a value boundary: members and elements are kept in
// order while they fit, a string that does not fit is cut (on a rune
// boundary) and ends in "…", and the innermost open container gets a marker
// ("…" in an array or as a pending value, "…":"…" in an object) before all
// open containers are closed. Redaction works on the decoded strings, keys
// and numbers, so escaped forms of a secret ("\u0061bc") are caught too, and
// it is applied before any cut, so half a secret never remains. complete
// says whether args is the whole of the arguments (false when only a prefix
// was copied: a value running into the end is then left out).
//
// Text that is not JSON is previewed as a JSON string of its redacted text,
// cut to fit. Empty args give "".
func Preview(args []byte, complete bool, r *Redactor) string {
	out, _ := PreviewCut(args, complete, r)
	return out
}

// PreviewCut is [Preview], and whether the preview was cut: false when
// it holds all of the arguments (redacted, re-encoded compactly), true
// when something was left out or shortened. The length of the preview
// beside the arguments' size cannot tell (redaction and compaction change
// it), so the activity log stores this (issue 27 item 14: a complete
// argument was labelled "the first 37 bytes").
func PreviewCut(args []byte, complete bool, r *Redactor) (string, bool) {
	if len(bytes.TrimSpace(args)) == 0 {
		return "", !complete
	}
	if out, ok := fastPreview(args, complete, r); ok {
		return out, false
	}
	p := previewer{r: r}
	if out, ok := p.run(args, complete); ok {
		return out, p.cut
	}
	// Not JSON: a string of its (redacted) text.
	s := r.String(strings.ToValidUTF8(string(args), "\uFFFD"))
	var b bytes.Buffer
	cut := writeCut(&b, s, PreviewLimit)
	return b.String(), cut || !complete
}

type frame struct {
	obj     bool
	n       int  // members or elements written
	pending bool // object: a key is written, its value is not
}

type previewer struct {
	cut   bool // finish was called: something was left out
	r     *Redactor
	out   bytes.Buffer
	stack []frame
}

// markerReserve is room kept for the marker and the closers: `,"…":"…"`
// is 12 bytes.
const markerReserve = 12

func (p *previewer) reserve() int { return markerReserve + len(p.stack) }

func (p *previewer) run(args []byte, complete bool) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			if len(p.stack) != 0 {
				if !complete {
					return p.finish(), true
				}
				return "", false
			}
			break
		}
		if err != nil {
			if complete {
				return "", false
			}
			return p.finish(), true // a copied prefix ends mid-value
		}
		if _, ok := tok.(json.Number); ok && !complete && dec.InputOffset() == int64(len(args)) {
			return p.finish(), true // the number may run on past the copy
		}
		if !p.token(tok) {
			return p.finish(), true
		}
		if len(p.stack) == 0 && dec.More() {
			return "", false // two top-level values: not one JSON value
		}
	}
	return p.out.String(), true
}

// sepLen is the length of what precedes a value or key in the current
// container (see writeSep).
func (p *previewer) sepLen() int {
	if len(p.stack) == 0 {
		return 0
	}
	f := p.stack[len(p.stack)-1]
	if f.obj && f.pending {
		return 1 // ':'
	}
	if f.n > 0 {
		return 1 // ','
	}
	return 0
}

func (p *previewer) writeSep() {
	if len(p.stack) == 0 {
		return
	}
	f := &p.stack[len(p.stack)-1]
	switch {
	case f.obj && f.pending:
		p.out.WriteByte(':')
	case f.n > 0:
		p.out.WriteByte(',')
	}
}

// wrote records a completed key or value in the current container.
func (p *previewer) wrote(isKey bool) {
	if len(p.stack) == 0 {
		return
	}
	f := &p.stack[len(p.stack)-1]
	if f.obj {
		if isKey {
			f.pending = true
			return
		}
		f.pending = false
	}
	f.n++
}

func (p *previewer) isKey() bool {
	if len(p.stack) == 0 {
		return false
	}
	f := p.stack[len(p.stack)-1]
	return f.obj && !f.pending
}

func (p *previewer) fits(n int) bool {
	return p.out.Len()+p.sepLen()+n+p.reserve() <= PreviewLimit
}

// token writes tok, or returns false when the preview is full.
func (p *previewer) token(tok json.Token) bool {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{', '[':
			if !p.fits(1 + 1) { // the opener, and one more closer in reserve
				return false
			}
			p.writeSep()
			p.out.WriteByte(byte(t))
			p.stack = append(p.stack, frame{obj: t == '{'})
		default:
			p.out.WriteByte(byte(t)) // always reserved
			p.stack = p.stack[:len(p.stack)-1]
			p.wrote(false)
		}
		return true
	case string:
		key := p.isKey()
		s := p.r.String(t)
		enc := encodeString(s)
		if p.fits(len(enc)) {
			p.writeSep()
			p.out.WriteString(enc)
			p.wrote(key)
			return true
		}
		if key {
			return false
		}
		room := PreviewLimit - p.out.Len() - p.sepLen() - p.reserve()
		if room < 16 {
			return false
		}
		p.writeSep()
		writeCut(&p.out, s, room)
		p.wrote(false)
		return false
	case json.Number:
		s := p.r.String(t.String())
		text := s
		if s != t.String() {
			text = encodeString(s) // a secret in a number becomes a string
		}
		if !p.fits(len(text)) {
			return false
		}
		p.writeSep()
		p.out.WriteString(text)
		p.wrote(false)
		return true
	case bool, nil:
		text := "null"
		if b, ok := t.(bool); ok {
			text = "false"
			if b {
				text = "true"
			}
		}
		if !p.fits(len(text)) {
			return false
		}
		p.writeSep()
		p.out.WriteString(text)
		p.wrote(false)
		return true
	}
	return false
}

// finish closes a cut preview: a marker in the innermost container, then
// every closer.
func (p *previewer) finish() string {
	p.cut = true
	if len(p.stack) == 0 {
		if p.out.Len() == 0 {
			return `"…"`
		}
		return p.out.String()
	}
	f := p.stack[len(p.stack)-1]
	switch {
	case f.obj && f.pending:
		p.out.WriteString(`:"…"`)
	case f.obj:
		if f.n > 0 {
			p.out.WriteByte(',')
		}
		p.out.WriteString(`"…":"…"`)
	default:
		if f.n > 0 {
			p.out.WriteByte(',')
		}
		p.out.WriteString(`"…"`)
	}
	for i := len(p.stack) - 1; i >= 0; i-- {
		if p.stack[i].obj {
			p.out.WriteByte('}')
		} else {
			p.out.WriteByte(']')
		}
	}
	p.stack = nil
	return p.out.String()
}

func encodeString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// writeCut writes s as a JSON string of at most room bytes, cut on a rune
// boundary and ending in "…" when it does not fit; it says whether it cut.
func writeCut(b *bytes.Buffer, s string, room int) bool {
	if enc := encodeString(s); len(enc) <= room {
		b.WriteString(enc)
		return false
	}
	// Binary search the longest prefix whose encoding fits with "…" (an
	// encoding is never shorter than its text: room bytes bound it).
	lo, hi := 0, min(len(s), room)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if len(encodeString(s[:mid]))+len("…") <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	for lo > 0 && !utf8.RuneStart(s[lo]) {
		lo--
	}
	enc := encodeString(s[:lo] + "…")
	b.WriteString(enc)
	return true
}

// fastPreview is Preview's result for the common case, without decoding
// the tokens: whole arguments that fit once compacted, with no escape in
// them (so every decoded string, key and number is a span of the raw
// text), valid UTF-8 without U+2028/U+2029 (which the encoder escapes), and
// no secret anywhere in the raw text (so none in any token either). The
// output is then the same as the token-by-token path's: the compacted text.
func fastPreview(args []byte, complete bool, r *Redactor) (string, bool) {
	if !complete || len(args) > 4*PreviewLimit || bytes.IndexByte(args, '\\') >= 0 ||
		!utf8.Valid(args) || bytes.Contains(args, []byte("\u2028")) || bytes.Contains(args, []byte("\u2029")) {
		return "", false
	}
	var b bytes.Buffer
	if json.Compact(&b, args) != nil || b.Len() > PreviewLimit {
		return "", false
	}
	out := b.String()
	if r.String(out) != out {
		return "", false
	}
	return out, true
}
