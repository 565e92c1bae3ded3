// Package bundle reads MCP Bundles (.mcpb, formerly .dxt): it parses and
// validates manifest.json, expands mcp_config into an argv and an
// environment, unpacks a bundle safely into a store folder, checks a
// bundle's compatibility with this machine and verifies its signature. It
// knows nothing of the host or the UI: the install command and the window
// call it. The format's source of truth is MANIFEST.md and the schemas of
// the modelcontextprotocol/mcpb repository; docs/bundles.md says what is
// supported per manifest version.
package bundle

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Problem is one thing wrong with a manifest: the key path as the file
// names it ("user_config.api_key.type", "server.mcp_config.args[1]") and
// what is wrong with the remedy. Warning problems stop nothing (a key this
// reader does not know); the others refuse the bundle.
type Problem struct {
	Key     string
	Message string
	Warning bool
	// Fact is Message without the command line's remedy (a form shows
	// it beside its field); "" when Message has none.
	Fact string
}

// FactText is what a form shows of the problem: Fact, else Message.
func (p Problem) FactText() string {
	if p.Fact != "" {
		return p.Fact
	}
	return p.Message
}

func (p Problem) Error() string {
	if p.Key == "" {
		return p.Message
	}
	return p.Key + ": " + p.Message
}

// Problems is every problem found at once; it is an error when one of them
// is not a warning.
type Problems []Problem

func (ps Problems) Error() string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = p.Error()
	}
	return strings.Join(s, "\n")
}

// Refusing reports whether a problem that is not a warning is among ps.
func (ps Problems) Refusing() bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return !p.Warning })
}

// Manifest is a bundle's manifest.json.
type Manifest struct {
	// ManifestVersion is "0.1" to "0.4", from manifest_version or, in an
	// old .dxt bundle, dxt_version.
	ManifestVersion string
	Name            string
	DisplayName     string
	Version         string
	Description     string
	Author          Author
	Server          Server
	// UserConfig is the options the user fills in, by key; Keys lists
	// them in the file's order.
	UserConfig    map[string]Option
	Keys          []string
	Compatibility Compatibility
	Tools         []Tool
	Prompts       []Prompt
	Icon          string
	Icons         []Icon
}

// Author is the manifest's author.
type Author struct{ Name, Email, URL string }

// Server is how the bundle's server runs.
type Server struct {
	Type       string // node, python, binary or uv
	EntryPoint string
	// MCPConfig is nil only for type uv (the host runs it).
	MCPConfig *MCPConfig
}

// Command is a command line and its environment, as mcp_config and each of
// its platform_overrides give them. In an override a nil field is kept
// from the base.
type Command struct {
	Command string
	Args    []string
	Env     map[string]string
}

// MCPConfig is server.mcp_config.
type MCPConfig struct {
	Command
	// PlatformOverrides is by platform: darwin, win32 or linux.
	PlatformOverrides map[string]Override
}

// Override is one platform's replacement of command, args or env; a field
// absent from the file is nil (HasCommand false) and keeps the base's.
type Override struct {
	Command    string
	HasCommand bool
	Args       []string
	Env        map[string]string
}

// Option is one user_config entry.
type Option struct {
	Type        string // string, number, boolean, directory or file
	Title       string
	Description string
	Required    bool
	Sensitive   bool
	Multiple    bool
	// Default is a string, a float64, a bool or a []string; nil for none.
	Default  any
	Min, Max *float64
}

// Compatibility is what the bundle needs of the machine.
type Compatibility struct {
	// Clients is a version range by client name (claude_desktop, ...).
	Clients   map[string]string
	Platforms []string
	// Runtimes is a version range by runtime: node, python.
	Runtimes map[string]string
}

// Tool is a tool the manifest declares.
type Tool struct{ Name, Description string }

// Prompt is a prompt the manifest declares.
type Prompt struct {
	Name, Description, Text string
	Arguments               []string
}

// Icon is one entry of icons (manifest_version 0.3 and later).
type Icon struct{ Src, Size, Theme string }

var (
	versions     = []string{"0.1", "0.2", "0.3", "0.4"}
	serverTypes  = []string{"node", "python", "binary", "uv"}
	optionTypes  = []string{"string", "number", "boolean", "directory", "file"}
	platforms    = []string{"darwin", "win32", "linux"}
	runtimeNames = []string{"node", "python"}
	iconSizeRE   = regexp.MustCompile(`^\d+x\d+$`)
)

