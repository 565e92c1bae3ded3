package install

import (
	"context"
	"crypto/x509"
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
)

// BundleCard is a bundle's card before anything of it is kept or runs:
// what 'switchboard bundles check' prints, what the host's
// bundles.inspect answers and what the window shows above a bundle's
// install form (docs/bundles.md). Problems hold every problem that
// refuses the bundle (an unpacking refusal, the manifest's problems,
// the values', the compatibility's and an invalid signature), each with
// its remedy; Warnings those that stop nothing.
type BundleCard struct {
	File      string           `json:"file"`
	SHA256    string           `json:"sha256"`
	Signature bundle.Signature `json:"signature"`
	// SignatureText is the verdict in words (SignatureWords): "signed by
	// CN (ORG)", "unsigned" or "invalid: WHY".
	SignatureText string            `json:"signatureText"`
	Name          string            `json:"name,omitempty"`
	DisplayName   string            `json:"displayName,omitempty"`
	Version       string            `json:"version,omitempty"`
	Author        string            `json:"author,omitempty"`
	AuthorEmail   string            `json:"authorEmail,omitempty"`
	AuthorURL     string            `json:"authorUrl,omitempty"`
	Description   string            `json:"description,omitempty"`
	Manifest      string            `json:"manifestVersion,omitempty"`
	Type          string            `json:"type,omitempty"`
	Platforms     []string          `json:"platforms,omitempty"`
	Runtimes      map[string]string `json:"runtimes,omitempty"`
	// Local is the server's name an install gives it without --name.
	Local string `json:"local,omitempty"`
	// Command, Args and Env are what it would run with the values given:
	// ${__dirname} left as is (the store's folder is chosen at install),
	// a sensitive option as the keyring reference an install writes.
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Tools   []BundleTool      `json:"tools,omitempty"`
	Prompts []BundleTool      `json:"prompts,omitempty"`
	// Options are user_config's options in the file's order: a form's
	// fields.
	Options  []BundleOption `json:"options,omitempty"`
	Problems []string       `json:"problems"`
	Warnings []string       `json:"warnings,omitempty"`
	// Compatibility are the compatibility problems among Problems (this
	// platform, node or python on the PATH), each with its remedy.
	Compatibility []string `json:"compatibility,omitempty"`
	// Unpackable says the zip unpacked safely.
	Unpackable bool `json:"unpackable"`
}

