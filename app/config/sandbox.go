package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

// Sandbox is an entry's "sandbox" (issue 16, docs/sandbox.md): a preset
// name, or an object.
//
//	"sandbox": "strict"
//	"sandbox": {"preset": "files", "write": ["~/Projects"], "net": "none"}
//	"sandbox": {"read": ["/srv/data"], "net": ["api.example.com:443"]}
//
// The presets: "off" (the default: no confinement), "strict" (no network;
// read only the server's own install and runtime; write only a private
// temp directory), "files" (strict plus the entry's directories: the
// object's read and write lists, or, for the bare string "files", the
// entry's args that are existing absolute directories, read and write),
// "network" (strict plus outbound connections). An object with a preset
// extends it; "net" replaces the preset's network mode. Paths may start
// with ~ or ${HOME}; other relative paths are refused.
type Sandbox struct {
	Preset string   // "off", "strict", "files", "network"; "" in an object without one
	Object bool     // written as an object (else as the preset's name)
	Read   []string // as written
	Write  []string // as written
	// Net is "none" or "outbound" as written, "" for the preset's; NetAllow
	// is the list form.
	Net      string
	NetAllow []string
}

// SandboxPresets are the values of "sandbox" as a string.
var SandboxPresets = []string{"off", "strict", "files", "network"}

const sandboxExample = `"strict", or {"preset": "files", "write": ["~/Projects"]}`

func validPreset(p string) bool {
	for _, q := range SandboxPresets {
		if p == q {
			return true
		}
	}
	return false
}

// MarshalJSON writes the preset's name, or the object.
func (b *Sandbox) MarshalJSON() ([]byte, error) {
	if !b.Object {
		return encode(b.Preset)
	}
	var ms []member
	add := func(k string, v any) {
		raw, _ := encode(v)
		ms = append(ms, member{k, raw})
	}
	if b.Preset != "" {
		add("preset", b.Preset)
	}
	if b.Read != nil {
		add("read", b.Read)
	}
	if b.Write != nil {
		add("write", b.Write)
	}
	switch {
	case b.NetAllow != nil:
		add("net", b.NetAllow)
	case b.Net != "":
		add("net", b.Net)
	}
	return objectJSON(ms)
}

func (s *Server) decodeSandbox(raw json.RawMessage) bool {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		if !validPreset(name) {
			s.bad("sandbox", `%q is not a preset: write "off", "strict", "files" or "network", or an object like {"preset": "files", "write": ["~/Projects"]}`, name)
			return false
		}
		s.Sandbox = &Sandbox{Preset: name}
		return true
	}
	ms, _, err := decodeObject(raw)
	if err != nil {
		s.bad("sandbox", "must be a preset or an object, like %s, not %s", sandboxExample, rawString(raw))
		return false
	}
	b := &Sandbox{Object: true}
	ok := true
	for _, m := range ms {
		switch m.Key {
		case "preset":
			if json.Unmarshal(m.Value, &b.Preset) != nil || !validPreset(b.Preset) || b.Preset == "off" {
				s.bad("sandbox.preset", `%s is not a preset to extend: write "strict", "files" or "network"`, rawString(m.Value))
				ok = false
			}
		case "read":
			ok = s.decodeStrings("sandbox.read", m.Value, &b.Read, `["~/Documents/notes"]`) && ok
		case "write":
			ok = s.decodeStrings("sandbox.write", m.Value, &b.Write, `["~/Projects"]`) && ok
		case "net":
			var mode string
			if json.Unmarshal(m.Value, &mode) == nil {
				if mode != "none" && mode != "outbound" {
					s.bad("sandbox.net", `%q is not a network mode: write "none", "outbound", or a list of "host:port"`, mode)
					ok = false
				}
				b.Net = mode
				continue
			}
			var list []string
			if !s.decodeStrings("sandbox.net", m.Value, &list, `["api.example.com:443"]`) {
				ok = false
				continue
			}
			if list == nil {
				list = []string{}
			}
			b.NetAllow = list
		default:
			s.bad("sandbox."+m.Key, `is not a known key: a sandbox object has "preset", "read", "write" and "net"`)
			ok = false
		}
	}
	if ok {
		s.Sandbox = b
	}
	return ok
}

// SandboxPolicy returns the entry's sandbox as the engine's policy (the
// runtime's own needs are added by the engine), and its problems, each
// keyed as in the file. A nil or "off" sandbox is the zero policy.
func (s *Server) SandboxPolicy() (sandbox.Policy, []Problem) {
	var ps []Problem
	bad := func(key, format string, args ...any) {
		ps = append(ps, Problem{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	b := s.Sandbox
	if b == nil || b.Preset == "off" {
		return sandbox.Policy{}, nil // sandboxRequired alone requires nothing
	}
	p := sandbox.Policy{Enabled: true, Preset: b.Preset, Net: sandbox.NetNone, Required: true}
	if s.SandboxRequired != nil {
		p.Required = *s.SandboxRequired
	}
	if b.Preset == "network" {
		p.Net = sandbox.NetOutbound
	}
	home, _ := os.UserHomeDir()
	for _, l := range []struct {
		key  string
		in   []string
		out  *[]string
		what string
	}{{"sandbox.read", b.Read, &p.Read, "read"}, {"sandbox.write", b.Write, &p.Write, "write"}} {
		for i, path := range l.in {
			abs, err := expandPath(path, home)
			if err != nil {
				bad(fmt.Sprintf("%s[%d]", l.key, i), "%v", err)
				continue
			}
			*l.out = append(*l.out, abs)
		}
	}
	if b.Preset == "files" && !b.Object {
		// The bare "files": the directories the server is given.
		for _, a := range s.Args {
			if abs, err := expandPath(a, home); err == nil {
				if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
					p.Write = append(p.Write, abs)
				}
			}
		}
		if len(p.Write) == 0 {
			bad("sandbox", `"files" found no directory in args to allow: write {"preset": "files", "write": ["~/Projects"]} with the directories the server may use`)
		}
	}
	switch {
	case b.NetAllow != nil:
		p.Net, p.NetAllow = sandbox.NetAllow, b.NetAllow
		if len(b.NetAllow) == 0 {
			bad("sandbox.net", `is an empty list: write "none" for no network, or list "host:port" endpoints`)
		}
		for i, e := range b.NetAllow {
			if len(sandbox.AllowPorts([]string{e})) == 0 || strings.HasPrefix(e, ":") {
				bad(fmt.Sprintf("sandbox.net[%d]", i), `%q is not "host:port" with a port from 1 to 65535, like "api.example.com:443"`, e)
			}
		}
	case b.Net != "":
		p.Net = sandbox.NetMode(b.Net)
	}
	return p, ps
}

// expandPath expands a leading ~ or ${HOME} and refuses what is still not
// absolute.
func expandPath(p, home string) (string, error) {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home == "" {
			return "", fmt.Errorf("%q starts with ~ but the home directory is unknown: give an absolute path", p)
		}
		p = filepath.Join(home, p[1:])
	case p == "${HOME}" || strings.HasPrefix(p, "${HOME}/"):
		if home == "" {
			return "", fmt.Errorf("%q starts with ${HOME} but the home directory is unknown: give an absolute path", p)
		}
		p = filepath.Join(home, strings.TrimPrefix(p, "${HOME}"))
	}
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q is a relative path: give an absolute path, or one starting with ~/", p)
	}
	return filepath.Clean(p), nil
}
