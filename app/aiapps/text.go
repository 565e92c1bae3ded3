package aiapps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// textFormat is how a config file that is not JSON (Codex's TOML, Goose's
// and Continue's YAML) is read and changed. It is read with a parser of
// its language, and changed as text: an entry is a run of whole lines
// that is removed, and a new entry is a run of lines inserted at one
// place, so every other byte of the file stays as it was (comments, blank
// lines, quoting, order, indentation, CRLF). No library of these
// languages in Go writes a file back with its comments and formatting
// kept; editing the text does, and [textDoc] checks every edit by parsing
// the result again.
type textFormat interface {
	// scan parses src: the whole document's meaning, and the servers in
	// file order with the lines each is written on. An error means the file
	// is not valid, or its servers are written in a form this format does
	// not edit.
	scan(src []byte) (doc any, entries []textEntry, err error)
	// without returns what doc means once the server name is removed, with
	// the servers' key gone if no server is left (the meaning of a file
	// whose servers' key holds nothing is the same).
	without(doc any, name string) any
	// entryValue returns the value of the server name in doc.
	entryValue(doc any, name string) (any, bool)
	// remove returns src without the lines of the server name; keepKey
	// keeps the servers' key even if nothing is left under it (an entry
	// about to be written again).
	remove(src []byte, nl string, entries []textEntry, name string, keepKey bool) []byte
	// insert returns src with the entry added after the last server (or
	// at the end of the file).
	insert(src []byte, nl string, entries []textEntry, name string, entry []member) []byte
}

// textEntry is one server of a text config file.
type textEntry struct {
	name  string
	raw   map[string]any // the entry as the app wrote it
	spans []span         // where it is written: whole lines
}

// span is a byte range [start, end) of a file.
type span struct{ start, end int }

// textDoc is a [Doc] of a file in a [textFormat].
type textDoc struct {
	app     *App
	f       textFormat
	bom     bool
	nl      string
	src     []byte // without the byte order mark
	doc     any
	entries []textEntry
}

func (a *App) parseText(data []byte) (*Doc, error) {
	t := &textDoc{app: a, f: a.format, nl: "\n"}
	if rest, ok := bytes.CutPrefix(data, utf8BOM); ok {
		t.bom, data = true, rest
	}
	if bytes.Contains(data, []byte("\r\n")) {
		t.nl = "\r\n"
	}
	t.src = bytes.Clone(data)
	if a.seed != "" && len(bytes.TrimSpace(t.src)) == 0 {
		t.src = []byte(strings.ReplaceAll(a.seed, "\n", t.nl))
	}
	var err error
	if t.doc, t.entries, err = t.f.scan(t.src); err != nil {
		return nil, err
	}
	// Check now that every server can be removed and the entry added, so
	// that an edit later cannot fail half-way: a file written in a form
	// that the text edits do not handle is refused here, with what to do.
	for _, e := range t.entries {
		if _, _, err := t.removed(e.name, false); err != nil {
			//lint:ignore ST1005 the sentence begins with the product's name, a proper noun
			return nil, fmt.Errorf("Switchboard cannot edit how %q is written in it (%v): write it as the app's documentation shows, or edit the file by hand", e.name, err)
		}
	}
	probe := a.entry("/switchboard", Bridge{}.Args())
	src := t.src
	if _, ok := t.entry(EntryName); ok {
		src, _, _ = t.removed(EntryName, true)
	}
	if _, _, err := t.inserted(src, EntryName, probe); err != nil {
		//lint:ignore ST1005 the sentence begins with the product's name, a proper noun
		return nil, fmt.Errorf("Switchboard cannot add its entry to how the servers are written in it (%v): write them as the app's documentation shows, or edit the file by hand", err)
	}
	return &Doc{app: a, text: t}, nil
}

func (t *textDoc) bytes() []byte {
	if t.bom {
		return append(slices.Clone(utf8BOM), t.src...)
	}
	return slices.Clone(t.src)
}

// servers returns the entries as Switchboard reads them (the app's keys
// translated by [App.normalize]); entries that are not MCP servers (such
// as Goose's built-in extensions) are left out.
func (t *textDoc) servers() []Server {
	var out []Server
	for _, e := range t.entries {
		if e.name == "" {
			continue // a Continue item without a name
		}
		m := e.raw
		if t.app.normalize != nil {
			if m = t.app.normalize(m); m == nil {
				continue
			}
		}
		b, err := json.Marshal(jsonable(m))
		if err != nil {
			continue
		}
		out = append(out, Server{Name: e.name, JSON: b})
	}
	return out
}

func (t *textDoc) entry(name string) (textEntry, bool) {
	for i := len(t.entries) - 1; i >= 0; i-- {
		if t.entries[i].name == name {
			return t.entries[i], true
		}
	}
	return textEntry{}, false
}

// removed returns the file without the server name, checked: it parses,
// and means what the file meant without that server.
func (t *textDoc) removed(name string, keepKey bool) ([]byte, []textEntry, error) {
	out := t.f.remove(t.src, t.nl, t.entries, name, keepKey)
	doc, entries, err := t.f.scan(out)
	if err != nil {
		return nil, nil, err
	}
	if !reflect.DeepEqual(t.f.without(doc, name), t.f.without(t.doc, name)) {
		return nil, nil, errors.New("removing it would change more than it")
	}
	return out, entries, nil
}

