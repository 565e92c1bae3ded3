package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// The tool modes of a profile (and of a bridge's --tool-mode): "all" lists
// every tool the profile lets through; "search" lists find_tools and
// call_tool instead (the gateway's search mode).
const (
	ToolModeAll    = "all"
	ToolModeSearch = "search"
)

// ValidToolMode reports whether m is a tool mode ("" is the default, all).
func ValidToolMode(m string) bool { return m == "" || m == ToolModeAll || m == ToolModeSearch }

// Profile is one entry of the top-level "profiles" object: a named
// selection of servers and tools that a bridge asks for with --profile.
//
//	"profiles": {"coding": {"servers": ["git", "files"],
//	                        "tools": {"deny": ["files__write_*"]},
//	                        "toolMode": "all"}}
//
// Servers nil means every server. Tools' patterns are those of
// [path.Match] on the names the apps see (SERVER__TOOL; a shortened name
// also matches through its full SERVER__TOOL form): a tool is seen if it
// matches an allow pattern (or there are none) and no deny pattern. A
// server the profile names that mcpServers lacks is a warning, not an
// error: the profile works with the servers that exist, and the server
// shows up in it once it is added.
type Profile struct {
	Servers  []string `json:"servers,omitempty"`
	Tools    *Tools   `json:"tools,omitempty"`
	ToolMode string   `json:"toolMode,omitempty"`
	// Roots are the folders (absolute paths) a server is given when it
	// asks for roots (roots/list) while serving an app of the profile
	// that does not give its own (issue 30 §2); nil: none.
	Roots []string `json:"roots,omitempty"`
	// Sampling names the app (its clientInfo name, as the activity log
	// shows it) whose model answers a server's sampling/createMessage
	// while serving an app of the profile; "": the app that made the call.
	Sampling string `json:"sampling,omitempty"`

	extra    []member  // keys this version does not know, as written
	problems []Problem // problems of the profile itself (not the warnings about missing servers)
}

// profileKeys are a profile's keys, in the order a new one is written.
var profileKeys = []string{"servers", "tools", "toolMode", "roots", "sampling"}

const profileExample = `{"servers": ["git", "files"], "tools": {"deny": ["files__write_*"]}, "toolMode": "all"}`

// Valid reports whether the profile could be read whole: a profile with a
// problem (a malformed pattern, an unknown tool mode...) shows an app no
// tools, rather than more than it says.
func (p *Profile) Valid() bool { return p != nil && len(p.problems) == 0 }

// Problems returns the profile's own problems (those of [File.ProfileProblems]
// but the warnings about missing servers).
func (p *Profile) Problems() []Problem {
	if p == nil {
		return nil
	}
	return slices.Clone(p.problems)
}

// SeesServer reports whether the profile takes in the server name.
func (p *Profile) SeesServer(name string) bool {
	return p.Servers == nil || slices.Contains(p.Servers, name)
}

// SeesTool reports whether the profile lets through a tool of server,
// named name by the server and exposed by the gateway (SERVER__TOOL, or
// its shortened form).
func (p *Profile) SeesTool(server, name, exposed string) bool {
	if !p.SeesServer(server) {
		return false
	}
	if p.Tools == nil {
		return true
	}
	full := server + "__" + name
	match := func(patterns []string) bool {
		for _, pat := range patterns {
			if ok, _ := path.Match(pat, exposed); ok {
				return true
			}
			if full != exposed {
				if ok, _ := path.Match(pat, full); ok {
					return true
				}
			}
		}
		return false
	}
	if len(p.Tools.Allow) > 0 && !match(p.Tools.Allow) {
		return false
	}
	return !match(p.Tools.Deny)
}

// Mode returns the profile's tool mode, "all" when omitted.
func (p *Profile) Mode() string {
	if p == nil || p.ToolMode == "" {
		return ToolModeAll
	}
	return p.ToolMode
}

// profileMembers returns the members of the "profiles" object, or an error
// (a Problem) when it is not an object. No key is no profiles.
func (f *File) profileMembers() ([]member, []string, error) {
	raw, ok := f.extra["profiles"]
	if !ok || isNull(raw) {
		return nil, nil, nil
	}
	ms, dups, err := decodeObject(raw)
	if err != nil {
		return nil, nil, Problem{Key: "profiles", Message: fmt.Sprintf(`is %s, not an object of profiles by name: write it like {"coding": %s}`, jsonKind(raw), profileExample)}
	}
	return ms, dups, nil
}

// ProfileNames returns the profiles' names in the file's order (those
// with an invalid name too: [File.ProfileProblems] reports them).
func (f *File) ProfileNames() []string {
	ms, _, _ := f.profileMembers()
	names := make([]string, 0, len(ms))
	for _, m := range ms {
		names = append(names, m.Key)
	}
	return names
}

// Profile returns the profile name, or nil if the file has none of that
// name. A profile that could not be read whole is returned with its
// problems (see [Profile.Valid]).
func (f *File) Profile(name string) *Profile {
	ms, _, _ := f.profileMembers()
	for _, m := range ms {
		if m.Key == name {
			return parseProfile(name, m.Value)
		}
	}
	return nil
}

