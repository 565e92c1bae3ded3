package config

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
)

// Sum is the SHA-256 of a config file's bytes. The zero Sum stands for "no
// file".
type Sum [sha256.Size]byte

// SumOf returns the [Sum] of data.
func SumOf(data []byte) Sum { return sha256.Sum256(data) }

// SyntaxError means the file is not JSON at all, or not a JSON object. It
// names the line and column (both from 1) where reading stopped.
type SyntaxError struct {
	Path   string // the file, if known
	Line   int
	Column int
	Msg    string
}

func (e *SyntaxError) Error() string {
	where := fmt.Sprintf("line %d, column %d", e.Line, e.Column)
	if e.Path != "" {
		where = e.Path + ": " + where
	}
	return where + ": " + e.Msg
}

// member is one key and its raw value, as found in a JSON object.
type member struct {
	Key   string
	Value json.RawMessage
}

var errNotObject = errors.New("not a JSON object")

// utf8BOM is written by some Windows editors at the start of a file.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// checkSyntax reports whether data is one JSON object, as a *SyntaxError
// with the position if not.
func checkSyntax(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return &SyntaxError{Line: 1, Column: 1, Msg: `the file is empty: write {"mcpServers": {}} for a configuration without servers`}
	}
	var v json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := position(data, se.Offset)
			return &SyntaxError{Line: line, Column: col, Msg: se.Error()}
		}
		return err
	}
	if v[0] != '{' {
		off := int64(len(data) - len(bytes.TrimLeft(data, " \t\r\n")))
		line, col := position(data, off+1)
		return &SyntaxError{Line: line, Column: col, Msg: `the top level must be an object, like {"mcpServers": {}}`}
	}
	return nil
}

// position turns the offset of a json.SyntaxError (the number of bytes read
// when the error was found) into the line and column of the last byte read.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 1 {
		return 1, 1
	}
	before := data[:off-1]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, col
}

// decodeObject returns the members of the JSON object data in their order,
// and the keys that appeared more than once (the last value wins, as in
// JavaScript). data must be valid JSON; errNotObject if it is not an object.
func decodeObject(data []byte) (ms []member, dups []string, err error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	t, err := dec.Token()
	if err != nil {
		return nil, nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, nil, errNotObject
	}
	seen := map[string]int{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := t.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, nil, err
		}
		if i, ok := seen[key]; ok {
			ms[i].Value = raw
			dups = append(dups, key)
			continue
		}
		seen[key] = len(ms)
		ms = append(ms, member{key, raw})
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	return ms, dups, nil
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

// isNull reports whether raw is JSON null.
func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// encode marshals v without escaping <, > and & (commands and URLs contain
// them, and the file is not HTML).
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

// objectJSON writes the members as a compact JSON object.
func objectJSON(ms []member) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := encode(m.Key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		if err := json.Compact(&b, m.Value); err != nil {
			return nil, fmt.Errorf("key %q: %w", m.Key, err)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// rawString returns the text of raw for a message, shortened.
func rawString(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return shorten(b.String(), 40)
}

// shorten cuts s to at most n bytes (on a rune boundary), marking the cut.
func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
