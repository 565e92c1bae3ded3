package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// Sandbox is an entry's "sandbox" (issue 16, docs/sandbox.md): a preset
// name, or an object.
//
//	"sandbox": "strict"
//	"sandbox": {"preset": "files", "write": ["~/Projects"], "net": "none"}
//	"sandbox": {"read": ["/srv/data"], "net": ["api.example.com:443"]}
//	"sandbox": {"preset": "strict", "unix": ["/run/user/1000/my-agent.sock"]}
//
// The presets: "off" (the default: no confinement), "strict" (no network;
// read only the server's own install and runtime; write only a private
// temp directory), "files" (strict plus the entry's directories: the
// object's read and write lists, or, for the bare string "files", the
// entry's args that are existing absolute directories, read and write),
// "network" (strict plus outbound connections). An object with a preset
// extends it; "net" replaces the preset's network mode; "unix" lists the
// named Unix sockets the server may connect to (no preset grants one).
// Paths may start with ~ or ${HOME}; other relative paths are refused,
// and so is a path too wide to grant (/, the home folder, a credential
// file, Switchboard's own state: wideGrant).
type Sandbox struct {
	Preset string   // "off", "strict", "files", "network"; "" in an object without one
	Object bool     // written as an object (else as the preset's name)
	Read   []string // as written
	Write  []string // as written
	Unix   []string // as written: the Unix sockets it may connect to
	// Net is "none" or "outbound" as written, "" for the preset's; NetAllow
	// is the list form.
	Net      string
	NetAllow []string
}

// The sandbox presets an entry's "sandbox" names (issue 16,
// docs/sandbox.md).
const (
	SandboxOff     = "off"
	SandboxStrict  = "strict"
	SandboxFiles   = "files"
	SandboxNetwork = "network"
)

// SandboxPresets are the values of "sandbox" as a string, in the order
// the CLI and the window offer them.
var SandboxPresets = []string{SandboxOff, SandboxStrict, SandboxFiles, SandboxNetwork}

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
	if b.Unix != nil {
		add("unix", b.Unix)
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
		case "unix":
			ok = s.decodeStrings("sandbox.unix", m.Value, &b.Unix, `["/run/user/1000/my-agent.sock"]`) && ok
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
			s.bad("sandbox."+m.Key, `is not a known key: a sandbox object has "preset", "read", "write", "unix" and "net"`)
			ok = false
		}
	}
	if ok {
		s.Sandbox = b
	}
	return ok
}

// SandboxPolicy returns the entry's sandbox as a policy (the engine's; the
// runtime's own needs are added by the engine), and its problems, each
// keyed as in the file. A nil or "off" sandbox is the zero policy.
func (s *Server) SandboxPolicy() (serverspec.Policy, []Problem) {
	var ps []Problem
	bad := func(key, format string, args ...any) {
		ps = append(ps, Problem{Key: key, Message: fmt.Sprintf(format, args...)})
	}
	b := s.Sandbox
	if b == nil || b.Preset == "off" {
		return serverspec.Policy{}, nil // sandboxRequired alone requires nothing
	}
	p := serverspec.Policy{Enabled: true, Preset: b.Preset, Net: serverspec.NetNone, Required: true}
	if s.SandboxRequired != nil {
		p.Required = *s.SandboxRequired
	}
	if b.Preset == "network" {
		p.Net = serverspec.NetOutbound
	}
	home, _ := os.UserHomeDir()
	protected := ProtectedPaths(home)
	for _, l := range []struct {
		key string
		in  []string
		out *[]string
	}{{"sandbox.read", b.Read, &p.Read}, {"sandbox.write", b.Write, &p.Write}, {"sandbox.unix", b.Unix, &p.Unix}} {
		for i, path := range l.in {
			key := fmt.Sprintf("%s[%d]", l.key, i)
			abs, err := expandPath(path, home)
			if err != nil {
				bad(key, "%v", err)
				continue
			}
			if why := wideGrant(abs, home, protected); why != "" {
				bad(key, "%q: %s: name a narrower folder, or write \"sandbox\": \"off\" to run the server unconfined, which is what such a grant would mean", path, why)
				continue
			}
			*l.out = append(*l.out, abs)
		}
	}
	if b.Preset == "files" && !b.Object {
		// The bare "files": the directories the server is given.
		found := false
		for i, a := range s.Args {
			if abs, ok := argDir(a, home); ok {
				found = true
				if why := wideGrant(abs, home, protected); why != "" {
					bad("sandbox", "\"files\" would give the server args[%d] %q: %s: name a narrower folder in args, or write \"sandbox\": \"off\" to run the server unconfined, which is what such a grant would mean", i, a, why)
					continue
				}
				p.Write = append(p.Write, abs)
			}
		}
		if !found {
			bad("sandbox", `"files" found no directory in args to allow: write {"preset": "files", "write": ["~/Projects"]} with the directories the server may use`)
		}
	}
	switch {
	case b.NetAllow != nil:
		p.Net, p.NetAllow = serverspec.NetAllow, b.NetAllow
		if len(b.NetAllow) == 0 {
			bad("sandbox.net", `is an empty list: write "none" for no network, or list "host:port" endpoints`)
		}
		for i, e := range b.NetAllow {
			if len(serverspec.AllowPorts([]string{e})) == 0 || strings.HasPrefix(e, ":") {
				bad(fmt.Sprintf("sandbox.net[%d]", i), `%q is not "host:port" with a port from 1 to 65535, like "api.example.com:443"`, e)
			}
		}
	case b.Net != "":
		p.Net = serverspec.NetMode(b.Net)
	}
	return p, ps
}

