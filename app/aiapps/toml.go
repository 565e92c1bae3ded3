package aiapps

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// tomlTables is a TOML file whose servers are the tables under one key:
// Codex's [mcp_servers.NAME]. It is read with github.com/BurntSushi/toml
// and changed as text (see [textFormat]): a new server is a
// [mcp_servers.NAME] table after the last server's table (or at the end
// of the file), after a blank line; a removed server's tables, and its
// lines in an [mcp_servers] table, go with the blank line before them.
type tomlTables struct{ key string }

// tomlStmt is one statement of a TOML file: a table header, or a key and
// its value (which may span lines).
type tomlStmt struct {
	start, end int // whole lines, line break included
	header     bool
	key        []string // the header's table, or the statement's dotted key
	table      []string // the table the statement is in (nil: the root)
}

func (f tomlTables) scan(src []byte) (any, []textEntry, error) {
	var doc map[string]any
	md, err := toml.Decode(string(src), &doc)
	if err != nil {
		return nil, nil, fmt.Errorf("it is not valid TOML (%v): fix it, or move it away, first", err)
	}
	var names []string
	for _, k := range md.Keys() {
		if len(k) >= 2 && k[0] == f.key && !slices.Contains(names, k[1]) {
			names = append(names, k[1])
		}
	}
	servers, _ := doc[f.key].(map[string]any)
	if _, ok := doc[f.key]; ok && servers == nil {
		return nil, nil, fmt.Errorf("its %s is not a table: fix it by hand first", f.key)
	}
	stmts, err := tomlStatements(src)
	if err != nil {
		return nil, nil, fmt.Errorf("it is not valid TOML (%v): fix it, or move it away, first", err)
	}
	var entries []textEntry
	for _, name := range names {
		raw, ok := servers[name].(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("its %s.%s is not a table: fix it by hand first", f.key, name)
		}
		spans := f.spans(stmts, name)
		if len(spans) == 0 {
			return nil, nil, fmt.Errorf("%s.%s is written in a form Switchboard does not edit: write it as a [%s.%s] table", f.key, name, f.key, tomlKey(name))
		}
		entries = append(entries, textEntry{name: name, raw: raw, spans: spans})
	}
	return doc, entries, nil
}

// spans returns where server name is written: its [KEY.NAME...] tables,
// and its statements in the [KEY] table or at the root.
func (f tomlTables) spans(stmts []tomlStmt, name string) []span {
	var out []span
	add := func(s span) {
		if n := len(out); n > 0 && out[n-1].end == s.start {
			out[n-1].end = s.end
			return
		}
		out = append(out, s)
	}
	for i := 0; i < len(stmts); i++ {
		s := stmts[i]
		switch {
		case s.header && len(s.key) >= 2 && s.key[0] == f.key && s.key[1] == name:
			end := s.end
			for i+1 < len(stmts) && !stmts[i+1].header {
				i++
				end = stmts[i].end
			}
			add(span{s.start, end})
		case !s.header && slices.Equal(s.table, []string{f.key}) && len(s.key) >= 1 && s.key[0] == name,
			!s.header && s.table == nil && len(s.key) >= 2 && s.key[0] == f.key && s.key[1] == name:
			add(span{s.start, s.end})
		}
	}
	return out
}

func (f tomlTables) without(doc any, name string) any {
	m := maps.Clone(doc.(map[string]any))
	if s, ok := m[f.key].(map[string]any); ok {
		s = maps.Clone(s)
		delete(s, name)
		m[f.key] = s
		if len(s) == 0 {
			delete(m, f.key)
		}
	}
	return m
}

func (f tomlTables) entryValue(doc any, name string) (any, bool) {
	s, _ := doc.(map[string]any)[f.key].(map[string]any)
	v, ok := s[name]
	return v, ok
}

func (f tomlTables) remove(src []byte, nl string, entries []textEntry, name string, _ bool) []byte {
	var spans []span
	for _, e := range entries {
		if e.name == name {
			spans = append(spans, e.spans...)
		}
	}
	return cutLines(src, nl, spans, true)
}

func (f tomlTables) insert(src []byte, nl string, entries []textEntry, name string, entry []member) []byte {
	pos := len(src)
	if stmts, err := tomlStatements(src); err == nil {
		// After the last table of a server, or of the [KEY] table itself.
		for i := 0; i < len(stmts); i++ {
			s := stmts[i]
			if s.header && len(s.key) >= 1 && s.key[0] == f.key {
				end := s.end
				for i+1 < len(stmts) && !stmts[i+1].header {
					i++
					end = stmts[i].end
				}
				pos = end
			}
		}
	}
	lines := []string{"[" + f.key + "." + tomlKey(name) + "]"}
	for _, m := range entry {
		lines = append(lines, tomlKey(m.key)+" = "+tomlValue(m.value))
	}
	return insertBlock(src, nl, pos, lines, true)
}

var tomlBare = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// tomlKey writes a key bare when TOML allows it, else quoted.
func tomlKey(k string) string {
	if tomlBare.MatchString(k) {
		return k
	}
	return tomlString(k)
}

