package cli

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/bundle"
	"github.com/switchboard-mcp/switchboard/app/config"
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
type bundleCard struct {
	File       string            `json:"file"`
	SHA256     string            `json:"sha256"`
	Signature  bundle.Signature  `json:"signature"`
	Name       string            `json:"name,omitempty"`
	Version    string            `json:"version,omitempty"`
	Author     string            `json:"author,omitempty"`
	Manifest   string            `json:"manifestVersion,omitempty"`
	Type       string            `json:"type,omitempty"`
	Platforms  []string          `json:"platforms,omitempty"`
	Runtimes   map[string]string `json:"runtimes,omitempty"`
	Command    string            `json:"command,omitempty"`
	Args       []string          `json:"args,omitempty"`
	Env        map[string]string `json:"env,omitempty"`
	Problems   []string          `json:"problems"`
	Warnings   []string          `json:"warnings,omitempty"`
	Unpackable bool              `json:"unpackable"`
}

// bundlesCheck is 'switchboard bundles check FILE'.
func (e *env) bundlesCheck(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("bundles check takes one FILE")
	}
	path := a.pos[0]
	sig, err := bundle.Verify(path, nil, time.Time{})
	if err != nil {
		return err
	}
	card := bundleCard{File: path, SHA256: sig.SHA256, Signature: sig, Problems: []string{}}
	add := func(ps bundle.Problems) {
		for _, p := range ps {
			if p.Warning {
				card.Warnings = append(card.Warnings, p.Error())
			} else {
				card.Problems = append(card.Problems, p.Error())
			}
		}
	}
	tmp, err := os.MkdirTemp("", "switchboard-bundle-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "bundle")
	if err := bundle.Unpack(path, dir, bundle.DefaultLimits); err != nil {
		card.Problems = append(card.Problems, err.Error())
	} else {
		card.Unpackable = true
		data, err := os.ReadFile(filepath.Join(dir, bundle.ManifestName))
		if err != nil {
			return err
		}
		m, ps := bundle.ParseManifest(data)
		add(ps)
		if m != nil && !ps.Refusing() {
			card.Name, card.Version, card.Author = m.Name, m.Version, m.Author.Name
			card.Manifest, card.Type = m.ManifestVersion, m.Server.Type
			card.Platforms, card.Runtimes = m.Compatibility.Platforms, m.Compatibility.Runtimes
			in := bundle.Inputs{Values: map[string]any{}, Secrets: map[string]string{}}
			for _, kv := range a.list("set") {
				k, v, ok := strings.Cut(kv, "=")
				if !ok {
					return usagef("--set %q: write KEY=VALUE", kv)
				}
				if o, ok := m.UserConfig[k]; ok && o.Multiple {
					in.Values[k] = append(asStrings(in.Values[k]), v)
					continue
				}
				in.Values[k] = v
			}
			for _, k := range m.Keys {
				if m.UserConfig[k].Sensitive {
					if _, given := in.Values[k]; given {
						return usagef("%s is sensitive: 'bundles check' never takes its value on the command line", k)
					}
					in.Secrets[k] = config.KeyringRef(m.Name + "." + k)
				}
			}
			home, _ := os.UserHomeDir()
			dirs := bundle.Dirs{Home: home, Desktop: filepath.Join(home, "Desktop"), Documents: filepath.Join(home, "Documents"), Downloads: filepath.Join(home, "Downloads")}
			l, eps := m.Expand("${__dirname}", dirs, runtime.GOOS, in)
			add(eps)
			card.Command, card.Args, card.Env = l.Command, l.Args, l.Env
			add(m.Check(context.Background(), runtime.GOOS, exec.LookPath))
		}
	}
	if sig.State == bundle.Invalid {
		card.Problems = append(card.Problems, "signature: invalid: "+sig.Why+": do not install it unless you know why")
	}
	if e.json {
		if err := e.printJSON(card); err != nil {
			return err
		}
	} else {
		e.printBundleCard(card)
	}
	if len(card.Problems) > 0 {
		return exitError{1}
	}
	return nil
}

func asStrings(v any) []string {
	s, _ := v.([]string)
	return s
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
