package configedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Sandbox is an entry's "sandbox" value as the CLI and the window edit
// it: a preset alone is written as a string ("strict"), anything more as
// the object {"preset", "read", "write", "unix", "net"}. Keys of the object this
// version does not know are kept as written.
type Sandbox struct {
	Preset string   // "off", "strict", "files", "network", or "" (an object written by hand)
	Read   []string // absolute paths the server may read
	Write  []string // absolute paths the server may read and write
	Unix   []string // absolute paths of the Unix sockets it may connect to
	// Net is "", "none" or "outbound"; NetAllow, when not empty, is the
	// allow-list ("host:port" endpoints) and wins over Net.
	Net      string
	NetAllow []string
	extra    map[string]json.RawMessage
}

// Off says the sandbox confines nothing: no key, "off", or an object
// whose preset is "off".
func (s Sandbox) Off() bool { return s.Preset == config.SandboxOff || s.isZero() }

func (s Sandbox) isZero() bool {
	return s.Preset == "" && len(s.Read) == 0 && len(s.Write) == 0 && len(s.Unix) == 0 && s.Net == "" && len(s.NetAllow) == 0 && len(s.extra) == 0
}

// ReadSandbox reads an entry's "sandbox" value (nil or null: off). A
// value it cannot read is an error naming the remedy; nothing is lost, as
// the caller then writes nothing.
func ReadSandbox(raw json.RawMessage) (Sandbox, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return Sandbox{}, nil
	}
	var preset string
	if err := json.Unmarshal(raw, &preset); err == nil {
		if !slices.Contains(config.SandboxPresets, preset) {
			return Sandbox{}, fmt.Errorf(`the entry's "sandbox" %q is not a preset: use off, strict, files or network`, preset)
		}
		return Sandbox{Preset: preset}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return Sandbox{}, fmt.Errorf(`the entry's "sandbox" is neither a preset nor an object (%s): fix it in the config file, or give --sandbox off`, raw)
	}
	var s Sandbox
	bad := func(key, want string) error {
		return fmt.Errorf(`the entry's "sandbox.%s" is not %s (%s): fix it in the config file, or give --sandbox off`, key, want, obj[key])
	}
	for k, v := range obj {
		switch k {
		case "preset":
			if json.Unmarshal(v, &s.Preset) != nil {
				return Sandbox{}, bad(k, "a preset name")
			}
		case "read":
			if json.Unmarshal(v, &s.Read) != nil {
				return Sandbox{}, bad(k, "a list of paths")
			}
		case "write":
			if json.Unmarshal(v, &s.Write) != nil {
				return Sandbox{}, bad(k, "a list of paths")
			}
		case "unix":
			if json.Unmarshal(v, &s.Unix) != nil {
				return Sandbox{}, bad(k, "a list of socket paths")
			}
		case "net":
			if json.Unmarshal(v, &s.Net) != nil && json.Unmarshal(v, &s.NetAllow) != nil {
				return Sandbox{}, bad(k, `"none", "outbound" or a list of "host:port"`)
			}
		default:
			if s.extra == nil {
				s.extra = map[string]json.RawMessage{}
			}
			s.extra[k] = v
		}
	}
	return s, nil
}