// since is the manifest version that introduced each top-level key that
// 0.1 lacks; an older manifest using it gets a warning.
var since = map[string]string{"privacy_policies": "0.2", "icons": "0.3", "localization": "0.3", "_meta": "0.3"}

// knownTop is every top-level key of manifest_version 0.4.
var knownTop = []string{"$schema", "dxt_version", "manifest_version", "name", "display_name", "version",
	"description", "long_description", "author", "repository", "homepage", "documentation", "support",
	"icon", "icons", "screenshots", "localization", "server", "tools", "tools_generated", "prompts",
	"prompts_generated", "keywords", "license", "privacy_policies", "compatibility", "user_config", "_meta"}

// checker collects problems while reading the decoded JSON.
type checker struct{ ps Problems }

func (c *checker) bad(key, format string, a ...any) {
	c.ps = append(c.ps, Problem{Key: key, Message: fmt.Sprintf(format, a...)})
}

func (c *checker) warn(key, format string, a ...any) {
	c.ps = append(c.ps, Problem{Key: key, Message: fmt.Sprintf(format, a...), Warning: true})
}

func join(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func quoteList(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// typeName is how a decoded JSON value is named in a problem.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

func (c *checker) str(obj map[string]any, parent, key string, required bool) string {
	v, ok := obj[key]
	if !ok {
		if required {
			c.bad(join(parent, key), "is missing: add it as a string")
		}
		return ""
	}
	s, ok := v.(string)
	if !ok {
		c.bad(join(parent, key), "is %s: write it as a string", typeName(v))
		return ""
	}
	if required && strings.TrimSpace(s) == "" {
		c.bad(join(parent, key), "is empty: give it a value")
	}
	return s
}

func (c *checker) boolean(obj map[string]any, parent, key string) bool {
	v, ok := obj[key]
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		c.bad(join(parent, key), "is %s: write true or false", typeName(v))
	}
	return b
}

func (c *checker) object(v any, key string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		c.bad(key, "is %s: write it as an object {...}", typeName(v))
		return nil
	}
	return m
}

func (c *checker) strings(v any, key string) []string {
	a, ok := v.([]any)
	if !ok {
		c.bad(key, "is %s: write it as an array of strings", typeName(v))
		return nil
	}
	out := make([]string, 0, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			c.bad(fmt.Sprintf("%s[%d]", key, i), "is %s: write it as a string", typeName(e))
			continue
		}
		out = append(out, s)
	}
	return out
}

func (c *checker) stringMap(v any, key string) map[string]string {
	m := c.object(v, key)
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			c.bad(join(key, k), "is %s: write it as a string", typeName(e))
			continue
		}
		out[k] = s
	}
	return out
}

