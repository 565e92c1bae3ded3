package aiapps

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// Doc is an app's config file, parsed so that a change leaves every other
// byte as it was: other keys and entries, comments, indentation (spaces or
// tabs), trailing commas, line endings (LF or CRLF) and a byte order mark.
// The files are read as JSON with comments (hujson) whatever the app, so
// that a comment in a file of an app that reads strict JSON is kept too.
type Doc struct {
	app  *App
	root hujson.Value
	bom  bool
	nl   string // "\n", or "\r\n" if the file has CRLF line endings
	unit string // one level of indentation
	// text is set for an app whose file is not JSON (App.format): the
	// methods of Doc then work on it.
	text *textDoc
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// Parse reads the app's config file. Missing or empty data is a file with
// nothing in it yet. A file that is not JSON (with comments), or whose top
// level or servers key is not an object, is an error: Switchboard never
// rewrites a file it cannot read.
func (a *App) Parse(data []byte) (*Doc, error) {
	if a.format != nil {
		return a.parseText(data)
	}
	d := &Doc{app: a, nl: "\n", unit: "  "}
	if rest, ok := bytes.CutPrefix(data, utf8BOM); ok {
		d.bom, data = true, rest
	}
	if bytes.Contains(data, []byte("\r\n")) {
		d.nl = "\r\n"
	}
	if len(bytes.TrimSpace(data)) == 0 {
		data = []byte("{}" + d.nl)
	}
	v, err := hujson.Parse(bytes.Clone(data))
	if err != nil {
		what := "JSON"
		if a.Comments {
			what = "JSON with comments"
		}
		return nil, fmt.Errorf("it is not valid %s (%v): fix it, or move it away, first", what, strings.TrimPrefix(err.Error(), "hujson: "))
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, errors.New(`its top level is not an object ({...}): fix it, or move it away, first`)
	}
	d.root = v
	if len(root.Members) > 0 {
		if ind, ok := indentOf(root.Members[0].Name.BeforeExtra); ok && ind != "" {
			d.unit = ind
		}
	}
	if i := d.serversIndex(); i >= 0 {
		if _, ok := root.Members[i].Value.Value.(*hujson.Object); !ok {
			return nil, fmt.Errorf("its %q is not an object: fix it by hand first", a.Key)
		}
	}
	return d, nil
}

// Bytes returns the file's content.
func (d *Doc) Bytes() []byte {
	if d.text != nil {
		return d.text.bytes()
	}
	b := d.root.Pack()
	if d.bom {
		b = append(slices.Clone(utf8BOM), b...)
	}
	return b
}

func (d *Doc) rootObj() *hujson.Object { return d.root.Value.(*hujson.Object) }

// serversIndex is the index in the root of the servers key, or -1. Of keys
// written twice the last one counts, as in JavaScript.
func (d *Doc) serversIndex() int {
	return lastMember(d.rootObj(), d.app.Key)
}

// servers returns the servers object, or nil.
func (d *Doc) servers() *hujson.Object {
	i := d.serversIndex()
	if i < 0 {
		return nil
	}
	return d.rootObj().Members[i].Value.Value.(*hujson.Object)
}

func lastMember(obj *hujson.Object, name string) int {
	for i := len(obj.Members) - 1; i >= 0; i-- {
		if memberName(obj.Members[i]) == name {
			return i
		}
	}
	return -1
}

func memberName(m hujson.ObjectMember) string {
	if l, ok := m.Name.Value.(hujson.Literal); ok {
		return l.String()
	}
	return ""
}

// Server is one entry of an app's servers, as standard JSON.
type Server struct {
	Name string
	JSON json.RawMessage
}

// Servers returns the entries of the app's servers object in file order,
// the bridge entry included.
func (d *Doc) Servers() []Server {
	if d.text != nil {
		return d.text.servers()
	}
	srv := d.servers()
	if srv == nil {
		return nil
	}
	out := make([]Server, 0, len(srv.Members))
	for _, m := range srv.Members {
		s := Server{Name: memberName(m), JSON: standard(m.Value)}
		if d.app.normalize != nil {
			var v map[string]any
			if json.Unmarshal(s.JSON, &v) == nil {
				if v = d.app.normalize(v); v == nil {
					continue
				}
				s.JSON, _ = json.Marshal(v)
			}
		}
		out = append(out, s)
	}
	return out
}

// standard returns v as compact standard JSON.
func standard(v hujson.Value) json.RawMessage {
	c := v.Clone()
	c.Minimize()
	return c.Pack()
}

// IsBridge reports whether an entry runs Switchboard's bridge: it is named
// [EntryName], or its command is switchboard-bridge, or a switchboard
// binary run with "bridge".
func (s Server) IsBridge() bool {
	if s.Name == EntryName {
		return true
	}
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	if json.Unmarshal(s.JSON, &e) != nil {
		return false
	}
	base := strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(e.Command, `\`, "/"))), ".exe")
	return base == "switchboard-bridge" || base == "switchboard" && len(e.Args) > 0 && e.Args[0] == "bridge"
}

// Connected returns the bridge entry (the last one named [EntryName]), if
// the file has one: its command, the servers of its --servers argument,
// the profile of its --profile and the mode of its --tool-mode.
func (d *Doc) Connected() (b Bridge, args []string, ok bool) {
	if d.text != nil {
		e, ok := d.text.entry(EntryName)
		if !ok {
			return Bridge{}, nil, false
		}
		raw, _ := json.Marshal(jsonable(e.raw))
		if d.app.normalize != nil {
			raw, _ = json.Marshal(jsonable(d.app.normalize(e.raw)))
		}
		return bridgeOf(raw)
	}
	srv := d.servers()
	if srv == nil {
		return Bridge{}, nil, false
	}
	i := lastMember(srv, EntryName)
	if i < 0 {
		return Bridge{}, nil, false
	}
	return bridgeOf(standard(srv.Members[i].Value))
}

// bridgeOf reads the command and args of an entry.
func bridgeOf(raw json.RawMessage) (b Bridge, args []string, ok bool) {
	var e struct {
		Command string   `json:"command"`
		Args    []string `json:"args"`
	}
	_ = json.Unmarshal(raw, &e)
	b.Command = e.Command
	for j := 0; j < len(e.Args); j++ {
		a := e.Args[j]
		if v, ok := strings.CutPrefix(a, "--servers="); ok {
			b.Servers = splitList(v)
		} else if a == "--servers" && j+1 < len(e.Args) {
			b.Servers = splitList(e.Args[j+1])
			j++
		} else if v, ok := strings.CutPrefix(a, "--profile="); ok {
			b.Profile = v
		} else if a == "--profile" && j+1 < len(e.Args) {
			b.Profile = e.Args[j+1]
			j++
		} else if v, ok := strings.CutPrefix(a, "--tool-mode="); ok {
			b.ToolMode = v
		} else if a == "--tool-mode" && j+1 < len(e.Args) {
			b.ToolMode = e.Args[j+1]
			j++
		}
	}
	return b, e.Args, true
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// SetBridge adds the bridge entry, or updates it if it differs; changed is
// false when the file already has exactly this entry. An app without the
// servers key gets one, at the end of the file's top level.
func (d *Doc) SetBridge(b Bridge) (changed bool) {
	if d.text != nil {
		return d.text.setBridge(b)
	}
	want := d.app.entry(b.Command, b.Args())
	root := d.rootObj()
	si := d.serversIndex()
	if si < 0 {
		d.insert(root, "", d.app.Key, []member{{EntryName, want}})
		return true
	}
	srv := root.Members[si].Value.Value.(*hujson.Object)
	if i := lastMember(srv, EntryName); i >= 0 {
		m := &srv.Members[i]
		if sameJSON(standard(m.Value), want) {
			return false
		}
		// Keep the entry's own style: on one line if it was.
		ind, _ := indentOf(m.Name.BeforeExtra)
		old := m.Value.Value.(interface{ Kind() hujson.Kind })
		packed := hujson.Value{Value: m.Value.Value}.Pack()
		multiline := bytes.IndexByte(packed, '\n') >= 0 || old.Kind() != '{'
		space := ""
		if bytes.Contains(packed, []byte(": ")) || bytes.Contains(packed, []byte(", ")) {
			space = " "
		}
		m.Value.Value = d.render(want, ind, multiline, space)
		return true
	}
	closeIndent, _ := indentOf(root.Members[si].Name.BeforeExtra)
	d.insert(srv, closeIndent, EntryName, want)
	return true
}

// Remove removes the entries of the servers object with these names (every
// copy of a name written twice) and returns how many it removed. When the
// servers object ends up empty in a general settings file (not
// [App.OwnFile]), the key goes too.
func (d *Doc) Remove(names ...string) int {
	if d.text != nil {
		return d.text.remove(names...)
	}
	root := d.rootObj()
	si := d.serversIndex()
	if si < 0 {
		return 0
	}
	srv := root.Members[si].Value.Value.(*hujson.Object)
	n := 0
	for i := len(srv.Members) - 1; i >= 0; i-- {
		if slices.Contains(names, memberName(srv.Members[i])) {
			removeMember(srv, i)
			n++
		}
	}
	if n > 0 && !d.app.OwnFile && len(srv.Members) == 0 && srv.AfterExtra == nil {
		removeMember(root, si)
	}
	return n
}

// Disconnect removes the bridge entry; false if there was none.
func (d *Doc) Disconnect() bool { return d.Remove(EntryName) > 0 }

// Replace puts the bridge entry in place of the entries with these names
// (what `clients import` does once Switchboard has them): the bridge entry
// is set first, so the servers key keeps its place and style.
func (d *Doc) Replace(names []string, b Bridge) {
	d.SetBridge(b)
	d.Remove(slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == EntryName })...)
}

// sameJSON reports whether raw holds the same JSON value as want.
func sameJSON(raw json.RawMessage, want []member) bool {
	var a, b any
	if json.Unmarshal(raw, &a) != nil {
		return false
	}
	wb, err := json.Marshal(toAny(want))
	if err != nil || json.Unmarshal(wb, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

func toAny(v any) any {
	if ms, ok := v.([]member); ok {
		m := map[string]any{}
		for _, x := range ms {
			m[x.key] = toAny(x.value)
		}
		return m
	}
	return v
}

// insert adds a member at the end of obj in the style of obj's members:
// one per line with their indentation, or all on one line; a trailing
// comma if the last member has one. A comment at the end of the last
// member's line stays on that line. closeIndent is the indentation of the
// line that holds obj's closing brace.
func (d *Doc) insert(obj *hujson.Object, closeIndent, name string, value any) {
	multiline, indent := true, closeIndent+d.unit
	colon := []byte(" ")
	n := len(obj.Members)
	if n > 0 {
		first := obj.Members[0]
		indent, multiline = indentOf(first.Name.BeforeExtra)
		colon = wsOnly(first.Value.BeforeExtra)
	}
	m := hujson.ObjectMember{
		Name:  hujson.Value{Value: hujson.String(name)},
		Value: hujson.Value{BeforeExtra: colon, Value: d.render(value, indent, multiline, string(colon))},
	}
	if n > 0 {
		m.Name.AfterExtra = wsOnly(obj.Members[0].Name.AfterExtra)
	}
	if multiline {
		head, tail := splitLastLine(obj.AfterExtra)
		if n == 0 && tail == nil {
			tail = []byte(d.nl + closeIndent)
		}
		m.Name.BeforeExtra = concat(head, []byte(d.nl+indent))
		obj.AfterExtra = tail
	} else {
		m.Name.BeforeExtra = colon
		if n >= 2 {
			m.Name.BeforeExtra = wsOnly(obj.Members[n-1].Name.BeforeExtra)
		}
	}
	if n > 0 && obj.Members[n-1].Value.AfterExtra != nil {
		m.Value.AfterExtra = []byte{} // keep the trailing comma
	}
	obj.Members = append(obj.Members, m)
}

// removeMember removes member i of obj; the comments and blank lines
// before its line stay (they may belong to the member before it), its
// trailing comma style passes to the member that becomes last. An object
// left with nothing but whitespace becomes {}.
func removeMember(obj *hujson.Object, i int) {
	m := obj.Members[i]
	n := len(obj.Members)
	lead, tail := splitLastLine(m.Name.BeforeExtra)
	if tail == nil && wsOnly(lead) != nil {
		lead = nil // one line: the space before the member goes with it
	}
	obj.Members = slices.Delete(obj.Members, i, i+1)
	if i < n-1 {
		next := &obj.Members[i]
		if tail == nil && isSpace(m.Name.BeforeExtra) && isSpace(next.Name.BeforeExtra) {
			// One line: the next member takes the removed one's place.
			next.Name.BeforeExtra = concat(nil, m.Name.BeforeExtra)
			return
		}
		next.Name.BeforeExtra = concat(lead, dropLineComment(next.Name.BeforeExtra))
		return
	}
	obj.AfterExtra = dropLineComment(obj.AfterExtra)
	if i > 0 {
		prev := &obj.Members[i-1]
		switch {
		case m.Value.AfterExtra != nil && prev.Value.AfterExtra == nil:
			prev.Value.AfterExtra = []byte{} // keep the trailing comma
		case m.Value.AfterExtra == nil && prev.Value.AfterExtra != nil:
			lead = concat(prev.Value.AfterExtra, lead)
			prev.Value.AfterExtra = nil
		}
	}
	obj.AfterExtra = concat(lead, obj.AfterExtra)
	if len(obj.Members) == 0 && len(bytes.TrimSpace(obj.AfterExtra)) == 0 {
		obj.AfterExtra = nil
	}
}

// dropLineComment removes the comments at the start of extra that are on
// the line of what came before it (`}, // about this entry`): they go with
// a removed member.
func dropLineComment(extra []byte) []byte {
	i, comment := 0, false
	for i < len(extra) {
		switch {
		case extra[i] == ' ' || extra[i] == '\t':
			i++
		case bytes.HasPrefix(extra[i:], []byte("//")):
			j := bytes.IndexByte(extra[i:], '\n')
			if j < 0 {
				j = len(extra) - i
			}
			i += j
			if i > 0 && extra[i-1] == '\r' {
				i--
			}
			comment = true
		case bytes.HasPrefix(extra[i:], []byte("/*")):
			j := bytes.Index(extra[i+2:], []byte("*/"))
			if j < 0 {
				return extra // not valid: leave it
			}
			i += 2 + j + 2
			comment = true
		default:
			if !comment {
				return extra
			}
			return concat(nil, extra[i:])
		}
	}
	if !comment {
		return extra
	}
	return nil
}

// render returns value (a string, []string or []member) as a hujson value
// whose first line starts at indent: objects one member per line, or on
// one line if !multiline, with space after each ':' and ',' (the file's
// style: " " or none); arrays always on one line.
func (d *Doc) render(value any, indent string, multiline bool, space string) hujson.ValueTrimmed {
	if multiline {
		space = " "
	}
	var b bytes.Buffer
	d.write(&b, value, indent, multiline, space)
	v, err := hujson.Parse(b.Bytes())
	if err != nil {
		panic(fmt.Sprintf("clients: rendered invalid JSON %q: %v", b.Bytes(), err))
	}
	return v.Value
}

func (d *Doc) write(b *bytes.Buffer, value any, indent string, multiline bool, space string) {
	switch v := value.(type) {
	case []member:
		b.WriteByte('{')
		for i, m := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if multiline {
				b.WriteString(d.nl + indent + d.unit)
			} else if i > 0 {
				b.WriteString(space)
			}
			b.Write(jsonString(m.key))
			b.WriteString(":" + space)
			d.write(b, m.value, indent+d.unit, multiline, space)
		}
		if multiline && len(v) > 0 {
			b.WriteString(d.nl + indent)
		}
		b.WriteByte('}')
	case []string:
		b.WriteByte('[')
		for i, s := range v {
			if i > 0 {
				b.WriteString("," + space)
			}
			b.Write(jsonString(s))
		}
		b.WriteByte(']')
	case string:
		b.Write(jsonString(v))
	default:
		panic(fmt.Sprintf("clients: cannot render %T", value))
	}
}

// jsonString encodes s without escaping <, > and & (paths may hold them).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// indentOf returns the leading spaces and tabs of the last line of extra,
// and whether extra has a line break at all.
func indentOf(extra []byte) (string, bool) {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return "", false
	}
	line := extra[i+1:]
	j := 0
	for j < len(line) && (line[j] == ' ' || line[j] == '\t') {
		j++
	}
	return string(line[:j]), true
}

// splitLastLine splits extra before its last line break (CRLF or LF):
// head is what comes before, tail the break and the last line. Without a
// line break, head is extra and tail nil.
func splitLastLine(extra []byte) (head, tail []byte) {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return extra, nil
	}
	if i > 0 && extra[i-1] == '\r' {
		i--
	}
	return extra[:i:i], extra[i:]
}

// isSpace reports whether extra is spaces and tabs only (no line break,
// no comment).
func isSpace(extra []byte) bool { return len(bytes.Trim(extra, " \t")) == 0 }

// wsOnly returns extra if it is only whitespace (no comment), else nil.
func wsOnly(extra []byte) []byte {
	if len(bytes.TrimLeft(extra, " \t\r\n")) > 0 {
		return nil
	}
	return slices.Clone(extra)
}

// concat returns a+b, nil if both are empty.
func concat(a, b []byte) []byte {
	if len(a)+len(b) == 0 {
		return nil
	}
	return append(slices.Clone(a), b...)
}
