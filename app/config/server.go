package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/english"
)

// Server is one entry of mcpServers: a stdio MCP server and its options.
// Omitted options are nil (or empty) and mean the default; see the package
// comment for the defaults and units. Keys this version does not know are
// kept, and written back where they were.
type Server struct {
	Command         string            // the executable: a name found in PATH, or an absolute path
	Args            []string          // passed as they are; no shell sees them
	Env             map[string]string // values as written: may embed ${keyring:NAME}
	Cwd             string            // absolute; empty means the host's working directory
	Stderr          *Stderr           // nil means capture
	InheritEnv      []string          // host variables passed beyond the allowlist
	AllowBatchFiles bool              // allow a .bat or .cmd executable on Windows
	Disabled        bool              // kept in the file but not started
	// Start is the entry's start mode: "" (the file's default, else
	// "always"), StartAlways or StartOnDemand (docs/sleep.md).
	Start string

	// Numbers are the numeric options the entry sets, by key, in the
	// option's unit (see [Options]); an omitted key means the default.
	Numbers map[string]int

	Tools *Tools // which tools a gateway exposes; nil means all

	// Trust is how the gateway treats new and changed tool definitions
	// (docs/trust.md): "pin" (or empty, the default) holds them for the
	// user's review, "auto" accepts them.
	Trust  string
	Policy *Policy // approvals: which calls go, ask or are refused; nil: the default (policy.go)

	// Sandbox confines the server (sandbox.go); nil means "off".
	// SandboxRequired false lets it start unconfined where the sandbox
	// cannot be enforced; nil means true.
	Sandbox         *Sandbox
	SandboxRequired *bool
	// A remote entry (remote.go): URL instead of Command; Type is "type"
	// as written ("" is "http"); Headers' values may embed
	// ${keyring:NAME}.
	URL     string
	Type    string
	Headers map[string]string
	OAuth   *OAuth

	// From the file: its keys in order, the raw values of keys that are
	// unknown, null or could not be decoded, and the order of env.
	keys        []string
	extra       map[string]json.RawMessage
	envOrder    []string
	headerOrder []string
	raw         json.RawMessage // the whole entry when it is not an object
	remote      string          // the url (or type) of a remote entry

	decodeProblems []Problem // found while reading the entry (no Server: validate sets it)
	notices        []Problem // found while reading it, but not in the way of running it (start.go)
	problems       []Problem // found by the last Check, or nil
	checked        bool
}

// Stderr is where a server's stderr goes. Kind is "inherit", "discard",
// "capture" or "file"; File is the absolute path for "file". In the file it
// is written as the kind's name or as {"file": "/abs/path"}.
type Stderr struct {
	Kind string
	File string
}

// MarshalJSON writes the string form, or {"file": path}.
func (s Stderr) MarshalJSON() ([]byte, error) {
	if s.Kind == "file" {
		return encode(map[string]string{"file": s.File})
	}
	return encode(s.Kind)
}

// Tools selects the tools of a server that a gateway exposes: a tool is
// exposed if it matches an Allow pattern (or Allow is empty) and no Deny
// pattern. Patterns are those of [path.Match].
type Tools struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// Allows reports whether the tool named name is exposed. A nil *Tools allows
// every tool. A malformed pattern matches nothing (Check reports it).
func (t *Tools) Allows(name string) bool {
	if t == nil {
		return true
	}
	match := func(patterns []string) bool {
		for _, p := range patterns {
			if ok, _ := path.Match(p, name); ok {
				return true
			}
		}
		return false
	}
	if len(t.Allow) > 0 && !match(t.Allow) {
		return false
	}
	return !match(t.Deny)
}

// knownKeys are the keys of an entry, in the order a new entry is written:
// the numeric options come from [Options].
var knownKeys = func() []string {
	keys := []string{"type", "url", "headers", "oauth", "command", "args", "env", "cwd", "stderr", "inheritEnv", "allowBatchFiles", "disabled", "start"}
	for _, o := range Options {
		keys = append(keys, o.Key)
	}
	return append(keys, "tools", "trust", "policy", "sandbox", "sandboxRequired")
}()

// passKeys are keys of Claude-style entries that are understood but kept as
// written: none since remote entries are read (remote.go).
var passKeys = []string{}