func (c *checker) unknown(obj map[string]any, parent string, known ...string) {
	for _, k := range sortedKeys(obj) {
		if !slices.Contains(known, k) {
			c.warn(join(parent, k), "is not a key this version of the format defines (%s): it is ignored; remove it or check its spelling", quoteList(known))
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ParseManifest reads manifest.json and validates it, naming every problem
// at once. The manifest is returned whenever the JSON parsed, so a front end
// can show what it could read beside the problems; it is usable when
// ps.Refusing() is false.
func ParseManifest(data []byte) (*Manifest, Problems) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, Problems{{Message: fmt.Sprintf("manifest.json is not valid JSON (%v): fix the file", err)}}
	}
	if dec.More() {
		return nil, Problems{{Message: "manifest.json has text after its object: keep one JSON object"}}
	}
	c := &checker{}
	top := c.object(raw, "manifest.json")
	if top == nil {
		return nil, c.ps
	}
	m := &Manifest{}
	c.version(top, m)
	c.unknown(top, "", knownTop...)
	for _, k := range sortedKeys(top) {
		if v, ok := since[k]; ok && m.ManifestVersion != "" && m.ManifestVersion < v {
			c.warn(k, "needs manifest_version %s or later (this manifest is %s): raise manifest_version", v, m.ManifestVersion)
		}
	}
	m.Name = c.str(top, "", "name", true)
	m.DisplayName = c.str(top, "", "display_name", false)
	m.Version = c.str(top, "", "version", true)
	m.Description = c.str(top, "", "description", true)
	m.Icon = c.str(top, "", "icon", false)
	if v, ok := top["author"]; !ok {
		c.bad("author", "is missing: add {\"name\": ...}")
	} else if a := c.object(v, "author"); a != nil {
		m.Author = Author{Name: c.str(a, "author", "name", true), Email: c.str(a, "author", "email", false), URL: c.str(a, "author", "url", false)}
		c.unknown(a, "author", "name", "email", "url")
	}
	if v, ok := top["server"]; !ok {
		c.bad("server", "is missing: add {\"type\", \"entry_point\", \"mcp_config\"}")
	} else if s := c.object(v, "server"); s != nil {
		c.server(s, m)
	}
	if v, ok := top["user_config"]; ok {
		c.userConfig(v, m, data)
	}
	if v, ok := top["compatibility"]; ok {
		c.compatibility(v, m)
	}
	if v, ok := top["tools"]; ok {
		c.tools(v, m)
	}
	if v, ok := top["prompts"]; ok {
		c.prompts(v, m)
	}
	if v, ok := top["icons"]; ok {
		c.icons(v, m)
	}
	c.references(m)
	return m, c.ps
}

func (c *checker) version(top map[string]any, m *Manifest) {
	mv, hasMV := top["manifest_version"]
	dv, hasDV := top["dxt_version"]
	key, v := "manifest_version", mv
	if !hasMV {
		if !hasDV {
			c.bad("manifest_version", "is missing: add \"manifest_version\": \"0.3\" (or one of %s)", quoteList(versions))
			return
		}
		key, v = "dxt_version", dv
	}
	s, ok := v.(string)
	if !ok || !slices.Contains(versions, s) {
		c.bad(key, "%s is not a manifest version this reader knows: use %s", shown(v), quoteList(versions))
		return
	}
	if hasMV && hasDV && dv != mv {
		c.bad("dxt_version", "%s differs from manifest_version %q: remove dxt_version (deprecated)", shown(dv), s)
	}
	m.ManifestVersion = s
}

// shown is a decoded value as a problem quotes it.
func shown(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func (c *checker) server(s map[string]any, m *Manifest) {
	c.unknown(s, "server", "type", "entry_point", "mcp_config")
	t := c.str(s, "server", "type", true)
	if t != "" && !slices.Contains(serverTypes, t) {
		c.bad("server.type", "%q is not a server type: use %s", t, quoteList(serverTypes))
	}
	if t == "uv" && m.ManifestVersion != "" && m.ManifestVersion < "0.4" {
		c.bad("server.type", "\"uv\" needs manifest_version 0.4: raise manifest_version or use python")
	}
	m.Server.Type = t
	m.Server.EntryPoint = c.str(s, "server", "entry_point", true)
	v, ok := s["mcp_config"]
	if !ok {
		if t != "uv" {
			c.bad("server.mcp_config", "is missing: add {\"command\": ..., \"args\": [...]} (only type uv may leave it out)")
		}
		return
	}
	mc := c.object(v, "server.mcp_config")
	if mc == nil {
		return
	}
	const key = "server.mcp_config"
	c.unknown(mc, key, "command", "args", "env", "platform_overrides")
	cfg := &MCPConfig{}
	cfg.Command.Command = c.str(mc, key, "command", true)
	if a, ok := mc["args"]; ok {
		cfg.Args = c.strings(a, key+".args")
	}
	if e, ok := mc["env"]; ok {
		cfg.Env = c.stringMap(e, key+".env")
	}
	if po, ok := mc["platform_overrides"]; ok {
		if pm := c.object(po, key+".platform_overrides"); pm != nil {
			cfg.PlatformOverrides = map[string]Override{}
			for _, p := range sortedKeys(pm) {
				pk := key + ".platform_overrides." + p
				if !slices.Contains(platforms, p) {
					c.bad(pk, "%q is not a platform: use %s", p, quoteList(platforms))
				}
				o := c.object(pm[p], pk)
				if o == nil {
					continue
				}
				c.unknown(o, pk, "command", "args", "env")
				var ov Override
				if _, ok := o["command"]; ok {
					ov.Command, ov.HasCommand = c.str(o, pk, "command", true), true
				}
				if a, ok := o["args"]; ok {
					ov.Args = c.strings(a, pk+".args")
					if ov.Args == nil {
						ov.Args = []string{}
					}
				}
				if e, ok := o["env"]; ok {
					ov.Env = c.stringMap(e, pk+".env")
				}
				cfg.PlatformOverrides[p] = ov
			}
		}
	}
	m.Server.MCPConfig = cfg
}

// userConfig reads user_config, keeping the file's order of keys (data is
// read a second time for it).
func (c *checker) userConfig(v any, m *Manifest, data []byte) {
	uc := c.object(v, "user_config")
	if uc == nil {
		return
	}
	m.UserConfig = map[string]Option{}
	m.Keys = keyOrder(data, "user_config")
	if len(m.Keys) != len(uc) {
		m.Keys = sortedKeys(uc)
	}
	for _, k := range m.Keys {
		key := "user_config." + k
		o := c.object(uc[k], key)
		if o == nil {
			continue
		}
		c.unknown(o, key, "type", "title", "description", "required", "default", "multiple", "sensitive", "min", "max")
		opt := Option{
			Type:        c.str(o, key, "type", true),
			Title:       c.str(o, key, "title", true),
			Description: c.str(o, key, "description", true),
			Required:    c.boolean(o, key, "required"),
			Sensitive:   c.boolean(o, key, "sensitive"),
			Multiple:    c.boolean(o, key, "multiple"),
		}
		if opt.Type != "" && !slices.Contains(optionTypes, opt.Type) {
			c.bad(key+".type", "%q is not a type: use %s", opt.Type, quoteList(optionTypes))
		}
		if opt.Multiple && opt.Type != "directory" && opt.Type != "file" && slices.Contains(optionTypes, opt.Type) {
			c.bad(key+".multiple", "is for directory and file options, not %s: remove it", opt.Type)
		}
		if opt.Sensitive && opt.Type != "string" && slices.Contains(optionTypes, opt.Type) {
			c.bad(key+".sensitive", "is for string options, not %s: remove it or make the option a string", opt.Type)
		}
		for _, mk := range []string{"min", "max"} {
			n, ok := o[mk]
			if !ok {
				continue
			}
			if opt.Type != "number" {
				c.bad(key+"."+mk, "is for number options, not %s: remove it", opt.Type)
				continue
			}
			num, ok := n.(json.Number)
			f, err := num.Float64()
			if !ok || err != nil {
				c.bad(key+"."+mk, "is %s: write a number", typeName(n))
				continue
			}
			if mk == "min" {
				opt.Min = &f
			} else {
				opt.Max = &f
			}
		}
		if opt.Min != nil && opt.Max != nil && *opt.Min > *opt.Max {
			c.bad(key+".min", "%v is above max %v: swap them", *opt.Min, *opt.Max)
		}
		if d, ok := o["default"]; ok {
			opt.Default = c.defaultValue(d, opt, key+".default")
		}
		m.UserConfig[k] = opt
	}
}

// defaultValue checks a default against its option's type.
func (c *checker) defaultValue(d any, opt Option, key string) any {
	switch opt.Type {
	case "number":
		n, ok := d.(json.Number)
		if !ok {
			c.bad(key, "is %s: a number option's default is a number", typeName(d))
			return nil
		}
		f, err := n.Float64()
		if err != nil {
			c.bad(key, "%s is not a number: write a number", n)
			return nil
		}
		if msg := opt.outOfRange(f); msg != "" {
			c.bad(key, "%s", msg)
		}
		return f
	case "boolean":
		b, ok := d.(bool)
		if !ok {
			c.bad(key, "is %s: a boolean option's default is true or false", typeName(d))
			return nil
		}
		return b
	case "string", "directory", "file":
		if a, ok := d.([]any); ok {
			if !opt.Multiple {
				c.bad(key, "is an array but the option is not multiple: give one string, or add \"multiple\": true")
			}
			_ = a
			return c.strings(d, key)
		}
		s, ok := d.(string)
		if !ok {
			c.bad(key, "is %s: a %s option's default is a string", typeName(d), opt.Type)
			return nil
		}
		return s
	}
	return nil
}

func (o Option) outOfRange(f float64) string {
	if o.Min != nil && f < *o.Min {
		return fmt.Sprintf("%v is below min %v: use a value from %v", f, *o.Min, *o.Min)
	}
	if o.Max != nil && f > *o.Max {
		return fmt.Sprintf("%v is above max %v: use a value up to %v", f, *o.Max, *o.Max)
	}
	return ""
}

// keyOrder is the keys of the object at top-level key parent, in the
// file's order ("" when it cannot tell).
func keyOrder(data []byte, parent string) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(top[parent]))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		k, _ := t.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return nil
		}
	}
	return keys
}

