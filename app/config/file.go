package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// File is a config file: its servers, plus everything this version does not
// know, kept so that writing the file back loses nothing.
type File struct {
	// Servers are the entries of mcpServers by name. Change them in place,
	// or with SetServer, RemoveServer and SetDisabled, which also keep the
	// file's order.
	Servers map[string]*Server

	order        []string                   // server names in the file's order
	top          []string                   // top-level keys in the file's order
	extra        map[string]json.RawMessage // unknown top-level keys
	fileProblems []Problem                  // problems of the file found while reading it
	report       *Report
	sum          Sum
}

// New returns an empty configuration, as [Update] starts from when the file
// does not exist. Its Sum is the zero Sum ("no file").
func New() *File {
	f := &File{Servers: map[string]*Server{}, extra: map[string]json.RawMessage{}}
	f.Check()
	return f
}

// Load reads and checks the file at path. The error is nil unless the file
// cannot be read (errors.Is(err, fs.ErrNotExist) when it does not exist; a
// [*FileError] when it is not a regular file or is over [MaxFileSize]), is
// not JSON (a [*SyntaxError] with the line and column), or has a version
// this Switchboard cannot read. Invalid entries do not make Load fail: they
// are in [File.Report] and marked invalid, and the other entries are usable.
func Load(path string) (*File, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			se.Path = path
			return nil, se
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse reads and checks a config file's content, as [Load] does.
func Parse(data []byte) (*File, error) {
	sum := SumOf(data)
	data = bytes.TrimPrefix(data, utf8BOM)
	if err := checkSyntax(data); err != nil {
		return nil, err
	}
	ms, dups, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	doc := &document{members: ms}
	for _, m := range ms {
		if m.Key == "version" {
			v, err := parseVersion(m.Value)
			if err != nil {
				return nil, err
			}
			doc.version = v
		}
	}
	if doc.version > CurrentVersion {
		return nil, Problem{Key: "version", Message: fmt.Sprintf("%d is newer than this Switchboard understands (%d): update Switchboard", doc.version, CurrentVersion)}
	}
	if err := migrate(doc); err != nil {
		return nil, err
	}

	f := &File{Servers: map[string]*Server{}, extra: map[string]json.RawMessage{}, sum: sum}
	for _, d := range dups {
		f.fileProblems = append(f.fileProblems, Problem{Key: d, Message: "appears more than once: keep one (the last one is used)"})
	}
	for _, m := range doc.members {
		f.top = append(f.top, m.Key)
		switch m.Key {
		case "version":
		case "mcpServers":
			if err := f.readServers(m.Value); err != nil {
				return nil, err
			}
		default:
			f.extra[m.Key] = m.Value
		}
	}
	f.Check()
	return f, nil
}

// parseVersion reads the version: a whole number, 0 or more.
func parseVersion(raw json.RawMessage) (int, error) {
	var v int
	if err := json.Unmarshal(raw, &v); err != nil || v < 0 {
		return 0, Problem{Key: "version", Message: fmt.Sprintf(`%s is not a version: write "version": %d`, rawString(raw), CurrentVersion)}
	}
	return v, nil
}

// readServers reads mcpServers. Anything but an object is an error of the
// whole file, not an empty list: applied, it would stop every server for
// a typo (null, [], a string), so the file is refused and a host keeps
// the config it has.
func (f *File) readServers(raw json.RawMessage) error {
	if isNull(raw) {
		return Problem{Key: "mcpServers", Message: `is null, not an object of servers: write "mcpServers": {} for no servers, or put the entries back`}
	}
	ms, dups, err := decodeObject(raw)
	if err != nil {
		return Problem{Key: "mcpServers", Message: fmt.Sprintf(`is %s, not an object of servers by name: write it like {"files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"]}}`, jsonKind(raw))}
	}
	for _, d := range dups {
		f.fileProblems = append(f.fileProblems, Problem{Key: "mcpServers", Message: fmt.Sprintf("the server %q appears more than once: keep one (the last one is used)", d)})
	}
	for _, m := range ms {
		f.order = append(f.order, m.Key)
		f.Servers[m.Key] = parseServer(m.Value)
	}
	return nil
}

// jsonKind names the kind of a JSON value: "a list", "a string"...
func jsonKind(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "empty"
	}
	switch b[0] {
	case '[':
		return "a list"
	case '"':
		return "a string " + rawString(raw)
	case 't', 'f':
		return "a boolean"
	case '{':
		return "an object that cannot be read"
	}
	return "a number " + rawString(raw)
}

// Sum returns the [Sum] of the bytes the file was parsed from, or the zero
// Sum for [New]. Give it to [Watcher.Ignore] so that the content already
// loaded does not count as a change.
func (f *File) Sum() Sum { return f.sum }