// parseServer reads one entry. Problems of form (wrong JSON types, unknown
// keys that look like typos) are recorded; values that cannot be decoded are
// kept raw so that writing the file back loses nothing.
func parseServer(raw json.RawMessage) *Server {
	s := &Server{extra: map[string]json.RawMessage{}}
	if !isObject(raw) {
		s.raw = raw
		s.bad("", `must be an object, like {"command": "npx", "args": ["-y", "some-server"]}`)
		return s
	}
	ms, dups, err := decodeObject(raw)
	if err != nil {
		s.raw = raw
		s.bad("", "cannot be read: %v", err)
		return s
	}
	for _, d := range dups {
		s.bad(d, "appears more than once: keep one (the last one is used)")
	}
	for _, m := range ms {
		s.keys = append(s.keys, m.Key)
	}
	s.remote = remoteOf(ms)
	for _, m := range ms {
		if isNull(m.Value) {
			s.extra[m.Key] = m.Value // null: the default, kept as written
			continue
		}
		if !s.decodeKey(m.Key, m.Value) {
			s.extra[m.Key] = m.Value
		}
	}
	return s
}

// emptyURL is what makes an entry with "url": "" remote (remoteOf).
const emptyURL = `an empty "url"`

// remoteOf returns what makes an entry remote (its url, else its type), or
// "".
func remoteOf(ms []member) string {
	str := func(key string) string {
		for _, m := range ms {
			var v string
			if m.Key == key && json.Unmarshal(m.Value, &v) == nil {
				return v
			}
		}
		return ""
	}
	if u := str("url"); u != "" {
		return u
	}
	switch t := str("type"); t {
	case "http", "sse", "streamable-http", "streamableHttp":
		return `type "` + t + `"`
	}
	for _, m := range ms {
		if m.Key == "url" && bytes.HasPrefix(bytes.TrimSpace(m.Value), []byte(`"`)) {
			return emptyURL // a remote entry whose url is the problem
		}
	}
	return ""
}

// bad records a problem found while reading key of the entry.
func (s *Server) bad(key, format string, args ...any) {
	s.decodeProblems = append(s.decodeProblems, Problem{Key: key, Message: fmt.Sprintf(format, args...)})
}

// decodeKey decodes one member into its field; false keeps it raw (unknown
// keys, and values of the wrong type, which are reported).
func (s *Server) decodeKey(key string, raw json.RawMessage) bool {
	switch key {
	case "command":
		return s.decodeString(key, raw, &s.Command, "a string naming the executable")
	case "cwd":
		return s.decodeString(key, raw, &s.Cwd, "a string: an absolute directory")
	case "args":
		return s.decodeStrings(key, raw, &s.Args, `["-y", "@modelcontextprotocol/server-filesystem"]`)
	case "inheritEnv":
		return s.decodeStrings(key, raw, &s.InheritEnv, `["HTTPS_PROXY", "NODE_EXTRA_CA_CERTS"]`)
	case "env":
		return s.decodeEnv(raw)
	case "allowBatchFiles":
		return s.decodeBool(key, raw, &s.AllowBatchFiles)
	case "disabled":
		return s.decodeBool(key, raw, &s.Disabled)
	case "stderr":
		return s.decodeStderr(raw)
	case "start":
		return s.decodeStart(raw)
	case "tools":
		return s.decodeTools(raw)
	case "trust":
		var v string
		if json.Unmarshal(raw, &v) != nil || !ValidTrust(v) {
			s.bad(key, `%s is not a trust mode: use "pin" (hold new and changed tools for review, the default) or "auto" (accept them)`, rawString(raw))
			return false
		}
		s.Trust = v
		return true
	case "policy":
		return s.decodePolicy(raw)
	case "sandbox":
		return s.decodeSandbox(raw)
	case "sandboxRequired":
		var v bool
		if !s.decodeBool(key, raw, &v) {
			return false
		}
		s.SandboxRequired = &v
		return true
	case "type":
		return s.decodeType(raw)
	case "url":
		return s.decodeString(key, raw, &s.URL, `a string: the server's address, like "https://mcp.example.com/mcp"`)
	case "headers":
		return s.decodeHeaders(raw)
	case "oauth":
		return s.decodeOAuth(raw)
	}
	if o, ok := OptionByKey(key); ok {
		var v int64
		if err := json.Unmarshal(raw, &v); err != nil {
			s.bad(key, "%s is not a whole number: give a number of %s, like %d", rawString(raw), o.unitWord(), o.Default)
			return false
		}
		if s.Numbers == nil {
			s.Numbers = map[string]int{}
		}
		s.Numbers[key] = int(v)
		return true
	}
	if k := nearKey(key); k != "" {
		s.bad(key, "is not a known key: did you mean %q? Rename it, or remove it", k)
		p := &s.decodeProblems[len(s.decodeProblems)-1]
		p.Fact = fmt.Sprintf("is not a known key: did you mean %q?", k)
		p.Remedy = &Remedy{Kind: "rename_key", From: key, To: k}
	}
	return false
}