func (c *checker) compatibility(v any, m *Manifest) {
	cm := c.object(v, "compatibility")
	if cm == nil {
		return
	}
	for _, k := range sortedKeys(cm) {
		key := "compatibility." + k
		switch k {
		case "platforms":
			ps := c.strings(cm[k], key)
			for i, p := range ps {
				if !slices.Contains(platforms, p) {
					c.bad(fmt.Sprintf("%s[%d]", key, i), "%q is not a platform: use %s", p, quoteList(platforms))
				}
			}
			m.Compatibility.Platforms = ps
		case "runtimes":
			rs := c.stringMap(cm[k], key)
			for _, r := range sortedKeys(rs) {
				if !slices.Contains(runtimeNames, r) {
					c.bad(key+"."+r, "is not a runtime: use %s", quoteList(runtimeNames))
					continue
				}
				if _, err := parseRange(rs[r]); err != nil {
					c.bad(key+"."+r, "%q is not a version range (%v): write one like \">=18.0.0\"", rs[r], err)
				}
			}
			m.Compatibility.Runtimes = rs
		default: // claude_desktop and any other client's version range
			s, ok := cm[k].(string)
			if !ok {
				c.bad(key, "is %s: write a version range like \">=1.0.0\"", typeName(cm[k]))
				continue
			}
			if m.Compatibility.Clients == nil {
				m.Compatibility.Clients = map[string]string{}
			}
			m.Compatibility.Clients[k] = s
		}
	}
}

