package registry

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SetupOptions are what a person gives to add an entry: which package or
// remote, and the values of its inputs.
type SetupOptions struct {
	// Package is the package to run (1-based, as the card numbers them);
	// Remote the remote to use. Both 0: the first package Switchboard can
	// run, else the first remote.
	Package, Remote int
	// Values are the inputs' values by key: an environment variable's or
	// a header's name, a URL or argument variable's name, an argument's
	// name as the card shows it (--port or port, or the value hint of a
	// positional one).
	Values map[string]string
	// Literal writes a plain value into the config's text (which gives
	// "${" a meaning); SecretRef writes the reference to the secret that
	// will hold the value of key (the keyring: never the file).
	Literal   func(string) string
	SecretRef func(key string) string
}

// Setup is what adding a package or a remote of an entry makes: a
// command line with its environment, or a URL with its headers. Secret
// values are not in it, only SecretRef's references to them: Secrets
// holds the values to store, by key.
type Setup struct {
	Package *PackageCard // the package chosen (nil: a remote)
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Type    string // of a remote: streamable-http or sse
	Headers map[string]string
	Secrets map[string]string
	// Chosen says what was chosen: "package 1 (npm airtable-mcp-server
	// 1.7.3)" or "remote 1 (streamable-http https://...)".
	Chosen string
}

// SetupError lists every problem of the values given, at once. When
// values are missing, the first problem says so with the command line's
// remedy (--set KEY=VALUE); Missing are their keys and Chosen what they
// are for ("package 1 (npm ...)"), for a front end that asks for them in
// its own way.
type SetupError struct {
	Problems []string
	Missing  []string
	Chosen   string
}