func (s *Server) decodeString(key string, raw json.RawMessage, dst *string, what string) bool {
	if err := json.Unmarshal(raw, dst); err != nil {
		s.bad(key, "must be %s, not %s", what, rawString(raw))
		return false
	}
	return true
}

func (s *Server) decodeBool(key string, raw json.RawMessage, dst *bool) bool {
	if err := json.Unmarshal(raw, dst); err != nil {
		s.bad(key, "must be true or false, not %s", rawString(raw))
		return false
	}
	return true
}

// decodeStrings decodes a list of strings, naming each bad element.
func (s *Server) decodeStrings(key string, raw json.RawMessage, dst *[]string, example string) bool {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil {
		s.bad(key, "must be a list of strings, like %s", example)
		return false
	}
	out := make([]string, 0, len(elems))
	ok := true
	for i, e := range elems {
		var v string
		if err := json.Unmarshal(e, &v); err != nil {
			s.bad(fmt.Sprintf("%s[%d]", key, i), "%s", mustBeString(e))
			ok = false
			continue
		}
		out = append(out, v)
	}
	if ok {
		*dst = out
	}
	return ok
}

// mustBeString is the message for a value that should have been a string.
func mustBeString(raw json.RawMessage) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	switch v.(type) {
	case float64, bool:
		return fmt.Sprintf("must be a string: write %q", rawString(raw))
	}
	return fmt.Sprintf("must be a string, not %s", rawString(raw))
}

func (s *Server) decodeEnv(raw json.RawMessage) bool {
	ms, dups, err := decodeObject(raw)
	if err != nil {
		s.bad("env", `must be an object of strings, like {"NAME": "value"}`)
		return false
	}
	for _, d := range dups {
		s.bad("env."+d, "appears more than once: keep one (the last one is used)")
	}
	env := make(map[string]string, len(ms))
	order := make([]string, 0, len(ms))
	ok := true
	for _, m := range ms {
		var v string
		if err := json.Unmarshal(m.Value, &v); err != nil {
			s.bad("env."+m.Key, "%s", mustBeString(m.Value))
			ok = false
			continue
		}
		env[m.Key] = v
		order = append(order, m.Key)
	}
	if ok {
		s.Env, s.envOrder = env, order
		return true
	}
	// The entry is kept raw and validate will not see env: report the
	// references of the good values now, so that every problem is listed.
	for _, k := range order {
		if err := CheckEnvName(k); err != nil {
			s.bad("env", "%v", err)
		}
		if _, err := ParseEnvValue(env[k]); err != nil {
			s.bad("env."+k, "%v", err)
		}
	}
	return false
}

func (s *Server) decodeStderr(raw json.RawMessage) bool {
	const want = `"inherit", "discard", "capture", or {"file": "/absolute/path"}`
	var kind string
	if json.Unmarshal(raw, &kind) == nil {
		if kind == "file" {
			s.bad("stderr", `"file" needs a path: write {"file": "/absolute/path"}`)
			return false
		}
		s.Stderr = &Stderr{Kind: kind} // validate checks the kind
		return true
	}
	ms, _, err := decodeObject(raw)
	if err != nil {
		s.bad("stderr", "must be %s, not %s", want, rawString(raw))
		return false
	}
	var file string
	found := false
	for _, m := range ms {
		if m.Key != "file" {
			s.bad("stderr."+m.Key, `is not a known key: the object form is {"file": "/absolute/path"}`)
			return false
		}
		if json.Unmarshal(m.Value, &file) != nil {
			s.bad("stderr.file", "must be a string: an absolute path, not %s", rawString(m.Value))
			return false
		}
		found = true
	}
	if !found {
		s.bad("stderr", `the object form needs a path: {"file": "/absolute/path"}`)
		return false
	}
	s.Stderr = &Stderr{Kind: "file", File: file}
	return true
}