// argDir is an arg that names an existing directory, made absolute.
func argDir(a, home string) (string, bool) {
	abs, err := expandPath(a, home)
	if err != nil {
		return "", false
	}
	fi, err := os.Stat(abs)
	return abs, err == nil && fi.IsDir()
}

// wideGrant says why path must not be granted to a sandboxed server
// (serverspec.WideGrant: /, the home folder or one that holds it, a shared
// install prefix such as ~/.local, a folder that holds a credential file
// or Switchboard's own state), or that it lies inside one of those
// protected paths; "" when it may be granted.
func wideGrant(path, home string, protected []string) string {
	if why := serverspec.WideGrant(path, home, protected); why != "" {
		return why
	}
	ps := []string{filepath.Clean(path)}
	if t, err := filepath.EvalSymlinks(path); err == nil && t != ps[0] {
		ps = append(ps, t)
	}
	for _, p := range ps {
		for _, q := range protected {
			if strings.HasPrefix(p, q+string(filepath.Separator)) {
				return fmt.Sprintf("it is inside %s, which a sandboxed server may never read", tilde(q, home))
			}
		}
	}
	return ""
}

// tilde writes a path under home as ~/...
func tilde(p, home string) string {
	if home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + strings.TrimPrefix(p, home)
	}
	return p
}

// StrictNote is the note of an entry whose sandbox is "strict" while its
// args name existing folders, nothing else given to it (docs/sandbox.md):
// a filesystem-like server told its folders that cannot open them.
// Empty otherwise. It stops nothing.
func (s *Server) StrictNote() string {
	b := s.Sandbox
	if b == nil || b.Preset != "strict" && !(b.Object && b.Preset == "") {
		return ""
	}
	home, _ := os.UserHomeDir()
	var granted []string
	for _, l := range [][]string{b.Read, b.Write} {
		for _, path := range l {
			if abs, err := expandPath(path, home); err == nil {
				granted = append(granted, abs)
			}
		}
	}
	var dirs []string
	for _, a := range s.Args {
		abs, ok := argDir(a, home)
		if !ok || slices.ContainsFunc(granted, func(g string) bool {
			return abs == g || strings.HasPrefix(abs, g+string(filepath.Separator))
		}) {
			continue
		}
		dirs = append(dirs, a)
	}
	if len(dirs) == 0 {
		return ""
	}
	return fmt.Sprintf("strict gives the server none of its folders: \"files\" does (%s, from its args), or list them in the sandbox's \"read\" or \"write\"", strings.Join(dirs, ", "))
}

// Notes are what is worth saying about the entry named name that stops
// nothing ([Problem.Warning]): for now, [Server.StrictNote].
func (s *Server) Notes(name string) []Problem {
	if n := s.StrictNote(); n != "" {
		return []Problem{{Server: name, Key: "sandbox", Message: n, Warning: true}}
	}
	return nil
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
