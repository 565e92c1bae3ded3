package registry

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Card is what a person sees of an entry before anything of it runs:
// who published it and how the registry checked that, where its source
// is, how old its version is, and for each package the exact command
// line Switchboard would start (an argv: no shell), the runtime it needs
// and whether this machine has it.
type Card struct {
	Name        string `json:"name"`
	Registry    string `json:"registry"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Version     string `json:"version,omitempty"`
	Namespace   string `json:"namespace"`
	// Verified is how the namespace was checked: "github" (io.github.X:
	// the publisher signed in to GitHub as X), "domain" (a reverse-DNS
	// namespace: the publisher proved the domain by DNS or HTTP),
	// "catalog" (Switchboard's own template), or "none".
	Verified     string        `json:"verified"`
	VerifiedText string        `json:"verifiedText"`
	Repository   string        `json:"repository,omitempty"`
	RepositoryID string        `json:"repositoryId,omitempty"`
	Website      string        `json:"website,omitempty"`
	PublishedAt  string        `json:"publishedAt,omitempty"`
	Age          string        `json:"age,omitempty"` // "12 days", from PublishedAt
	Status       string        `json:"status"`
	StatusMsg    string        `json:"statusMessage,omitempty"`
	Note         string        `json:"note,omitempty"`
	Icons        []string      `json:"icons,omitempty"` // https sources only
	Packages     []PackageCard `json:"packages,omitempty"`
	Remotes      []RemoteCard  `json:"remotes,omitempty"`
}

// PackageCard is one package of a card.
type PackageCard struct {
	RegistryType string `json:"registryType"`
	Identifier   string `json:"identifier"`
	Version      string `json:"version,omitempty"`
	Transport    string `json:"transport"`
	TransportURL string `json:"transportUrl,omitempty"`
	// Argv is the command line Switchboard would start, with <NAME>
	// where a value must be given first; nil when it cannot run this
	// package (Unsupported says why).
	Argv        []string `json:"argv,omitempty"`
	Unsupported string   `json:"unsupported,omitempty"`
	// Pin says how exactly Argv names what runs.
	Pin        string `json:"pin,omitempty"`
	Runtime    string `json:"runtime,omitempty"`    // the program that provides Argv[0]: Node.js, uv, Docker, .NET
	RuntimeURL string `json:"runtimeUrl,omitempty"` // where to get it
	// RuntimeFound says whether Argv[0] resolves in the PATH the host
	// gives servers; RuntimePath is where.
	RuntimeFound bool        `json:"runtimeFound"`
	RuntimePath  string      `json:"runtimePath,omitempty"`
	FileSHA256   string      `json:"fileSha256,omitempty"`
	Inputs       []InputCard `json:"inputs,omitempty"` // the arguments' values a person gives
	Env          []InputCard `json:"env,omitempty"`
	// RuntimeArgs and PackageArgs are Argv's runtimeArguments and
	// packageArguments, expanded (a locked install runs the package's
	// entry with PackageArgs, not through the runtime's command).
	RuntimeArgs []string `json:"-"`
	PackageArgs []string `json:"-"`
}

// RemoteCard is one remote of a card.
type RemoteCard struct {
	Type      string      `json:"type"`
	URL       string      `json:"url"`
	Headers   []InputCard `json:"headers,omitempty"`
	Variables []InputCard `json:"variables,omitempty"`
}

// InputCard is a value a person may or must give.
type InputCard struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Required    bool     `json:"required"`
	Secret      bool     `json:"secret"`
	Format      string   `json:"format,omitempty"`
	Default     string   `json:"default,omitempty"`
	Value       string   `json:"value,omitempty"` // fixed by the publisher
	Choices     []string `json:"choices,omitempty"`
}

// runtimes are the programs that run each registry type's packages.
var runtimes = map[string]struct{ command, program, url string }{
	"npm":   {"npx", "Node.js", "https://nodejs.org/"},
	"pypi":  {"uvx", "uv", "https://docs.astral.sh/uv/getting-started/installation/"},
	"oci":   {"docker", "Docker", "https://docs.docker.com/get-docker/"},
	"nuget": {"dnx", ".NET 10 SDK", "https://dotnet.microsoft.com/download"},
}

// MakeCard describes e. lookPath resolves a command in the PATH the host
// gives servers (nil: nothing is found); now dates the version's age.
func MakeCard(e *Entry, lookPath func(string) (string, error), now time.Time) Card {
	s := &e.Server
	c := Card{Name: s.Name, Registry: e.Registry, Title: s.Title, Description: s.Description, Version: s.Version,
		Website: s.WebsiteURL, PublishedAt: e.PublishedAt, Status: e.Status, StatusMsg: e.StatusMessage, Note: e.Note}
	if c.Status == "" {
		c.Status = StatusActive
	}
	c.Namespace, _ = SplitName(s.Name)
	c.Verified, c.VerifiedText = verification(c.Namespace, e.Registry)
	if s.Repository != nil {
		c.Repository, c.RepositoryID = s.Repository.URL, s.Repository.ID
		if s.Repository.Subfolder != "" {
			c.Repository += " (folder " + s.Repository.Subfolder + ")"
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, e.PublishedAt); err == nil {
		c.Age = Age(now.Sub(t))
	}
	for _, ic := range s.Icons {
		if u, err := url.Parse(ic.Src); err == nil && u.Scheme == "https" && u.Host != "" {
			c.Icons = append(c.Icons, ic.Src)
		}
	}
	for i := range s.Packages {
		pc, _ := packageCard(&s.Packages[i], lookPath, nil)
		c.Packages = append(c.Packages, pc)
	}
	for _, r := range s.Remotes {
		rc := RemoteCard{Type: r.Type, URL: r.URL}
		for _, h := range r.Headers {
			rc.Headers = append(rc.Headers, inputCard(h.Name, h.Input))
		}
		for _, name := range sortedKeys(r.Variables) {
			rc.Variables = append(rc.Variables, inputCard(name, r.Variables[name]))
		}
		c.Remotes = append(c.Remotes, rc)
	}
	return c
}

// verification says how the namespace's owner was checked. The official
// registry checks both kinds when a server is published; another
// registry's checks are its own.
func verification(ns, registry string) (string, string) {
	by := "the registry checked this when it was published"
	if registry != "" && registry != "official" && registry != CatalogRegistry {
		by = "as the registry " + registry + " says; its checks are its own"
	}
	switch {
	case registry == CatalogRegistry:
		return "catalog", "Switchboard's built-in catalog: a template reviewed by hand, not a registry entry"
	case strings.HasPrefix(ns, "io.github."):
		owner := strings.TrimPrefix(ns, "io.github.")
		return "github", fmt.Sprintf("GitHub-verified: published by the GitHub account or organisation %q (%s)", owner, by)
	case strings.Count(ns, ".") >= 1:
		labels := strings.Split(ns, ".")
		slices.Reverse(labels)
		return "domain", fmt.Sprintf("domain-verified: published by the owner of %s, proved by DNS or HTTP (%s)", strings.Join(labels, "."), by)
	}
	return "none", "not verified: the namespace is neither io.github.OWNER nor a reverse domain name"
}

// giveFunc returns the value a person gave for an input's key (ok
// false: none given). The card is computed with none given (nil).
type giveFunc func(key string, in Input) (value string, ok bool)

// packageCard describes one package, its argv with the values give
// returns; missing are the keys whose value is needed and was not given
// (a <KEY> placeholder in the argv).
func packageCard(p *Package, lookPath func(string) (string, error), give giveFunc) (pc PackageCard, missing []string) {
	pc = PackageCard{RegistryType: p.RegistryType, Identifier: p.Identifier, Version: p.Version,
		Transport: p.Transport.Type, TransportURL: p.Transport.URL, FileSHA256: p.FileSHA256}
	if pc.Transport == "" {
		pc.Transport = "stdio"
	}
	for _, ev := range p.EnvironmentVariables {
		pc.Env = append(pc.Env, inputCard(ev.Name, ev.Input))
	}
	rt, known := runtimes[p.RegistryType]
	if !known {
		if p.RegistryType == "mcpb" {
			pc.Unsupported = "an MCP bundle (.mcpb): installed with 'switchboard registry add NAME --package N' (the file checked against its fileSha256, then installed as 'bundles install' does; its options with --set KEY=VALUE)"
		} else {
			pc.Unsupported = fmt.Sprintf("the package type %q: Switchboard cannot run it", p.RegistryType)
		}
		return pc, nil
	}
	pc.Runtime, pc.RuntimeURL = rt.program, rt.url
	rargs, rin, rmiss := expandArgs(p.RuntimeArguments, give)
	pargs, pin, pmiss := expandArgs(p.PackageArguments, give)
	pc.Inputs = append(rin, pin...)
	pc.RuntimeArgs, pc.PackageArgs = rargs, pargs
	missing = append(rmiss, pmiss...)
	argv := []string{rt.command}
	switch p.RegistryType {
	case "npm":
		spec := p.Identifier
		if p.Version != "" {
			spec += "@" + p.Version
			pc.Pin = "exact version " + p.Version + "; 'registry add' installs it locked (every package's integrity in servers.lock, install scripts off) and runs node ENTRY; with --unlocked, npx resolves the package's own dependencies' ranges at each start"
		} else {
			pc.Pin = "not pinned: the registry gives no version, npx runs whatever is newest"
		}
		argv = append(append(append(argv, "-y"), rargs...), spec)
		argv = append(argv, pargs...)
	case "pypi":
		spec := p.Identifier
		if p.Version != "" {
			spec += "==" + p.Version
			pc.Pin = "exact version " + p.Version + "; 'registry add' installs it locked (a Python venv, every file checked against its SHA-256, wheels only) and runs the venv's python; with --unlocked, uvx resolves the package's own dependencies at each start"
		} else {
			pc.Pin = "not pinned: the registry gives no version, uvx runs whatever is newest"
		}
		argv = append(append(argv, rargs...), spec)
		argv = append(argv, pargs...)
	case "oci":
		image := p.Identifier
		if p.Version != "" && !strings.Contains(image, "@") && !strings.Contains(image[strings.LastIndex(image, "/")+1:], ":") {
			image += ":" + p.Version
		}
		switch {
		case strings.Contains(image, "@sha256:"):
			pc.Pin = "image digest: exactly this image"
		case strings.Contains(image[strings.LastIndex(image, "/")+1:], ":"):
			pc.Pin = "image tag, not a digest: 'registry add' resolves it to its digest once and runs that (with --unlocked, the tag, whose image can change)"
		default:
			pc.Pin = "not pinned: no tag or digest, Docker runs :latest"
		}
		argv = append(argv, "run", "-i", "--rm")
		for _, ev := range p.EnvironmentVariables {
			argv = append(argv, "-e", ev.Name) // docker passes the variable from its own environment
		}
		argv = append(append(argv, rargs...), image)
		argv = append(argv, pargs...)
	case "nuget":
		spec := p.Identifier
		if p.Version != "" {
			spec += "@" + p.Version
			pc.Pin = "exact version " + p.Version
		} else {
			pc.Pin = "not pinned: the registry gives no version"
		}
		argv = append(append(argv, rargs...), spec, "--yes")
		if len(pargs) > 0 {
			argv = append(append(argv, "--"), pargs...)
		}
	}
	pc.Argv = argv
	if lookPath != nil {
		if path, err := lookPath(rt.command); err == nil {
			pc.RuntimeFound, pc.RuntimePath = true, path
		}
	}
	return pc, missing
}

// varRef is a {variable} in a value.
var varRef = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandArgs is the argv of arguments as published, before a person
// gives any value: fixed values as they are, defaults where there is
// one, <NAME> where a required value is missing; an optional argument
// without a value or default is left out. The inputs are the values a
// person may give. With give, a value given replaces the default (a
// named boolean argument is given "true" or "false"); missing are the
// keys left as <KEY>.
func expandArgs(args []Argument, give giveFunc) (argv []string, inputs []InputCard, missing []string) {
	if give == nil {
		give = func(string, Input) (string, bool) { return "", false }
	}
	for _, a := range args {
		hint := a.ValueHint
		if hint == "" {
			hint = strings.TrimLeft(a.Name, "-")
		}
		if hint == "" {
			hint = "value"
		}
		value := a.Value
		if value == "" {
			ic := inputCard(hint, a.Input)
			if a.Type == "named" {
				ic.Name = a.Name
			}
			inputs = append(inputs, ic)
			value = a.Default
			if v, ok := give(ic.Name, a.Input); ok {
				if a.Type == "named" && a.Format == "boolean" {
					if v == "true" {
						argv = append(argv, a.Name)
					}
					continue
				}
				value = v
			}
		}
		for _, name := range sortedKeys(a.Variables) {
			v := a.Variables[name]
			inputs = append(inputs, inputCard(name, v))
		}
		value = varRef.ReplaceAllStringFunc(value, func(ref string) string {
			name := ref[1 : len(ref)-1]
			v, ok := a.Variables[name]
			if !ok {
				return ref
			}
			if given, ok := give(name, v); ok && v.Value == "" {
				return given
			}
			switch {
			case v.Value != "":
				return v.Value
			case v.Default != "":
				return v.Default
			}
			missing = append(missing, name)
			return "<" + name + ">"
		})
		switch {
		case value == "" && !a.IsRequired:
			continue // optional, not set
		case value == "" && a.Type == "named" && a.Format == "boolean":
			value = ""
		case value == "":
			if a.Type == "named" {
				missing = append(missing, a.Name)
			} else {
				missing = append(missing, hint)
			}
			value = "<" + hint + ">"
		}
		if a.Type == "named" {
			argv = append(argv, a.Name)
			if value != "" && a.Format != "boolean" {
				argv = append(argv, value)
			}
			continue
		}
		argv = append(argv, value)
	}
	return argv, inputs, missing
}

func inputCard(name string, in Input) InputCard {
	return InputCard{Name: name, Description: in.Description, Required: in.IsRequired, Secret: in.IsSecret,
		Format: in.Format, Default: in.Default, Value: in.Value, Choices: in.Choices}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Age says how long ago: "today", "3 days", "5 months", "2 years".
func Age(d time.Duration) string {
	days := int(d.Hours() / 24)
	switch {
	case d < 0:
		return "in the future (the clocks disagree)"
	case days == 0:
		return "today"
	case days == 1:
		return "1 day"
	case days < 60:
		return fmt.Sprintf("%d days", days)
	case days < 730:
		return fmt.Sprintf("%d months", days/30)
	}
	return fmt.Sprintf("%d years", days/365)
}
