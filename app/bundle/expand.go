package bundle

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// Dirs is the folders of the user the variables ${HOME}, ${DESKTOP},
// ${DOCUMENTS} and ${DOWNLOADS} name.
type Dirs struct{ Home, Desktop, Documents, Downloads string }

// Inputs is what the user gave for user_config.
type Inputs struct {
	// Values is the non-sensitive values by key: a string (as typed on a
	// command line: "42", "true"), a float64, a bool or a []string.
	Values map[string]any
	// Secrets is, for each sensitive key, the text that stands for its
	// value in the result: the caller stores the value in the keyring and
	// gives its reference (app/config's KeyringRef: "${keyring:NAME}").
	// A sensitive key in Values is refused, so a plain secret never
	// reaches the result.
	Secrets map[string]string
}

// Launch is a bundle's command line and environment after expansion.
type Launch struct {
	Command string
	Args    []string
	Env     map[string]string
}

// Platform is the manifest's name of the platform Go calls goos: darwin,
// win32 or linux ("" for any other).
func Platform(goos string) string {
	switch goos {
	case "windows":
		return "win32"
	case "darwin", "linux":
		return goos
	}
	return ""
}

// variables is the names inside each "${...}" of s.
func variables(s string) []string {
	var names []string
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			return names
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			return append(names, s[i+2:])
		}
		names = append(names, s[i+2:i+j])
		s = s[i+j+1:]
	}
}

var systemVariables = []string{"__dirname", "HOME", "DESKTOP", "DOCUMENTS", "DOWNLOADS", "/", "pathSeparator"}

// unknownVariable is the problem with a variable name, or "".
func (m *Manifest) unknownVariable(name string) string {
	if slices.Contains(systemVariables, name) {
		return ""
	}
	if k, ok := strings.CutPrefix(name, "user_config."); ok {
		if _, ok := m.UserConfig[k]; !ok {
			return fmt.Sprintf("${%s} names no user_config key: declare %q under user_config or remove the reference", name, k)
		}
		return ""
	}
	return fmt.Sprintf("${%s} is not a variable: use ${__dirname}, ${HOME}, ${DESKTOP}, ${DOCUMENTS}, ${DOWNLOADS}, ${/} or ${user_config.KEY}", name)
}