func (s *Server) decodeTools(raw json.RawMessage) bool {
	ms, _, err := decodeObject(raw)
	if err != nil {
		s.bad("tools", `must be an object, like {"allow": ["read_*"], "deny": ["delete_*"]}`)
		return false
	}
	t := &Tools{}
	ok := true
	for _, m := range ms {
		switch m.Key {
		case "allow":
			ok = s.decodeStrings("tools.allow", m.Value, &t.Allow, `["read_*", "list_*"]`) && ok
		case "deny":
			ok = s.decodeStrings("tools.deny", m.Value, &t.Deny, `["delete_*"]`) && ok
		default:
			s.bad("tools."+m.Key, `is not a known key: use "allow" or "deny"`)
			ok = false
		}
	}
	if ok {
		s.Tools = t
	}
	return ok
}

// nearKey returns the known key that key is probably a misspelling of:
// the nearest within two edits (case aside), provided the edits are
// fewer than half the key's length ("arsg" is args, "tags" is not), or
// "".
func nearKey(key string) string {
	lk := strings.ToLower(key)
	best, bestD := "", 3
	for _, k := range slices.Concat(knownKeys, passKeys) {
		d := english.EditDistance(lk, strings.ToLower(k))
		if d < bestD && 2*d < len(key) {
			best, bestD = k, d
		}
	}
	return best
}

// value returns the current value of a known key, and whether it is set.
func (s *Server) value(key string) (any, bool) {
	switch key {
	case "command":
		return s.Command, s.Command != ""
	case "args":
		return s.Args, s.Args != nil
	case "env":
		return nil, s.Env != nil // written by envJSON, in order
	case "cwd":
		return s.Cwd, s.Cwd != ""
	case "stderr":
		return s.Stderr, s.Stderr != nil
	case "inheritEnv":
		return s.InheritEnv, s.InheritEnv != nil
	case "allowBatchFiles":
		return s.AllowBatchFiles, s.AllowBatchFiles || slices.Contains(s.keys, key)
	case "disabled":
		return s.Disabled, s.Disabled || slices.Contains(s.keys, key)
	case "start":
		return s.Start, s.Start != ""
	case "tools":
		return s.Tools, s.Tools != nil
	case "trust":
		return s.Trust, s.Trust != ""
	case "policy":
		return s.Policy, s.Policy != nil
	case "sandbox":
		return s.Sandbox, s.Sandbox != nil
	case "sandboxRequired":
		return s.SandboxRequired, s.SandboxRequired != nil
	case "type":
		return s.Type, s.Type != ""
	case "url":
		return s.URL, s.URL != ""
	case "headers":
		return nil, s.Headers != nil // written by headersJSON, in order
	case "oauth":
		return s.OAuth, s.OAuth != nil
	}
	if _, ok := OptionByKey(key); ok {
		v, set := s.Numbers[key]
		return v, set
	}
	return nil, false
}