// Refusals are the card's problems that refuse the bundle whatever
// values are given: all but those of one option's value (a required
// value missing, a number out of range), which a form or --set fixes.
func (c *BundleCard) Refusals() []string {
	var out []string
	for _, p := range c.Problems {
		key, _, _ := strings.Cut(p, ": ")
		if k, ok := strings.CutPrefix(key, "user_config."); ok && !strings.Contains(k, ".") &&
			slices.ContainsFunc(c.Options, func(o BundleOption) bool { return o.Key == k }) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// BundleTool is a tool or a prompt the manifest declares.
type BundleTool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

// BundleOption is one user_config option, as a form shows it. Default is
// a string, a number, a bool or a list of strings (nil: none); Min and
// Max bound a number.
type BundleOption struct {
	Key         string   `json:"key"`
	Title       string   `json:"title,omitempty"`
	Description string   `json:"description,omitempty"`
	Type        string   `json:"type"` // string, number, boolean, directory or file
	Required    bool     `json:"required,omitempty"`
	Sensitive   bool     `json:"sensitive,omitempty"`
	Multiple    bool     `json:"multiple,omitempty"`
	Default     any      `json:"default,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
}

// InspectOptions are InspectBundle's: the values of user_config as
// typed (a sensitive key's value is never needed: the card shows its
// keyring reference), the server's name an install would take ("": the
// manifest's), and what OpenBundle takes to check (nil and zero: this
// process's PATH, the system's roots, now, the home folder's folders).
type InspectOptions struct {
	Values   map[string][]string
	Local    string
	LookPath func(string) (string, error)
	Roots    *x509.CertPool
	Now      time.Time
	Dirs     bundle.Dirs
}

// InspectBundle reads the bundle file into its card without keeping
// anything: it is unpacked into a temporary folder removed before it
// returns. A file that cannot be read is an error; everything wrong
// with a bundle that can is in the card's Problems, all at once.
func InspectBundle(ctx context.Context, file string, o InspectOptions) (*BundleCard, error) {
	sig, err := bundle.Verify(file, o.Roots, o.Now)
	if err != nil {
		return nil, err
	}
	c := &BundleCard{File: file, SHA256: sig.SHA256, Signature: sig, SignatureText: SignatureWords(sig), Problems: []string{}}
	add := func(ps bundle.Problems, compat bool) {
		for _, p := range ps {
			switch {
			case p.Warning:
				c.Warnings = append(c.Warnings, p.Error())
			default:
				c.Problems = append(c.Problems, p.Error())
				if compat {
					c.Compatibility = append(c.Compatibility, p.Error())
				}
			}
		}
	}
	tmp, err := os.MkdirTemp("", "switchboard-bundle-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "bundle")
	if err := bundle.Unpack(file, dir, bundle.DefaultLimits); err != nil {
		c.Problems = append(c.Problems, err.Error())
	} else if data, err := os.ReadFile(filepath.Join(dir, bundle.ManifestName)); err != nil {
		c.Unpackable = true
		c.Problems = append(c.Problems, fmt.Sprintf("%s has no %s at its root: a bundle needs one", file, bundle.ManifestName))
	} else {
		c.Unpackable = true
		m, ps := bundle.ParseManifest(data)
		add(ps, false)
		if m != nil && !ps.Refusing() {
			c.fill(ctx, m, o, add)
		}
	}
	if sig.State == bundle.Invalid {
		c.Problems = append(c.Problems, "signature: invalid: "+sig.Why+": do not install it unless you know why")
	}
	return c, nil
}

// fill is the card of a manifest without a refusing problem.
func (c *BundleCard) fill(ctx context.Context, m *bundle.Manifest, o InspectOptions, add func(bundle.Problems, bool)) {
	c.Name, c.DisplayName, c.Version, c.Description = m.Name, m.DisplayName, m.Version, m.Description
	c.Author, c.AuthorEmail, c.AuthorURL = m.Author.Name, m.Author.Email, m.Author.URL
	c.Manifest, c.Type = m.ManifestVersion, m.Server.Type
	c.Platforms, c.Runtimes = m.Compatibility.Platforms, m.Compatibility.Runtimes
	for _, t := range m.Tools {
		c.Tools = append(c.Tools, BundleTool{Name: t.Name, Description: t.Description})
	}
	for _, p := range m.Prompts {
		c.Prompts = append(c.Prompts, BundleTool{Name: p.Name, Description: p.Description})
	}
	for _, k := range m.Keys {
		op := m.UserConfig[k]
		c.Options = append(c.Options, BundleOption{Key: k, Title: op.Title, Description: op.Description, Type: op.Type,
			Required: op.Required, Sensitive: op.Sensitive, Multiple: op.Multiple, Default: op.Default, Min: op.Min, Max: op.Max})
	}
	c.Local = o.Local
	if c.Local == "" {
		c.Local = config.NormalizeName(m.Name)
	}
	dirs := o.Dirs
	if dirs == (bundle.Dirs{}) {
		home, _ := os.UserHomeDir()
		dirs = BundleDirs(home)
	}
	// The values as an install takes them (bundleInputs), every
	// sensitive option as the reference an install writes, given or not.
	plain := map[string][]string{}
	for k, vs := range o.Values {
		if !m.UserConfig[k].Sensitive {
			plain[k] = vs
		}
	}
	secretName := func(key string) string { return config.SuggestSecretName(c.Local, key) }
	in, ps := bundleInputs(m, plain, secretName)
	add(ps, false)
	for _, k := range m.Keys {
		if m.UserConfig[k].Sensitive {
			in.Secrets[k] = config.KeyringRef(secretName(k))
		}
	}
	if m.Server.MCPConfig == nil {
		add(bundle.Problems{{Key: "server.mcp_config", Message: fmt.Sprintf("is absent (server type %q): Switchboard runs only bundles that say their command (node, python and binary bundles do)", m.Server.Type)}}, false)
	} else {
		l, eps := m.Expand("${__dirname}", dirs, runtime.GOOS, in)
		add(eps, false)
		if eps.Refusing() {
			l = placeheld(m, dirs, in, append(ps, eps...))
		}
		c.Command, c.Args, c.Env = l.Command, slices.Clone(l.Args), l.Env
	}
	look := o.LookPath
	if look == nil {
		look = exec.LookPath
	}
	add(m.Check(ctx, runtime.GOOS, look), true)
}

// placeheld is what the bundle would run when values are missing or
// wrong: each option with a problem stands as <KEY> (as a form's field
// to fill in), so a card shows the command before the form is filled.
func placeheld(m *bundle.Manifest, dirs bundle.Dirs, in bundle.Inputs, ps bundle.Problems) bundle.Launch {
	held := *m
	held.UserConfig = maps.Clone(m.UserConfig)
	in2 := bundle.Inputs{Values: map[string]any{}, Secrets: maps.Clone(in.Secrets)}
	for k, v := range in.Values {
		if _, ok := m.UserConfig[k]; ok {
			in2.Values[k] = v
		}
	}
	for _, p := range ps {
		k, ok := strings.CutPrefix(p.Key, "user_config.")
		o, known := m.UserConfig[k]
		if !ok || !known || o.Sensitive {
			continue
		}
		held.UserConfig[k] = bundle.Option{Type: "string", Title: o.Title} // any text, no range
		in2.Values[k] = "<" + k + ">"
	}
	l, eps := held.Expand("${__dirname}", dirs, runtime.GOOS, in2)
	if eps.Refusing() {
		return bundle.Launch{}
	}
	return l
}