func (c *checker) tools(v any, m *Manifest) {
	a, ok := v.([]any)
	if !ok {
		c.bad("tools", "is %s: write an array of {\"name\", \"description\"}", typeName(v))
		return
	}
	for i, e := range a {
		key := fmt.Sprintf("tools[%d]", i)
		o := c.object(e, key)
		if o == nil {
			continue
		}
		c.unknown(o, key, "name", "description")
		m.Tools = append(m.Tools, Tool{Name: c.str(o, key, "name", true), Description: c.str(o, key, "description", false)})
	}
}

func (c *checker) prompts(v any, m *Manifest) {
	a, ok := v.([]any)
	if !ok {
		c.bad("prompts", "is %s: write an array of {\"name\", \"text\"}", typeName(v))
		return
	}
	for i, e := range a {
		key := fmt.Sprintf("prompts[%d]", i)
		o := c.object(e, key)
		if o == nil {
			continue
		}
		c.unknown(o, key, "name", "description", "arguments", "text")
		p := Prompt{Name: c.str(o, key, "name", true), Description: c.str(o, key, "description", false), Text: c.str(o, key, "text", true)}
		if a, ok := o["arguments"]; ok {
			p.Arguments = c.strings(a, key+".arguments")
		}
		m.Prompts = append(m.Prompts, p)
	}
}

func (c *checker) icons(v any, m *Manifest) {
	a, ok := v.([]any)
	if !ok {
		c.bad("icons", "is %s: write an array of {\"src\", \"size\"}", typeName(v))
		return
	}
	for i, e := range a {
		key := fmt.Sprintf("icons[%d]", i)
		o := c.object(e, key)
		if o == nil {
			continue
		}
		c.unknown(o, key, "src", "size", "theme")
		ic := Icon{Src: c.str(o, key, "src", true), Size: c.str(o, key, "size", true), Theme: c.str(o, key, "theme", false)}
		if ic.Size != "" && !iconSizeRE.MatchString(ic.Size) {
			c.bad(key+".size", "%q is not WIDTHxHEIGHT: write it like \"16x16\"", ic.Size)
		}
		m.Icons = append(m.Icons, ic)
	}
}

// references checks every ${...} of mcp_config (and of user_config's
// defaults) names a variable this reader expands.
func (c *checker) references(m *Manifest) {
	cfg := m.Server.MCPConfig
	if cfg == nil {
		return
	}
	check := func(key, s string) {
		for _, name := range variables(s) {
			if msg := m.unknownVariable(name); msg != "" {
				c.bad(key, "%s", msg)
			}
		}
	}
	const key = "server.mcp_config"
	walkCommand(key, cfg.Command, check)
	for _, p := range sortedKeys(cfg.PlatformOverrides) {
		o := cfg.PlatformOverrides[p]
		walkCommand(key+".platform_overrides."+p, Command{Command: o.Command, Args: o.Args, Env: o.Env}, check)
	}
}

func walkCommand(key string, c Command, f func(key, s string)) {
	f(key+".command", c.Command)
	for i, a := range c.Args {
		f(fmt.Sprintf("%s.args[%d]", key, i), a)
	}
	for _, k := range sortedKeys(c.Env) {
		f(key+".env."+k, c.Env[k])
	}
}
