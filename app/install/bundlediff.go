package install

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/bundle"
)

// BundleDiff is what changes from the bundle was to now, one line each,
// for the user to read before an upgrade switches: the version, the
// signature, the server's type and command line (as the manifest writes
// them, each platform's override too), the options (added, removed, or
// a changed type, requirement or sensitivity), the tools and prompts the
// manifest declares (added, removed, a changed description), the
// platforms and runtimes. Empty when nothing of these changed.
func BundleDiff(was, now *bundle.Manifest, sigWas, sigNow string) []string {
	var d []string
	change := func(what, a, b string) {
		if a != b {
			d = append(d, fmt.Sprintf("%s: %s -> %s", what, orNone(a), orNone(b)))
		}
	}
	change("version", was.Version, now.Version)
	change("signature", sigWas, sigNow)
	change("author", was.Author.Name, now.Author.Name)
	change("server type", was.Server.Type, now.Server.Type)
	change("entry point", was.Server.EntryPoint, now.Server.EntryPoint)
	cmdLine := func(m *bundle.Manifest) (string, map[string]string) {
		c := m.Server.MCPConfig
		if c == nil {
			return "", nil
		}
		return ArgvLine(append([]string{c.Command.Command}, c.Args...)), c.Env
	}
	cw, ew := cmdLine(was)
	cn, en := cmdLine(now)
	change("command", cw, cn)
	for _, k := range unionKeys(ew, en) {
		a, inA := ew[k]
		b, inB := en[k]
		switch {
		case !inA:
			d = append(d, fmt.Sprintf("env %s: added (%s)", k, b))
		case !inB:
			d = append(d, fmt.Sprintf("env %s: removed", k))
		default:
			change("env "+k, a, b)
		}
	}
	overrides := func(m *bundle.Manifest) map[string]string {
		out := map[string]string{}
		if c := m.Server.MCPConfig; c != nil {
			for p, o := range c.PlatformOverrides {
				out[p] = fmt.Sprintf("command %q args %q env %v", o.Command, o.Args, o.Env)
			}
		}
		return out
	}
	ow, on := overrides(was), overrides(now)
	for _, p := range unionKeys(ow, on) {
		change("platform override "+p, ow[p], on[p])
	}
	opt := func(o bundle.Option) string {
		w := o.Type
		if o.Required {
			w += ", required"
		}
		if o.Sensitive {
			w += ", sensitive"
		}
		if o.Multiple {
			w += ", multiple"
		}
		return w
	}
	for _, k := range unionKeys(was.UserConfig, now.UserConfig) {
		a, inA := was.UserConfig[k]
		b, inB := now.UserConfig[k]
		switch {
		case !inA:
			d = append(d, fmt.Sprintf("option %s: added (%s)", k, opt(b)))
		case !inB:
			d = append(d, fmt.Sprintf("option %s: removed (its value is dropped)", k))
		default:
			change("option "+k, opt(a), opt(b))
		}
	}
	named := func(kind string, a, b map[string]string) {
		for _, n := range unionKeys(a, b) {
			x, inA := a[n]
			y, inB := b[n]
			switch {
			case !inA:
				d = append(d, fmt.Sprintf("%s %s: added: %s", kind, n, firstLineOf(y)))
			case !inB:
				d = append(d, fmt.Sprintf("%s %s: removed", kind, n))
			case x != y:
				d = append(d, fmt.Sprintf("%s %s: description changed\n    was: %s\n    now: %s", kind, n, firstLineOf(x), firstLineOf(y)))
			}
		}
	}
	tools := func(m *bundle.Manifest) map[string]string {
		out := map[string]string{}
		for _, t := range m.Tools {
			out[t.Name] = t.Description
		}
		return out
	}
	prompts := func(m *bundle.Manifest) map[string]string {
		out := map[string]string{}
		for _, p := range m.Prompts {
			out[p.Name] = p.Description
		}
		return out
	}
	named("declared tool", tools(was), tools(now))
	named("declared prompt", prompts(was), prompts(now))
	change("platforms", strings.Join(was.Compatibility.Platforms, ", "), strings.Join(now.Compatibility.Platforms, ", "))
	for _, r := range unionKeys(was.Compatibility.Runtimes, now.Compatibility.Runtimes) {
		change("runtime "+r, was.Compatibility.Runtimes[r], now.Compatibility.Runtimes[r])
	}
	return d
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func firstLineOf(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func unionKeys[V any](a, b map[string]V) []string {
	k := slices.Collect(maps.Keys(a))
	for x := range b {
		if _, ok := a[x]; !ok {
			k = append(k, x)
		}
	}
	slices.Sort(k)
	return k
}