// Profiles returns every profile by name.
func (f *File) Profiles() map[string]*Profile {
	ms, _, _ := f.profileMembers()
	out := make(map[string]*Profile, len(ms))
	for _, m := range ms {
		out[m.Key] = parseProfile(m.Key, m.Value)
	}
	return out
}

// profileKey is the path of a profile's key in the file: profiles.coding.tools.
func profileKey(name, key string) string {
	s := "profiles." + name
	if !ValidServerName(name) {
		s = "profiles[" + strconv.Quote(name) + "]"
	}
	if key != "" {
		s += "." + key
	}
	return s
}

// parseProfile reads one profile; what it cannot read is a problem of the
// profile, and the rest is read.
func parseProfile(name string, raw json.RawMessage) *Profile {
	p := &Profile{}
	bad := func(key, format string, args ...any) {
		p.problems = append(p.problems, Problem{Key: profileKey(name, key), Message: fmt.Sprintf(format, args...)})
	}
	if !ValidServerName(name) {
		bad("", "the name %q is not valid: %s (for example %q)", name, serverNameMsg, NormalizeName(name))
	}
	ms, dups, err := decodeObject(raw)
	if err != nil {
		bad("", "must be an object, like %s", profileExample)
		return p
	}
	for _, d := range dups {
		bad(d, "appears more than once: keep one (the last one is used)")
	}
	strs := func(key string, v json.RawMessage, example string) ([]string, bool) {
		var out []string
		if err := json.Unmarshal(v, &out); err != nil || isNull(v) {
			bad(key, "must be a list of strings, like %s", example)
			return nil, false
		}
		return out, true
	}
	for _, m := range ms {
		switch m.Key {
		case "servers":
			if ss, ok := strs("servers", m.Value, `["git", "files"]`); ok {
				p.Servers = ss
				if p.Servers == nil {
					p.Servers = []string{}
				}
			}
		case "tools":
			tms, _, err := decodeObject(m.Value)
			if err != nil {
				bad("tools", `must be an object, like {"allow": ["git__*"], "deny": ["files__write_*"]}`)
				continue
			}
			t := &Tools{}
			for _, tm := range tms {
				var dst *[]string
				switch tm.Key {
				case "allow":
					dst = &t.Allow
				case "deny":
					dst = &t.Deny
				default:
					bad("tools."+tm.Key, `is not a known key: use "allow" or "deny"`)
					continue
				}
				ps, ok := strs("tools."+tm.Key, tm.Value, `["files__write_*"]`)
				if !ok {
					continue
				}
				for i, pat := range ps {
					if _, err := path.Match(pat, "x"); err != nil {
						bad(fmt.Sprintf("tools.%s[%d]", tm.Key, i), "%q is not a valid pattern: use * and ? wildcards, and close every [ (patterns match the names the apps see, SERVER__TOOL)", pat)
					}
				}
				*dst = ps
			}
			p.Tools = t
		case "toolMode":
			var mode string
			if json.Unmarshal(m.Value, &mode) != nil || mode == "" || !ValidToolMode(mode) {
				bad("toolMode", `%s is not a tool mode: write "all" (every tool) or "search" (find_tools and call_tool)`, rawString(m.Value))
				continue
			}
			p.ToolMode = mode
		case "roots":
			rs, ok := strs("roots", m.Value, `["/home/me/projects"]`)
			if !ok {
				continue
			}
			for i, r := range rs {
				if !absolutePath(r) {
					bad(fmt.Sprintf("roots[%d]", i), "%q is not an absolute path: a root is a folder the servers may be told about, like \"/home/me/projects\"", r)
				}
			}
			p.Roots = rs
		case "sampling":
			var app string
			if json.Unmarshal(m.Value, &app) != nil || app == "" {
				bad("sampling", `%s is not an app's name: write the name an app gives (as 'switchboard activity' shows it), like "claude-ai"`, rawString(m.Value))
				continue
			}
			p.Sampling = app
		default:
			p.extra = append(p.extra, m)
			bad(m.Key, `is not a known key: a profile has "servers", "tools", "toolMode", "roots" and "sampling", like %s`, profileExample)
		}
	}
	return p
}

// ProfileProblems returns the problems of the "profiles" key: those of
// each profile, and a warning ([Problem.Warning]) for each server a
// profile names that mcpServers lacks.
func (f *File) ProfileProblems() []Problem {
	ms, dups, err := f.profileMembers()
	if err != nil {
		var p Problem
		if errors.As(err, &p) {
			return []Problem{p}
		}
		return []Problem{{Key: "profiles", Message: err.Error()}}
	}
	var ps []Problem
	for _, d := range dups {
		ps = append(ps, Problem{Key: "profiles", Message: fmt.Sprintf("the profile %q appears more than once: keep one (the last one is used)", d)})
	}
	for _, m := range ms {
		p := parseProfile(m.Key, m.Value)
		ps = append(ps, p.problems...)
		ps = append(ps, f.missingServers(m.Key, p)...)
	}
	return ps
}