// envJSON writes env in the file's order, new variables sorted at the end.
func (s *Server) envJSON() (json.RawMessage, error) {
	names := make([]string, 0, len(s.Env))
	for _, k := range s.envOrder {
		if _, ok := s.Env[k]; ok && !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	var more []string
	for k := range s.Env {
		if !slices.Contains(names, k) {
			more = append(more, k)
		}
	}
	sort.Strings(more)
	ms := make([]member, 0, len(s.Env))
	for _, k := range append(names, more...) {
		v, err := encode(s.Env[k])
		if err != nil {
			return nil, err
		}
		ms = append(ms, member{k, v})
	}
	return objectJSON(ms)
}

// MarshalJSON writes the entry: the file's keys in their order (unknown ones
// as they were), then new keys in the usual order.
func (s *Server) MarshalJSON() ([]byte, error) {
	if s.raw != nil {
		return s.raw, nil
	}
	var ms []member
	done := map[string]bool{}
	emit := func(key string) error {
		if done[key] {
			return nil
		}
		done[key] = true
		if key == "env" && s.Env != nil {
			v, err := s.envJSON()
			if err != nil {
				return err
			}
			ms = append(ms, member{key, v})
			return nil
		}
		if key == "headers" && s.Headers != nil {
			v, err := s.headersJSON()
			if err != nil {
				return err
			}
			ms = append(ms, member{key, v})
			return nil
		}
		if v, set := s.value(key); set {
			raw, err := encode(v)
			if err != nil {
				return err
			}
			ms = append(ms, member{key, raw})
			return nil
		}
		if raw, ok := s.extra[key]; ok {
			ms = append(ms, member{key, raw})
		}
		return nil
	}
	for _, k := range s.keys {
		if err := emit(k); err != nil {
			return nil, err
		}
	}
	for _, k := range knownKeys {
		if err := emit(k); err != nil {
			return nil, err
		}
	}
	var rest []string
	for k := range s.extra {
		if !done[k] {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		if err := emit(k); err != nil {
			return nil, err
		}
	}
	return objectJSON(ms)
}

// Remote returns the url (or the remote type) of an entry for a remote MCP
// server as the file has it, or "" (see [Server.RemoteSpec]).
func (s *Server) Remote() string { return s.remote }

// Problems returns what the last [File.Check] (which [Load] runs) found wrong
// with the entry; an entry with problems is not started.
func (s *Server) Problems() []Problem { return slices.Clone(s.problems) }

// Valid reports whether the last check found no problem with the entry.
func (s *Server) Valid() bool { return s.checked && len(s.problems) == 0 }

// CallTimeout returns how long a tool call may take: callTimeout, or the
// default of 300000 ms when it is unset or out of its range.
func (s *Server) CallTimeout() time.Duration {
	return time.Duration(s.Number("callTimeout")) * time.Millisecond
}

// SecretRefs returns the names of the keyring secrets the entry refers to,
// sorted, each once: in its env, its headers and its oauth.clientSecret.
// Values that do not parse are skipped (Check reports them). The sign-in a
// remote entry stores is not a reference: [Server.SecretsUsed] adds it.
func (s *Server) SecretRefs() []string {
	var names []string
	add := func(v string) {
		ev, err := ParseEnvValue(v)
		if err != nil {
			return
		}
		for _, n := range ev.Secrets() {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	for _, v := range s.Env {
		add(v)
	}
	for _, v := range s.Headers {
		add(v)
	}
	if n := s.OAuth.ClientSecretRef(); n != "" && !slices.Contains(names, n) {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// SecretsUsed returns the names of every keyring secret the entry named
// name uses, sorted, each once: its references ([Server.SecretRefs]) and,
// for a remote entry, its sign-in ([OAuthSecret]). Removing one of them
// breaks the server: "secret list" and "secret rm" say so from this.
func (s *Server) SecretsUsed(name string) []string {
	names := s.SecretRefs()
	if s.IsRemote() {
		if n := OAuthSecret(name); !slices.Contains(names, n) {
			names = append(names, n)
			sort.Strings(names)
		}
	}
	return names
}

// ReferenceSecret replaces the value of the env variable with a reference to
// the keyring secret, "${keyring:secret}"; of a remote entry (which has no
// env), variable is a header (a [SecretCandidate]'s Var), whose secret part
// is replaced ("Bearer ${keyring:secret}"). Store the literal value in the
// keyring first (a [SecretCandidate] carries it).
func (s *Server) ReferenceSecret(variable, secret string) error {
	if !ValidSecretName(secret) {
		return fmt.Errorf("secret name %q is not valid: %s", secret, secretNameMsg)
	}
	if s.IsRemote() {
		return s.referenceHeader(variable, secret)
	}
	if _, ok := s.Env[variable]; !ok {
		return fmt.Errorf("env has no variable %q", variable)
	}
	s.Env[variable] = KeyringRef(secret)
	return nil
}

// ParseServer parses one entry (the JSON object of a server, as in the
// file) and checks it under name. Its problems, if any, are in
// [Server.Problems]; the error is for JSON that is not an object at all.
func ParseServer(name string, data []byte) (*Server, error) {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, fmt.Errorf("mcpServers.%s: the entry is not a JSON object: %v", name, err)
	}
	s := parseServer(json.RawMessage(data))
	ps := s.validate(name)
	s.problems, s.checked = ps, true
	return s, nil
}

// ValidTrust reports whether v is a value of an entry's "trust": "pin" or
// "auto" (app/trust's modes; "" is not written).
func ValidTrust(v string) bool { return v == "pin" || v == "auto" }