// inserted returns src with the entry added, checked: it parses, the new
// entry holds exactly entry, and nothing else changed.
func (t *textDoc) inserted(src []byte, name string, entry []member) ([]byte, []textEntry, error) {
	before, entries, err := t.f.scan(src)
	if err != nil {
		return nil, nil, err
	}
	out := t.f.insert(src, t.nl, entries, name, entry)
	doc, entries, err := t.f.scan(out)
	if err != nil {
		return nil, nil, err
	}
	got, ok := t.f.entryValue(doc, name)
	if !ok || !sameValue(got, entry) {
		return nil, nil, fmt.Errorf("the entry read back is %v", got)
	}
	if !reflect.DeepEqual(t.f.without(doc, name), t.f.without(before, name)) {
		return nil, nil, errors.New("adding it would change more than it")
	}
	return out, entries, nil
}

func (t *textDoc) setBridge(b Bridge) bool {
	want := t.app.entry(b.Command, b.Args())
	if e, ok := t.entry(EntryName); ok && sameValue(e.raw, want) {
		return false
	}
	src := t.src
	if _, ok := t.entry(EntryName); ok {
		// The entry goes, and the new one is added after the others: the
		// servers' key stays where it is.
		out, _, err := t.removed(EntryName, true)
		if err != nil {
			return false // cannot happen: parseText checked it
		}
		src = out
	}
	out, _, err := t.inserted(src, EntryName, want)
	if err != nil {
		return false // cannot happen: parseText checked it
	}
	t.commit(out)
	return true
}

func (t *textDoc) remove(names ...string) int {
	n := 0
	for _, name := range names {
		for _, e := range t.entries {
			if e.name == name {
				n++
			}
		}
		if _, ok := t.entry(name); !ok {
			continue
		}
		out, _, err := t.removed(name, false)
		if err != nil {
			continue // cannot happen: parseText checked it
		}
		t.commit(out)
	}
	return n
}

func (t *textDoc) commit(src []byte) {
	doc, entries, err := t.f.scan(src)
	if err != nil {
		return
	}
	t.src, t.doc, t.entries = src, doc, entries
}

// sameValue reports whether a decoded value is the JSON value of want.
func sameValue(got any, want []member) bool {
	gb, err := json.Marshal(jsonable(got))
	if err != nil {
		return false
	}
	return sameJSON(gb, want)
}

// jsonable turns what a YAML or TOML parser returns into values
// encoding/json can write (maps with keys of any type become maps with
// string keys).
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = jsonable(e)
		}
		return m
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[fmt.Sprint(k)] = jsonable(e)
		}
		return m
	case []any:
		s := make([]any, len(x))
		for i, e := range x {
			s[i] = jsonable(e)
		}
		return s
	}
	return v
}

// lineStarts returns the byte offset of the start of each line of src
// (index 0 is line 1), and len(src) last.
func lineStarts(src []byte) []int {
	out := []int{0}
	for i, c := range src {
		if c == '\n' {
			out = append(out, i+1)
		}
	}
	if out[len(out)-1] != len(src) {
		out = append(out, len(src))
	}
	return out
}

// blankOrComment reports whether a line holds nothing but whitespace or a
// comment starting with '#'.
func blankOrComment(line []byte) bool {
	s := bytes.TrimLeft(line, " \t")
	s = bytes.TrimRight(s, "\r\n")
	return len(bytes.TrimSpace(s)) == 0 || s[0] == '#'
}

// cutLines removes the byte ranges from src, the last first. When what is
// removed is a block that insertBlock added (gap: a blank line before
// it), the blank line goes too; when it ends the file without a line
// break, the line break before it goes too, so that the file ends as it
// did before the block was inserted.
func cutLines(src []byte, nl string, spans []span, gap bool) []byte {
	out := slices.Clone(src)
	slices.SortFunc(spans, func(a, b span) int { return b.start - a.start })
	for _, s := range spans {
		// A later span's cut may have taken the line break that ended
		// this one.
		end := min(s.end, len(out))
		start := min(s.start, end)
		s = span{start, end}
		if gap && bytes.HasSuffix(out[:start], []byte(nl+nl)) {
			start -= len(nl)
		}
		if end == len(out) && !bytes.HasSuffix(out[s.start:end], []byte("\n")) && bytes.HasSuffix(out[:start], []byte(nl)) {
			start -= len(nl)
		}
		out = append(out[:start:start], out[end:]...)
	}
	return out
}

// insertBlock inserts lines (without line breaks) at pos, which is the
// start of a line or the end of src; gap puts a blank line before them
// (unless they start the file). At the end of a file that does not end
// with a line break, they go on a new line and the file still does not
// end with one.
func insertBlock(src []byte, nl string, pos int, lines []string, gap bool) []byte {
	var b bytes.Buffer
	b.Write(src[:pos])
	block := strings.Join(lines, nl)
	switch {
	case pos == len(src) && pos > 0 && !bytes.HasSuffix(src, []byte("\n")):
		b.WriteString(nl)
		if gap {
			b.WriteString(nl)
		}
		b.WriteString(block)
	default:
		if gap && pos > 0 {
			b.WriteString(nl)
		}
		b.WriteString(block + nl)
	}
	b.Write(src[pos:])
	return b.Bytes()
}