func tomlValue(v any) string {
	switch x := v.(type) {
	case string:
		return tomlString(x)
	case bool:
		return fmt.Sprint(x)
	case []string:
		q := make([]string, len(x))
		for i, s := range x {
			q[i] = tomlString(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	panic(fmt.Sprintf("clients: cannot write %T in TOML", v))
}

// tomlString quotes s: a literal string ('C:\path') when it has
// backslashes and nothing a literal string cannot hold, else a basic
// string, whose escapes are JSON's.
func tomlString(s string) string {
	if strings.Contains(s, `\`) && !strings.ContainsAny(s, "'\x7f") && printable(s) {
		return "'" + s + "'"
	}
	return string(jsonString(s))
}

func printable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	return true
}

// tomlStatements splits a TOML file into statements: enough of a lexer to
// tell table headers from keys, and to find where a value that spans
// lines (an array, a multi-line string) ends.
func tomlStatements(src []byte) ([]tomlStmt, error) {
	var out []tomlStmt
	var table []string
	n := len(src)
	i := 0
	eol := func(j int) int { // the end of the line j is on, line break included
		for j < n && src[j] != '\n' {
			j++
		}
		if j < n {
			j++
		}
		return j
	}
	for i < n {
		start := i
		j := i
		for j < n && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j == n || src[j] == '\n' || src[j] == '\r' || src[j] == '#' {
			i = eol(j)
			continue
		}
		if src[j] == '[' {
			j++
			if j < n && src[j] == '[' {
				j++
			}
			key, k, err := tomlDottedKey(src, j)
			if err != nil {
				return nil, err
			}
			table = key
			out = append(out, tomlStmt{start: start, end: eol(k), header: true, key: key, table: key})
			i = eol(k)
			continue
		}
		key, k, err := tomlDottedKey(src, j)
		if err != nil {
			return nil, err
		}
		for k < n && (src[k] == ' ' || src[k] == '\t') {
			k++
		}
		if k >= n || src[k] != '=' {
			return nil, errors.New("a key without '='")
		}
		end, err := tomlValueEnd(src, k+1)
		if err != nil {
			return nil, err
		}
		out = append(out, tomlStmt{start: start, end: eol(end), key: key, table: table})
		i = eol(end)
	}
	return out, nil
}

// tomlDottedKey reads a dotted key (bare or quoted parts) at j; it
// returns the parts and where it ends.
func tomlDottedKey(src []byte, j int) ([]string, int, error) {
	n := len(src)
	var parts []string
	for {
		for j < n && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j >= n {
			return nil, j, errors.New("a key ends the file")
		}
		switch src[j] {
		case '"':
			k := j + 1
			var b strings.Builder
			for k < n && src[k] != '"' {
				if src[k] == '\\' && k+1 < n {
					// Keys with escapes are rare; keep the escaped text.
					b.WriteByte(src[k+1])
					k += 2
					continue
				}
				b.WriteByte(src[k])
				k++
			}
			parts = append(parts, b.String())
			j = k + 1
		case '\'':
			k := j + 1
			for k < n && src[k] != '\'' {
				k++
			}
			parts = append(parts, string(src[j+1:k]))
			j = k + 1
		default:
			k := j
			for k < n && (src[k] == '_' || src[k] == '-' || src[k] >= '0' && src[k] <= '9' || src[k] >= 'A' && src[k] <= 'Z' || src[k] >= 'a' && src[k] <= 'z') {
				k++
			}
			if k == j {
				return nil, j, fmt.Errorf("an unexpected %q", src[j])
			}
			parts = append(parts, string(src[j:k]))
			j = k
		}
		for j < n && (src[j] == ' ' || src[j] == '\t') {
			j++
		}
		if j < n && src[j] == '.' {
			j++
			continue
		}
		return parts, j, nil
	}
}

// tomlValueEnd returns where the value that starts at j ends: the first
// line break outside strings, arrays and inline tables.
func tomlValueEnd(src []byte, j int) (int, error) {
	n := len(src)
	depth := 0
	for j < n {
		c := src[j]
		switch {
		case c == '\n':
			if depth == 0 {
				return j, nil
			}
			j++
		case c == '#':
			for j < n && src[j] != '\n' {
				j++
			}
		case c == '[' || c == '{':
			depth++
			j++
		case c == ']' || c == '}':
			depth--
			j++
		case c == '"' || c == '\'':
			q := string(c)
			if strings.HasPrefix(string(src[j:min(j+3, n)]), q+q+q) {
				k := strings.Index(string(src[j+3:]), q+q+q)
				if k < 0 {
					return 0, errors.New("an unterminated multi-line string")
				}
				j += 3 + k + 3
				for j < n && src[j] == c { // """a"""" ends with the quotes
					j++
				}
				continue
			}
			k := j + 1
			for k < n && src[k] != c && src[k] != '\n' {
				if c == '"' && src[k] == '\\' {
					k++
				}
				k++
			}
			j = k + 1
		default:
			j++
		}
	}
	return n, nil
}