// Expand returns the command line and environment of the bundle unpacked
// in dir, for the platform goos (runtime.GOOS when ""): mcp_config with
// the platform's override applied and every variable replaced. A multiple
// value that is a whole argument becomes one argument per value; in an
// environment variable its values are joined with the platform's path-list
// separator. An optional value that is not given and has no default
// removes a whole argument (or environment variable) that is only its
// reference, and is empty inside a longer text. Every problem is named at
// once: a required value missing, a value of the wrong type or out of
// range, a sensitive value given in plain, an unknown variable.
func (m *Manifest) Expand(dir string, dirs Dirs, goos string, in Inputs) (Launch, Problems) {
	if goos == "" {
		goos = runtime.GOOS
	}
	cfg := m.Server.MCPConfig
	if cfg == nil {
		return Launch{}, Problems{{Key: "server.mcp_config", Message: fmt.Sprintf("is absent (server type %q): the host runs such a bundle itself; this reader needs mcp_config", m.Server.Type)}}
	}
	sep := "/"
	listSep := ":"
	if goos == "windows" {
		sep, listSep = `\`, ";"
	}
	sys := map[string]string{
		"__dirname": dir, "HOME": dirs.Home, "DESKTOP": dirs.Desktop, "DOCUMENTS": dirs.Documents,
		"DOWNLOADS": dirs.Downloads, "/": sep, "pathSeparator": sep,
	}
	var ps Problems
	vals := m.values(in, sys, &ps)

	base := "server.mcp_config"
	cmd := cfg.Command
	cmdKey, argsKey, envKey := base, base, base
	if o, ok := cfg.PlatformOverrides[Platform(goos)]; ok {
		ok := base + ".platform_overrides." + Platform(goos)
		if o.HasCommand {
			cmd.Command, cmdKey = o.Command, ok
		}
		if o.Args != nil {
			cmd.Args, argsKey = o.Args, ok
		}
		if o.Env != nil {
			cmd.Env, envKey = o.Env, ok
		}
	}

	// text expands s where it is part of a longer text (or the command).
	text := func(key, s string, list bool) string {
		var b strings.Builder
		for {
			i := strings.Index(s, "${")
			if i < 0 {
				b.WriteString(s)
				return b.String()
			}
			b.WriteString(s[:i])
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				ps = append(ps, Problem{Key: key, Message: fmt.Sprintf("%q is not closed: end the reference with \"}\"", s[i:])})
				return b.String()
			}
			name := s[i+2 : i+j]
			s = s[i+j+1:]
			if v, ok := sys[name]; ok {
				b.WriteString(v)
				continue
			}
			if msg := m.unknownVariable(name); msg != "" {
				ps = append(ps, Problem{Key: key, Message: msg})
				continue
			}
			v := vals[strings.TrimPrefix(name, "user_config.")]
			if len(v) > 1 && !list {
				ps = append(ps, Problem{Key: key, Message: fmt.Sprintf("${%s} has several values and is part of a longer argument: make it a whole argument", name)})
				continue
			}
			b.WriteString(strings.Join(v, listSep))
		}
	}
	// whole is the user_config key s refers to as its whole text, or "".
	whole := func(s string) string {
		if !strings.HasPrefix(s, "${user_config.") || !strings.HasSuffix(s, "}") || strings.Count(s, "${") != 1 {
			return ""
		}
		k := s[len("${user_config.") : len(s)-1]
		if _, ok := m.UserConfig[k]; !ok {
			return ""
		}
		return k
	}

	l := Launch{Command: text(cmdKey+".command", cmd.Command, false)}
	if l.Command == "" {
		ps = append(ps, Problem{Key: cmdKey + ".command", Message: "is empty after expansion: give the command, or a value for the option it names"})
	}
	l.Args = []string{}
	for i, a := range cmd.Args {
		if k := whole(a); k != "" {
			l.Args = append(l.Args, vals[k]...)
			continue
		}
		l.Args = append(l.Args, text(fmt.Sprintf("%s.args[%d]", argsKey, i), a, false))
	}
	l.Env = map[string]string{}
	for _, k := range sortedKeys(cmd.Env) {
		v := cmd.Env[k]
		if uk := whole(v); uk != "" && len(vals[uk]) == 0 {
			continue
		}
		l.Env[k] = text(envKey+".env."+k, v, true)
	}
	// A sensitive value's reference may only be carried by the
	// environment: the config resolves keyring references there only.
	for _, k := range m.Keys {
		if !m.UserConfig[k].Sensitive {
			continue
		}
		ref := "${user_config." + k + "}"
		if strings.Contains(cmd.Command, ref) {
			ps = append(ps, Problem{Key: cmdKey + ".command", Message: fmt.Sprintf("uses the sensitive %s: a secret can only be passed in env; move it to an environment variable", ref)})
		}
		for i, a := range cmd.Args {
			if strings.Contains(a, ref) {
				ps = append(ps, Problem{Key: fmt.Sprintf("%s.args[%d]", argsKey, i), Message: fmt.Sprintf("uses the sensitive %s: a secret can only be passed in env (Switchboard keeps it in the keyring); move it to an environment variable", ref)})
			}
		}
	}
	if ps.Refusing() {
		return Launch{}, ps
	}
	return l, ps
}

// values is each user_config key's value as text (several for a multiple
// option): the user's, or the default with system variables expanded, or
// the secret reference of a sensitive key.
func (m *Manifest) values(in Inputs, sys map[string]string, ps *Problems) map[string][]string {
	for _, k := range sortedKeys(in.Values) {
		if _, ok := m.UserConfig[k]; !ok {
			*ps = append(*ps, Problem{Key: "user_config." + k, Message: fmt.Sprintf("is not an option of this bundle: use %s", quoteList(append([]string{"none"}, m.Keys...)))})
		}
	}
	for _, k := range sortedKeys(in.Secrets) {
		if o, ok := m.UserConfig[k]; !ok || !o.Sensitive {
			*ps = append(*ps, Problem{Key: "user_config." + k, Message: "is not a sensitive option of this bundle: give it as a plain value"})
		}
	}
	sysText := func(s string) string {
		for name, v := range sys {
			s = strings.ReplaceAll(s, "${"+name+"}", v)
		}
		return s
	}
	out := map[string][]string{}
	for _, k := range m.Keys {
		o := m.UserConfig[k]
		key := "user_config." + k
		if o.Sensitive {
			if _, plain := in.Values[k]; plain {
				*ps = append(*ps, Problem{Key: key, Message: "is sensitive: store it in the keyring and pass its reference, never the plain value"})
			}
			if ref, ok := in.Secrets[k]; ok {
				out[k] = []string{ref}
			} else if o.Required {
				*ps = append(*ps, Problem{Key: key, Message: fmt.Sprintf("is required (%s): give a value; it is kept in the keyring", o.Title)})
			}
			continue
		}
		v, given := in.Values[k]
		if !given {
			if o.Default == nil {
				if o.Required {
					*ps = append(*ps, Problem{Key: key, Message: fmt.Sprintf("is required (%s): give a value with --set %s=VALUE", o.Title, k),
						Fact: fmt.Sprintf("is required (%s): give a value", o.Title)})
				}
				continue
			}
			v = o.Default
		}
		texts, msg := o.text(v)
		if msg != "" {
			*ps = append(*ps, Problem{Key: key, Message: msg})
			continue
		}
		for i := range texts {
			if !given || o.Type == "directory" || o.Type == "file" {
				texts[i] = sysText(texts[i])
			}
		}
		out[k] = texts
	}
	return out
}

// text is a value of the option as text, or the problem with it.
func (o Option) text(v any) ([]string, string) {
	switch o.Type {
	case "number":
		var f float64
		switch x := v.(type) {
		case float64:
			f = x
		case string:
			var err error
			if f, err = strconv.ParseFloat(strings.TrimSpace(x), 64); err != nil {
				return nil, fmt.Sprintf("%q is not a number: give a number", x)
			}
		default:
			return nil, fmt.Sprintf("is %T: give a number", v)
		}
		if msg := o.outOfRange(f); msg != "" {
			return nil, msg
		}
		return []string{strconv.FormatFloat(f, 'f', -1, 64)}, ""
	case "boolean":
		switch x := v.(type) {
		case bool:
			return []string{strconv.FormatBool(x)}, ""
		case string:
			if b, err := strconv.ParseBool(x); err == nil {
				return []string{strconv.FormatBool(b)}, ""
			}
			return nil, fmt.Sprintf("%q is not true or false: give true or false", x)
		}
		return nil, fmt.Sprintf("is %T: give true or false", v)
	default:
		switch x := v.(type) {
		case string:
			return []string{x}, ""
		case []string:
			if !o.Multiple && len(x) != 1 {
				return nil, fmt.Sprintf("has %d values but the option takes one: give one", len(x))
			}
			return slices.Clone(x), ""
		}
		return nil, fmt.Sprintf("is %T: give text", v)
	}
}