// Names returns the servers' names in the file's order; servers added since
// come last, sorted.
func (f *File) Names() []string {
	names := make([]string, 0, len(f.Servers))
	for _, n := range f.order {
		if _, ok := f.Servers[n]; ok && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	var more []string
	for n := range f.Servers {
		if !slices.Contains(names, n) {
			more = append(more, n)
		}
	}
	sort.Strings(more)
	return append(names, more...)
}

// Check validates the file and every entry, records each entry's problems
// (see [Server.Problems]) and returns the [Report]. [Load] and [Update]
// run it; run it again after changing Servers. It reads the file system
// (cwd and stderr file directories must exist).
func (f *File) Check() *Report {
	r := &Report{File: slices.Clone(f.fileProblems)}
	r.File = append(r.File, f.gatewayProblems()...)
	r.File = append(r.File, f.registriesProblems()...) // registries.go
	r.File = append(r.File, f.approvalsProblems()...)  // approvals (policy.go)
	r.File = append(r.File, f.activityProblems()...)
	r.File = append(r.File, f.ProfileProblems()...)  // profiles.go
	r.File = append(r.File, f.defaultsProblems()...) // defaults (start.go)
	for _, name := range f.Names() {
		s := f.Servers[name]
		if s == nil {
			continue
		}
		ps := s.validate(name)
		s.problems, s.checked = ps, true
		r.add(name, ps)
		for _, n := range s.notices {
			n.Server = name
			r.add(name, []Problem{n})
		}
	}
	f.report = r
	return r
}

// Report returns the [Report] of the last [File.Check].
func (f *File) Report() *Report {
	if f.report == nil {
		return &Report{}
	}
	return f.report
}

// SetServer adds the entry name, or replaces it where it is in the file. A
// replacement built from scratch keeps the unknown keys of the entry it
// replaces. Check reports an invalid name.
func (f *File) SetServer(name string, s *Server) {
	if f.Servers == nil {
		f.Servers = map[string]*Server{}
	}
	if old := f.Servers[name]; old != nil && old != s && s.keys == nil && len(s.extra) == 0 {
		s.keys = slices.Clone(old.keys)
		s.extra = map[string]json.RawMessage{}
		for k, v := range old.extra {
			if !slices.Contains(knownKeys, k) && !slices.Contains(passKeys, k) {
				s.extra[k] = v
			}
		}
		if s.envOrder == nil {
			s.envOrder = slices.Clone(old.envOrder)
		}
	} else if old != nil && old != s {
		// A replacement parsed from JSON (an API client's entry, whose
		// keys come in whatever order its encoder chose): the keys and
		// variables the file had keep the file's order.
		s.keys = keepOrder(old.keys, s.keys)
		s.envOrder = keepOrder(old.envOrder, s.envOrder)
	}
	if !slices.Contains(f.order, name) {
		f.order = append(f.order, name)
	}
	s.checked = false
	f.Servers[name] = s
}

// keepOrder returns cur with the names that were in old first, in old's
// order, then the rest in cur's order.
func keepOrder(old, cur []string) []string {
	out := make([]string, 0, len(cur))
	for _, k := range old {
		if slices.Contains(cur, k) && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for _, k := range cur {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}

// RemoveServer removes the entry name and reports whether it was there.
func (f *File) RemoveServer(name string) bool {
	if _, ok := f.Servers[name]; !ok {
		return false
	}
	delete(f.Servers, name)
	f.order = slices.DeleteFunc(f.order, func(n string) bool { return n == name })
	return true
}

// SetDisabled disables or enables the entry name.
func (f *File) SetDisabled(name string, disabled bool) error {
	s := f.Servers[name]
	switch {
	case s == nil:
		return fmt.Errorf("no server named %q in the configuration", name)
	case s.raw != nil:
		return fmt.Errorf("server %q is not an object: fix the entry first", name)
	}
	s.Disabled = disabled
	if !disabled {
		// Enabled is the default: the key goes rather than stay as false.
		s.keys = slices.DeleteFunc(s.keys, func(k string) bool { return k == "disabled" })
	}
	return nil
}

// Marshal returns the file's content: 2-space indented JSON with the
// version first (unless the file had it elsewhere), the file's unknown keys
// where they were, and the servers in the file's order.
func (f *File) Marshal() ([]byte, error) {
	top := slices.Clone(f.top)
	if !slices.Contains(top, "version") {
		top = append([]string{"version"}, top...)
	}
	if !slices.Contains(top, "mcpServers") {
		top = append(top, "mcpServers")
	}
	for _, k := range sortedKeys(f.extra) {
		if !slices.Contains(top, k) {
			top = append(top, k)
		}
	}
	var ms []member
	for _, k := range top {
		switch k {
		case "version":
			ms = append(ms, member{k, json.RawMessage(fmt.Sprint(CurrentVersion))})
		case "mcpServers":
			raw, err := f.serversJSON()
			if err != nil {
				return nil, err
			}
			ms = append(ms, member{k, raw})
		default:
			if raw, ok := f.extra[k]; ok {
				ms = append(ms, member{k, raw})
			}
		}
	}
	compact, err := objectJSON(ms)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func (f *File) serversJSON() (json.RawMessage, error) {
	var ms []member
	for _, name := range f.Names() {
		s := f.Servers[name]
		if s == nil {
			continue
		}
		raw, err := s.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("server %q: %w", name, err)
		}
		ms = append(ms, member{name, raw})
	}
	return objectJSON(ms)
}