// JSON is the value to write: the preset's name alone when that says it
// all, else the object, its known keys first in a fixed order.
func (s Sandbox) JSON() json.RawMessage {
	if s.Preset != "" && len(s.Read) == 0 && len(s.Write) == 0 && len(s.Unix) == 0 && s.Net == "" && len(s.NetAllow) == 0 && len(s.extra) == 0 {
		raw, _ := json.Marshal(s.Preset)
		return raw
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	put := func(k string, v any) {
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		kr, _ := json.Marshal(k)
		vr, _ := json.Marshal(v)
		b.Write(kr)
		b.WriteString(": ")
		b.Write(vr)
	}
	if s.Preset != "" {
		put("preset", s.Preset)
	}
	if len(s.Read) > 0 {
		put("read", s.Read)
	}
	if len(s.Write) > 0 {
		put("write", s.Write)
	}
	if len(s.Unix) > 0 {
		put("unix", s.Unix)
	}
	switch {
	case len(s.NetAllow) > 0:
		put("net", s.NetAllow)
	case s.Net != "":
		put("net", s.Net)
	}
	keys := make([]string, 0, len(s.extra))
	for k := range s.extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		put(k, s.extra[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// SandboxChange is what `servers set --sandbox...` asks: each field
// empty leaves that part as it is.
type SandboxChange struct {
	Preset string   // --sandbox: off, strict, files or network
	Read   []string // --sandbox-read: added to the read list
	Write  []string // --sandbox-write: added to the write list
	Unix   []string // --sandbox-unix: added to the Unix sockets
	Net    string   // --sandbox-net: none, outbound, or host:port,host:port...
}

// Empty says the change changes nothing.
func (c SandboxChange) Empty() bool {
	return c.Preset == "" && len(c.Read) == 0 && len(c.Write) == 0 && len(c.Unix) == 0 && c.Net == ""
}

// Apply returns s changed by c. Paths are made absolute (relative to the
// current directory, as a shell user means them); "off" with paths or a
// network is refused, as the paths would be dropped.
func (c SandboxChange) Apply(s Sandbox) (Sandbox, error) {
	if c.Preset != "" && !slices.Contains(config.SandboxPresets, c.Preset) {
		return s, fmt.Errorf("--sandbox %q: use off (no confinement), strict (its own files only, no network), files (strict plus the folders of --sandbox-read and --sandbox-write) or network (strict plus outbound connections)", c.Preset)
	}
	if c.Preset == config.SandboxOff {
		if len(c.Read)+len(c.Write)+len(c.Unix) > 0 || c.Net != "" {
			return s, fmt.Errorf("--sandbox off confines nothing: give --sandbox-read, --sandbox-write, --sandbox-unix and --sandbox-net with strict, files or network")
		}
		return Sandbox{Preset: config.SandboxOff}, nil
	}
	if c.Preset != "" {
		if s.Preset == config.SandboxOff {
			s = Sandbox{}
		}
		s.Preset = c.Preset
	} else if s.Preset == config.SandboxOff && !c.Empty() {
		return s, fmt.Errorf("the sandbox is off: give --sandbox strict, files or network with the paths and network")
	}
	for _, p := range c.Read {
		abs, err := absPath("--sandbox-read", p)
		if err != nil {
			return s, err
		}
		s.Read = addOnce(s.Read, abs)
	}
	for _, p := range c.Write {
		abs, err := absPath("--sandbox-write", p)
		if err != nil {
			return s, err
		}
		s.Write = addOnce(s.Write, abs)
	}
	for _, p := range c.Unix {
		abs, err := absPath("--sandbox-unix", p)
		if err != nil {
			return s, err
		}
		s.Unix = addOnce(s.Unix, abs)
	}
	if c.Net != "" {
		mode, allow, err := ParseSandboxNet(c.Net)
		if err != nil {
			return s, err
		}
		s.Net, s.NetAllow = mode, allow
	}
	return s, nil
}

// ParseSandboxNet reads --sandbox-net: "none", "outbound", or
// "host:port,host:port" (the allow-list).
func ParseSandboxNet(v string) (mode string, allow []string, err error) {
	switch v = strings.TrimSpace(v); v {
	case "none", "outbound":
		return v, nil, nil
	}
	for _, ep := range strings.Split(v, ",") {
		ep = strings.TrimSpace(ep)
		if err := CheckEndpoint(ep); err != nil {
			return "", nil, fmt.Errorf("--sandbox-net %q: %v; give none, outbound, or host:port endpoints separated by commas (api.github.com:443,localhost:8080)", v, err)
		}
		allow = addOnce(allow, ep)
	}
	return "", allow, nil
}

// CheckEndpoint checks one "host:port" of an allow-list.
func CheckEndpoint(ep string) error {
	host, port, err := net.SplitHostPort(ep)
	if err != nil || host == "" {
		return fmt.Errorf("%q is not host:port", ep)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return fmt.Errorf("%q: the port is not a number from 1 to 65535", ep)
	}
	if strings.ContainsAny(host, " \t\r\n\"\\/") {
		return fmt.Errorf("%q: the host is not a name or an address", ep)
	}
	return nil
}

// SetSandbox writes s as the entry's "sandbox", keeping every other key.
func SetSandbox(entry map[string]json.RawMessage, s Sandbox) {
	entry["sandbox"] = s.JSON()
}

func absPath(flag, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("%s: give a folder or file path", flag)
	}
	if rest, ok := strings.CutPrefix(p, "~"); ok && (rest == "" || rest[0] == '/' || rest[0] == filepath.Separator) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("%s %q: %v", flag, p, err)
		}
		p = home + rest
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("%s %q: %v", flag, p, err)
	}
	return abs, nil
}

func addOnce(list []string, v string) []string {
	if slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// changeSandbox applies c to the "sandbox" of the entry name in f, keeping
// every other key of the entry as written; the entry is then checked as
// PutServer checks it. Its errors are *hostapi.Error.
func changeSandbox(f *config.File, name string, c SandboxChange) error {
	s, ok := f.Servers[name]
	if !ok || s == nil {
		return NotInConfig(name, f.Names())
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	entry := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &entry); err != nil {
		return err
	}
	cur, err := ReadSandbox(entry["sandbox"])
	if err != nil {
		return &hostapi.Error{Code: hostapi.CodeInvalidConfig, Message: fmt.Sprintf("server %q: %v", name, err)}
	}
	next, err := c.Apply(cur)
	if err != nil {
		return &hostapi.Error{Code: hostapi.CodeInvalidConfig, Message: fmt.Sprintf("server %q: %v", name, err)}
	}
	SetSandbox(entry, next)
	if raw, err = json.Marshal(entry); err != nil {
		return err
	}
	return PutServer(f, name, raw, false)
}
