package aiapps

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlServers is a YAML file whose servers are under one top-level key:
// a mapping of NAME: {...} (Goose's extensions) or, with list, a sequence
// of {name: NAME, ...} (Continue's mcpServers). It is read with
// go.yaml.in/yaml/v3 (its node positions say where each entry is) and
// changed as text (see [textFormat]): a new entry goes after the last one
// with its indentation, or, without the key, at the end of the file; a
// removed entry's lines go, and the key's line too when nothing is left
// under it.
type yamlServers struct {
	key  string
	list bool
}

// yamlScan is what one parse of a YAML file says.
type yamlScan struct {
	doc      map[string]any
	starts   []int      // line starts (index 0 is line 1)
	keyNode  *yaml.Node // the servers' key, nil if absent
	valNode  *yaml.Node
	next     int // the line after the servers' block: the next top-level key's, or the last line + 1
	entries  []textEntry
	items    []*yaml.Node // the entries' key nodes (mapping) or item nodes (list)
	keyLine  span         // the key's line
	bareKey  bool         // the key's line is just "KEY:" (with a comment, maybe)
	emptyVal bool         // the key has nothing under it: null, ~, {} or []
}

func (f yamlServers) parse(src []byte) (*yamlScan, error) {
	invalid := func(err error) error {
		return fmt.Errorf("it is not valid YAML (%v): fix it, or move it away, first", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	dec := yaml.NewDecoder(bytes.NewReader(src))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil && err != io.EOF {
		return nil, invalid(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		if err != nil {
			return nil, invalid(err)
		}
		return nil, errors.New("it holds more than one YAML document: Switchboard edits a file with one")
	}
	s := &yamlScan{starts: lineStarts(src), doc: map[string]any{}}
	if len(root.Content) == 0 {
		s.next = len(s.starts)
		return s, nil
	}
	top := root.Content[0]
	if top.Kind == yaml.ScalarNode && top.Tag == "!!null" {
		s.next = len(s.starts)
		return s, nil
	}
	if top.Kind != yaml.MappingNode || top.Style&yaml.FlowStyle != 0 {
		return nil, errors.New("its top level is not a mapping (key: value lines): fix it, or move it away, first")
	}
	if err := top.Decode(&s.doc); err != nil {
		return nil, invalid(err)
	}
	if s.doc == nil {
		s.doc = map[string]any{}
	}
	ki := -1
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == f.key {
			ki = i
		}
	}
	s.next = len(s.starts)
	if ki < 0 {
		return s, nil
	}
	s.keyNode, s.valNode = top.Content[ki], top.Content[ki+1]
	if s.keyNode.Column != 1 {
		return nil, fmt.Errorf("its %s key is not at the start of its line", f.key)
	}
	if ki+2 < len(top.Content) {
		s.next = top.Content[ki+2].Line
	}
	s.keyLine = span{s.lineStart(s.keyNode.Line), s.lineStart(s.keyNode.Line + 1)}
	line := string(bytes.TrimRight(src[s.keyLine.start:s.keyLine.end], "\r\n"))
	s.bareKey = yamlBareKey.MatchString(line) && strings.HasPrefix(line, f.key)
	v := s.valNode
	wantKind := yaml.MappingNode
	what := "a mapping (NAME: ... lines)"
	if f.list {
		wantKind, what = yaml.SequenceNode, "a list (- name: ... lines)"
	}
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		s.emptyVal = true
		return s, nil
	case v.Kind == wantKind && len(v.Content) == 0:
		s.emptyVal = true
		return s, nil
	case v.Kind != wantKind:
		return nil, fmt.Errorf("its %s is not %s: fix it by hand first", f.key, what)
	case v.Style&yaml.FlowStyle != 0:
		return nil, fmt.Errorf("its %s is written on one line ({...} or [...]): Switchboard edits it as %s", f.key, what)
	}
	step := 2 // a mapping's key and value
	if f.list {
		step = 1
	}
	for i := 0; i < len(v.Content); i += step {
		n := v.Content[i]
		var raw map[string]any
		var name string
		if f.list {
			if n.Kind != yaml.MappingNode {
				return nil, fmt.Errorf("an item of its %s is not a mapping: fix it by hand first", f.key)
			}
			if err := n.Decode(&raw); err != nil {
				return nil, invalid(err)
			}
			name, _ = raw["name"].(string)
			lt := src[s.lineStart(n.Line):s.lineStart(n.Line+1)]
			if t := bytes.TrimLeft(lt, " "); len(t) == 0 || t[0] != '-' {
				return nil, fmt.Errorf("an item of its %s does not start on the line of its '-'", f.key)
			}
		} else {
			name = n.Value
			if err := v.Content[i+1].Decode(&raw); err != nil {
				return nil, invalid(err)
			}
			if n.Column-1 != indentLen(src[s.lineStart(n.Line):]) {
				return nil, fmt.Errorf("%s.%s does not start its line", f.key, name)
			}
		}
		s.items = append(s.items, n)
		s.entries = append(s.entries, textEntry{name: name, raw: raw})
	}
	// An entry is written from its first line to the last line before
	// the next entry (or the end of the block) that is not blank or a
	// comment.
	for i := range s.entries {
		first := s.items[i].Line
		limit := s.next
		if i+1 < len(s.items) {
			limit = s.items[i+1].Line
		}
		last := limit - 1
		for last > first && blankOrComment(src[s.lineStart(last):s.lineStart(last+1)]) {
			last--
		}
		s.entries[i].spans = []span{{s.lineStart(first), s.lineStart(last + 1)}}
	}
	return s, nil
}

var yamlBareKey = regexp.MustCompile(`^[^\s#:]+:[ \t]*(#.*)?$`)

func (s *yamlScan) lineStart(line int) int {
	if line-1 < len(s.starts) {
		return s.starts[line-1]
	}
	return s.starts[len(s.starts)-1]
}

func indentLen(b []byte) int {
	n := 0
	for n < len(b) && b[n] == ' ' {
		n++
	}
	return n
}

func (f yamlServers) scan(src []byte) (any, []textEntry, error) {
	s, err := f.parse(src)
	if err != nil {
		return nil, nil, err
	}
	return s.doc, s.entries, nil
}

func (f yamlServers) without(doc any, name string) any {
	m := maps.Clone(doc.(map[string]any))
	switch v := m[f.key].(type) {
	case map[string]any:
		v = maps.Clone(v)
		delete(v, name)
		m[f.key] = v
		if len(v) == 0 {
			delete(m, f.key)
		}
	case []any:
		v = slices.DeleteFunc(slices.Clone(v), func(e any) bool {
			item, _ := e.(map[string]any)
			return item != nil && item["name"] == name
		})
		m[f.key] = v
		if len(v) == 0 {
			delete(m, f.key)
		}
	case nil:
		delete(m, f.key)
	}
	return m
}

func (f yamlServers) entryValue(doc any, name string) (any, bool) {
	switch v := doc.(map[string]any)[f.key].(type) {
	case map[string]any:
		e, ok := v[name]
		return e, ok
	case []any:
		for i := len(v) - 1; i >= 0; i-- {
			if item, _ := v[i].(map[string]any); item != nil && item["name"] == name {
				return item, true
			}
		}
	}
	return nil, false
}

func (f yamlServers) remove(src []byte, nl string, entries []textEntry, name string, keepKey bool) []byte {
	s, err := f.parse(src)
	if err != nil {
		return src
	}
	var spans []span
	left := 0
	for _, e := range s.entries {
		if e.name == name {
			spans = append(spans, e.spans...)
		} else {
			left++
		}
	}
	if left == 0 && s.bareKey && len(spans) > 0 && !keepKey {
		// Nothing is left under the key. "KEY:" goes too, if nothing but
		// the entries was under it; "KEY: # comment" becomes
		// "KEY: {} # comment" ([] for a list), which is what insertUnder
		// made it from, if that is how it was.
		block := span{s.keyLine.start, spans[len(spans)-1].end}
		rest := src[s.keyLine.end:block.end]
		for _, sp := range spans {
			rest = bytes.Replace(rest, src[sp.start:sp.end], nil, 1)
		}
		if bytes.IndexByte(src[s.keyLine.start:s.keyLine.end], '#') >= 0 {
			empty := "{}"
			if f.list {
				empty = "[]"
			}
			out := cutLines(src, nl, spans, false)
			// The key's line in out (the cut may have taken its line break).
			end := len(out)
			if i := bytes.IndexByte(out[s.keyLine.start:], '\n'); i >= 0 {
				end = s.keyLine.start + i
			}
			line := out[s.keyLine.start:end]
			colon := bytes.IndexByte(line, ':')
			fixed := append(append(slices.Clone(line[:colon+1]), " "+empty...), line[colon+1:]...)
			return append(append(slices.Clone(out[:s.keyLine.start]), fixed...), out[end:]...)
		}
		if len(bytes.TrimSpace(rest)) == 0 {
			spans = []span{block}
		}
	}
	return cutLines(src, nl, spans, false)
}

func (f yamlServers) insert(src []byte, nl string, entries []textEntry, name string, entry []member) []byte {
	s, err := f.parse(src)
	if err != nil {
		return src
	}
	lines := func(indent, body string) []string {
		var out []string
		for i, m := range entry {
			lead := body
			if i == 0 {
				lead = indent
			}
			out = append(out, lead+m.key+": "+yamlValue(m.value))
		}
		return out
	}
	if !f.list {
		ml := func(indent, body string) []string {
			return append([]string{indent + yamlScalar(name) + ":"}, lines(body, body)...)
		}
		if len(s.items) > 0 {
			last := s.entries[len(s.entries)-1].spans[0]
			k := s.items[len(s.items)-1]
			indent := strings.Repeat(" ", k.Column-1)
			body := indent + "  "
			if v := s.valNode.Content[1]; v.Kind == yaml.MappingNode && len(v.Content) > 0 && v.Style&yaml.FlowStyle == 0 && v.Content[0].Column > s.items[0].Column {
				body = indent + strings.Repeat(" ", v.Content[0].Column-s.items[0].Column)
			}
			return insertBlock(src, nl, last.end, ml(indent, body), false)
		}
		return f.insertUnder(src, nl, s, ml("  ", "    "))
	}
	item := func(dash, content string) []string {
		l := lines(content, content)
		l[0] = dash + "-" + strings.Repeat(" ", max(1, len(content)-len(dash)-1)) + strings.TrimLeft(l[0], " ")
		return l
	}
	// Continue's entries are named by their "name" member.
	entry = append([]member{{"name", name}}, slices.DeleteFunc(slices.Clone(entry), func(m member) bool { return m.key == "name" })...)
	if len(s.items) > 0 {
		last := s.entries[len(s.entries)-1].spans[0]
		n := s.items[len(s.items)-1]
		line := src[s.lineStart(n.Line):]
		dash := strings.Repeat(" ", indentLen(line))
		content := strings.Repeat(" ", n.Column-1)
		return insertBlock(src, nl, last.end, item(dash, content), false)
	}
	return f.insertUnder(src, nl, s, item("  ", "    "))
}

// insertUnder adds lines under the servers' key when it has no entry:
// after its line if it is "KEY:", else in place of its empty value
// ("KEY: {}" becomes "KEY:"), else, without the key, at the end of the
// file.
func (f yamlServers) insertUnder(src []byte, nl string, s *yamlScan, lines []string) []byte {
	switch {
	case s.keyNode == nil:
		return insertBlock(src, nl, len(src), append([]string{f.key + ":"}, lines...), false)
	case s.bareKey:
		return insertBlock(src, nl, s.keyLine.end, lines, false)
	}
	// "KEY: {}", "KEY: ~", "KEY: null" (with a comment, maybe): the value
	// goes, the comment stays.
	line := string(src[s.keyLine.start:s.keyLine.end])
	body, brk := strings.CutSuffix(line, "\n")
	body = strings.TrimSuffix(body, "\r")
	i := s.valNode.Column - 1
	if s.valNode.Line != s.keyNode.Line || i > len(body) {
		return src
	}
	n := 0
	switch v := body[i:]; {
	case strings.HasPrefix(v, "{}"), strings.HasPrefix(v, "[]"):
		n = 2
	case strings.HasPrefix(v, "~"):
		n = 1
	case len(v) >= 4 && strings.EqualFold(v[:4], "null"):
		n = 4
	default:
		return src
	}
	newLine := strings.TrimRight(body[:i], " ") + body[i+n:]
	out := append(slices.Clone(src[:s.keyLine.start]), newLine...)
	pos := len(out)
	if brk {
		out = append(out, nl...)
		pos = len(out)
	}
	out = append(out, src[s.keyLine.end:]...)
	return insertBlock(out, nl, pos, lines, false)
}

func yamlValue(v any) string {
	switch x := v.(type) {
	case string:
		return yamlScalar(x)
	case bool:
		return fmt.Sprint(x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = yamlScalar(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	panic(fmt.Sprintf("clients: cannot write %T in YAML", v))
}

var (
	yamlPlain    = regexp.MustCompile(`^[A-Za-z/_][A-Za-z0-9_./-]*$`)
	yamlReserved = regexp.MustCompile(`^(?i:y|n|yes|no|on|off|true|false|null)$`)
)

// yamlScalar writes s plain when YAML reads it back as the same string
// (a name, a path), single-quoted when it holds no quote or control
// character, else double-quoted (JSON's escapes are YAML's).
func yamlScalar(s string) string {
	switch {
	case yamlPlain.MatchString(s) && !yamlReserved.MatchString(s):
		return s
	case !strings.Contains(s, "'") && printable(s) && s != "":
		return "'" + s + "'"
	}
	return string(jsonString(s))
}