// missingServers are the warnings about the servers profile name names
// that the file lacks.
func (f *File) missingServers(name string, p *Profile) []Problem {
	var ps []Problem
	for _, s := range p.Servers {
		if _, ok := f.Servers[s]; ok {
			continue
		}
		ps = append(ps, Problem{Key: profileKey(name, "servers"), Warning: true,
			Fact: fmt.Sprintf("profile %q names the server %q, which is not in mcpServers", name, s),
			Message: fmt.Sprintf("profile %q names the server %q, which is not in mcpServers: the profile works with its other servers, and %q shows up in it once added; add it, or take it out of the profile ('switchboard profiles set %s --servers ...')",
				name, s, s, name)})
	}
	return ps
}

// MissingServers returns the servers profile name names that the file
// lacks.
func (f *File) MissingServers(name string) []string {
	p := f.Profile(name)
	if p == nil {
		return nil
	}
	var out []string
	for _, s := range p.Servers {
		if _, ok := f.Servers[s]; !ok {
			out = append(out, s)
		}
	}
	return out
}

// profileJSON writes a profile: its known keys, then the unknown keys it
// was read with.
func (p *Profile) profileJSON() (json.RawMessage, error) {
	var ms []member
	if p.Servers != nil {
		v, err := encode(p.Servers)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{"servers", v})
	}
	if p.Tools != nil && (len(p.Tools.Allow) > 0 || len(p.Tools.Deny) > 0) {
		v, err := encode(p.Tools)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{"tools", v})
	}
	if p.ToolMode != "" {
		v, _ := encode(p.ToolMode)
		ms = append(ms, member{"toolMode", v})
	}
	if len(p.Roots) > 0 {
		v, err := encode(p.Roots)
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{"roots", v})
	}
	if p.Sampling != "" {
		v, _ := encode(p.Sampling)
		ms = append(ms, member{"sampling", v})
	}
	for _, m := range p.extra {
		if !slices.Contains(profileKeys, m.Key) {
			ms = append(ms, m)
		}
	}
	return objectJSON(ms)
}

// setProfileMembers writes the "profiles" object back.
func (f *File) setProfileMembers(ms []member) error {
	raw, err := objectJSON(ms)
	if err != nil {
		return err
	}
	if f.extra == nil {
		f.extra = map[string]json.RawMessage{}
	}
	f.extra["profiles"] = raw
	return nil
}

// SetProfile adds the profile name, or replaces it where it is in the
// file; a replacement keeps the unknown keys of the profile it replaces,
// and every other profile stays as written. A "profiles" key that is not
// an object is an error (nothing is lost by overwriting it).
func (f *File) SetProfile(name string, p *Profile) error {
	ms, _, err := f.profileMembers()
	if err != nil {
		return err
	}
	i := slices.IndexFunc(ms, func(m member) bool { return m.Key == name })
	if i >= 0 && p.extra == nil {
		p.extra = parseProfile(name, ms[i].Value).extra
	}
	raw, err := p.profileJSON()
	if err != nil {
		return err
	}
	if i >= 0 {
		ms[i].Value = raw
	} else {
		ms = append(ms, member{name, raw})
	}
	return f.setProfileMembers(ms)
}

// RemoveProfile removes the profile name and reports whether it was there.
func (f *File) RemoveProfile(name string) bool {
	ms, _, err := f.profileMembers()
	if err != nil {
		return false
	}
	n := len(ms)
	ms = slices.DeleteFunc(ms, func(m member) bool { return m.Key == name })
	if len(ms) == n {
		return false
	}
	return f.setProfileMembers(ms) == nil
}

// RenameProfile gives the profile old the name new, in old's place, as
// written. It reports whether old was there; the caller checks that new
// is valid and free.
func (f *File) RenameProfile(old, new string) bool {
	ms, _, err := f.profileMembers()
	if err != nil {
		return false
	}
	i := slices.IndexFunc(ms, func(m member) bool { return m.Key == old })
	if i < 0 {
		return false
	}
	ms = slices.DeleteFunc(ms, func(m member) bool { return m.Key == new && new != old })
	i = slices.IndexFunc(ms, func(m member) bool { return m.Key == old })
	ms[i].Key = new
	return f.setProfileMembers(ms) == nil
}

// absolutePath reports whether r is an absolute path on this system or
// another's (a config may be shared): /x, C:\x, C:/x, \\server\share.
func absolutePath(r string) bool {
	if filepath.IsAbs(r) || strings.HasPrefix(r, "/") || strings.HasPrefix(r, `\\`) {
		return true
	}
	return len(r) >= 3 && r[1] == ':' && (r[2] == '\\' || r[2] == '/') &&
		(r[0] >= 'a' && r[0] <= 'z' || r[0] >= 'A' && r[0] <= 'Z')
}