func (e *SetupError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return fmt.Sprintf("%d problems:\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// MakeSetup computes what adding s makes with the values of o, or every
// problem of them: a required value missing, a value not among an
// input's choices or not of its format, a key that names no input.
func MakeSetup(s *Server, lookPath func(string) (string, error), o SetupOptions) (*Setup, error) {
	if o.Literal == nil {
		o.Literal = func(v string) string { return v }
	}
	if o.SecretRef == nil {
		return nil, fmt.Errorf("no place for secrets")
	}
	st := &Setup{Secrets: map[string]string{}}
	var problems, missing, missingSecret []string
	used := map[string]bool{}
	inputs := map[string]bool{}
	// give returns the value given for key (checked against the input's
	// choices and format), or its default.
	give := func(key string, in Input) (string, bool) {
		inputs[key] = true
		v, ok := o.Values[key]
		if short := strings.TrimLeft(key, "-"); !ok && short != key {
			key = short // a named argument: --set port=8080 as --set --port=8080
			v, ok = o.Values[key]
		}
		if !ok {
			return "", false
		}
		used[key] = true
		if len(in.Choices) > 0 && !slices.Contains(in.Choices, v) {
			problems = append(problems, fmt.Sprintf("%s=%q is not one of its choices: %s", key, v, strings.Join(in.Choices, ", ")))
		}
		switch in.Format {
		case "number":
			if _, err := strconv.ParseFloat(v, 64); err != nil {
				problems = append(problems, fmt.Sprintf("%s=%q is not a number", key, v))
			}
		case "boolean":
			if v != "true" && v != "false" {
				problems = append(problems, fmt.Sprintf("%s=%q: give true or false", key, v))
			}
		}
		return v, true
	}
	need := func(key string, secret bool) {
		if secret {
			missingSecret = append(missingSecret, key)
		}
		missing = append(missing, key)
	}
	// value is the text of one env variable or header: the value given
	// (a secret's is a reference), else its fixed value with its
	// {variables} filled, else its default; ok false when it is left out.
	value := func(key string, in Input) (string, bool) {
		if in.Value == "" {
			v, given := give(key, in)
			if !given {
				v = in.Default
			}
			switch {
			case v == "" && in.IsRequired:
				need(key, in.IsSecret)
				return "", false
			case v == "" && !given:
				return "", false
			case in.IsSecret:
				st.Secrets[key] = v
				return o.SecretRef(key), true
			}
			return o.Literal(v), true
		}
		return fill(in.Value, in.Variables, give, need, st, o), true
	}

	var pcs []PackageCard
	for i := range s.Packages {
		pc, _ := packageCard(&s.Packages[i], lookPath, nil)
		pcs = append(pcs, pc)
	}
	switch {
	case o.Package > 0 && o.Remote > 0:
		return nil, fmt.Errorf("give --package N or --remote N, not both")
	case o.Package > len(s.Packages):
		return nil, fmt.Errorf("%s has %d package(s): --package %d is not one ('switchboard registry show %s' lists them)", s.Name, len(s.Packages), o.Package, s.Name)
	case o.Remote > len(s.Remotes):
		return nil, fmt.Errorf("%s has %d remote(s): --remote %d is not one ('switchboard registry show %s' lists them)", s.Name, len(s.Remotes), o.Remote, s.Name)
	case o.Package == 0 && o.Remote == 0:
		for i, pc := range pcs {
			if pc.Argv != nil && pc.Transport == "stdio" {
				o.Package = i + 1
				break
			}
		}
		if o.Package == 0 && len(s.Remotes) > 0 {
			o.Remote = 1
		}
		if o.Package == 0 && o.Remote == 0 {
			why := "it has no package and no remote"
			if len(pcs) > 0 {
				var whys []string
				for i, pc := range pcs {
					whys = append(whys, fmt.Sprintf("package %d: %s", i+1, cannotAdd(&pc)))
				}
				why = strings.Join(whys, "; ")
			}
			return nil, fmt.Errorf("%s cannot be run by Switchboard: %s", s.Name, why)
		}
	}

	if o.Package > 0 {
		p := &s.Packages[o.Package-1]
		if why := cannotAdd(&pcs[o.Package-1]); why != "" {
			return nil, fmt.Errorf("%s's package %d: %s", s.Name, o.Package, why)
		}
		pc, argMissing := packageCard(p, lookPath, func(key string, in Input) (string, bool) {
			v, ok := give(key, in)
			if ok && in.IsSecret {
				problems = append(problems, fmt.Sprintf("%s is a secret argument: Switchboard keeps secrets in the keyring and passes them in the environment, and an argument would be written in the config in plain text: choose another package or remote", key))
			}
			return v, ok
		})
		for _, k := range argMissing {
			need(k, false)
		}
		st.Package = &pc
		st.Command, st.Args = pc.Argv[0], pc.Argv[1:]
		st.Chosen = fmt.Sprintf("package %d (%s)", o.Package, strings.TrimSpace(p.RegistryType+" "+p.Identifier+" "+p.Version))
		for _, ev := range p.EnvironmentVariables {
			if v, ok := value(ev.Name, ev.Input); ok {
				if st.Env == nil {
					st.Env = map[string]string{}
				}
				st.Env[ev.Name] = v
			}
		}
	} else {
		r := &s.Remotes[o.Remote-1]
		if r.Type != "streamable-http" && r.Type != "sse" {
			return nil, fmt.Errorf("%s's remote %d: the transport %q is neither streamable-http nor sse", s.Name, o.Remote, r.Type)
		}
		st.Type = r.Type
		st.URL = varRef.ReplaceAllStringFunc(r.URL, func(ref string) string {
			name := ref[1 : len(ref)-1]
			in, ok := r.Variables[name]
			if !ok {
				return ref
			}
			v, given := give(name, in)
			switch {
			case in.Value != "" && !given:
				v = in.Value
			case !given:
				v = in.Default
			}
			if v == "" {
				need(name, false)
			}
			if in.IsSecret && v != "" {
				problems = append(problems, fmt.Sprintf("%s is a secret part of the URL: the config's URL is plain text, so Switchboard cannot keep it secret", name))
			}
			return v
		})
		st.Chosen = fmt.Sprintf("remote %d (%s %s)", o.Remote, r.Type, r.URL)
		for _, h := range r.Headers {
			if v, ok := value(h.Name, h.Input); ok {
				if st.Headers == nil {
					st.Headers = map[string]string{}
				}
				st.Headers[h.Name] = v
			}
		}
	}

	for _, k := range sortedKeys(o.Values) {
		if !used[k] {
			have := sortedKeys(inputs)
			if len(have) == 0 {
				problems = append(problems, fmt.Sprintf("--set %s: %s takes no value", k, st.Chosen))
			} else {
				problems = append(problems, fmt.Sprintf("--set %s: %s has no input %s; its inputs are %s", k, st.Chosen, k, strings.Join(have, ", ")))
			}
		}
	}
	if len(missing) > 0 {
		missing = dedupe(missing)
		var how []string
		for _, k := range missing {
			how = append(how, "--set "+k+"=VALUE")
		}
		msg := fmt.Sprintf("%s needs a value for %s: give %s", st.Chosen, strings.Join(missing, ", "), strings.Join(how, " "))
		if len(missingSecret) > 0 {
			msg += fmt.Sprintf(" (%s %s secret: stored in the keyring, never in the config)", strings.Join(dedupe(missingSecret), ", "), map[bool]string{true: "is a", false: "are"}[len(missingSecret) == 1])
		}
		problems = append([]string{msg}, problems...)
	}
	if len(problems) > 0 {
		return nil, &SetupError{Problems: problems, Missing: missing, Chosen: st.Chosen}
	}
	return st, nil
}

// fill fills the {variables} of a fixed value: each from the value given,
// its own fixed value or its default; a secret variable's value is kept
// out of the text (a reference in its place).
func fill(tmpl string, vars map[string]Input, give giveFunc, need func(string, bool), st *Setup, o SetupOptions) string {
	var b strings.Builder
	last := 0
	for _, m := range varRef.FindAllStringSubmatchIndex(tmpl, -1) {
		b.WriteString(o.Literal(tmpl[last:m[0]]))
		last = m[1]
		name := tmpl[m[2]:m[3]]
		in, ok := vars[name]
		if !ok {
			b.WriteString(o.Literal(tmpl[m[0]:m[1]]))
			continue
		}
		v, given := give(name, in)
		switch {
		case in.Value != "" && !given:
			v = in.Value
		case !given:
			v = in.Default
		}
		switch {
		case v == "":
			need(name, in.IsSecret)
		case in.IsSecret:
			st.Secrets[name] = v
			b.WriteString(o.SecretRef(name))
		default:
			b.WriteString(o.Literal(v))
		}
	}
	b.WriteString(o.Literal(tmpl[last:]))
	return b.String()
}

// cannotAdd says why a package cannot be added ("" when it can).
func cannotAdd(pc *PackageCard) string {
	switch {
	case pc.Argv == nil:
		return pc.Unsupported
	case pc.Transport != "stdio":
		return fmt.Sprintf("it serves %s at a URL from a process Switchboard would start: Switchboard runs stdio packages only", pc.Transport)
	}
	return ""
}

// dedupe keeps the first of each string, in order.
func dedupe(ss []string) []string {
	var out []string
	for _, s := range ss {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}
