package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/bundle"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

var bundlesRows = []*command{
	{name: "bundles", group: "Bundles", summary: "MCP Bundles (.mcpb): check, install, upgrade and remove servers shipped as bundles", help: `A bundle (.mcpb, formerly .dxt) is a zip with a manifest.json that says
what to run. check reads one and says everything wrong with it at once;
install makes it a server that every AI app reaches through Switchboard,
its secrets in the keyring and its folders granted to its sandbox
(docs/bundles.md).
`},
	{name: "bundles check", args: "FILE",
		summary: "a bundle's card: manifest problems, signature, SHA-256, safe unpacking, compatibility with this machine, the exact command it would run; exit 1 on a problem",
		help: `check unpacks FILE into a temporary folder (refusing zip-slip, links,
devices, duplicate names and size bombs), validates its manifest.json
naming every problem with its remedy, verifies its signature against the
system's roots (signed, unsigned or invalid), checks its platforms and its
node or python version on the PATH, and shows the command line and
environment it would run with the values given with --set. A sensitive
option is never given on the command line: it is shown as the keyring
reference an install would write. Nothing is kept.
`,
		flags: []flagDef{
			{name: "set", kind: multiFlag, arg: "KEY=VALUE", help: "a user_config option's value (not a sensitive one)"},
		},
		run: (*env).bundlesCheck},
}

// bundleCard is 'bundles check' as --json prints it.
type bundleCard = install.BundleCard

// bundlesCheck is 'switchboard bundles check FILE'.
func (e *env) bundlesCheck(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("bundles check takes one FILE")
	}
	card, err := e.inspectBundle(a.pos[0], a.list("set"))
	if err != nil {
		return err
	}
	if e.json {
		if err := e.printJSON(card); err != nil {
			return err
		}
	} else {
		e.printBundleCard(*card)
	}
	if len(card.Problems) > 0 {
		return exitError{1}
	}
	return nil
}

// inspectBundle is install.InspectBundle with --set's KEY=VALUE values;
// a sensitive key among them is a usage error (never on a command line).
func (e *env) inspectBundle(path string, sets []string) (*install.BundleCard, error) {
	values := map[string][]string{}
	for _, kv := range sets {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usagef("--set %q: write KEY=VALUE", kv)
		}
		values[k] = append(values[k], v)
	}
	card, err := install.InspectBundle(context.Background(), path, install.InspectOptions{Values: values})
	if err != nil {
		return nil, err
	}
	for _, o := range card.Options {
		if _, given := values[o.Key]; given && o.Sensitive {
			return nil, usagef("%s is sensitive: 'bundles check' never takes its value on the command line", o.Key)
		}
	}
	return card, nil
}

func (e *env) printBundleCard(c bundleCard) {
	x := termtext.Escape
	line := func(k, format string, a ...any) {
		fmt.Fprintf(e.stdout, "%-10s %s\n", k+":", fmt.Sprintf(format, a...))
	}
	if c.Name != "" {
		fmt.Fprintf(e.stdout, "%s %s by %s (manifest %s, %s)\n", x(c.Name), x(c.Version), x(c.Author), c.Manifest, x(c.Type))
	}
	line("file", "%s", x(c.File))
	line("sha256", "%s", c.SHA256)
	switch s := c.Signature; s.State {
	case bundle.Signed:
		line("signature", "signed by %s (%s), certificate %s", x(s.CommonName), x(s.Organization), s.Fingerprint)
	case bundle.Invalid:
		line("signature", "INVALID: %s", x(s.Why))
	default:
		line("signature", "unsigned")
	}
	if c.Name != "" {
		pl := "any"
		if len(c.Platforms) > 0 {
			pl = strings.Join(c.Platforms, ", ")
		}
		line("platforms", "%s", x(pl))
		for _, r := range slices.Sorted(maps.Keys(c.Runtimes)) {
			line("runtime", "%s %s", r, x(c.Runtimes[r]))
		}
	}
	if c.Command != "" {
		line("runs", "%s", x(strings.Join(append([]string{c.Command}, c.Args...), " ")))
		for _, k := range slices.Sorted(maps.Keys(c.Env)) {
			line("env", "%s=%s", x(k), x(c.Env[k]))
		}
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", x(w))
	}
	for _, p := range c.Problems {
		fmt.Fprintf(e.stdout, "problem: %s\n", x(p))
	}
	if len(c.Problems) == 0 {
		fmt.Fprintln(e.stdout, "ok: nothing wrong found")
	}
}
