package install

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/registry"
)

// SandboxPreset is the sandbox a registry entry's inputs imply
// (docs/registry.md, "The sandbox an entry gets"), for the package st
// runs with the values given:
//
//   - a `format: filepath` input's chosen path is granted, read and
//     write, unless the input's description says "read-only" (then read
//     only); so is a package argument whose value is an existing
//     absolute folder (the bare "files" preset's rule: how a
//     filesystem-like server is told its folders);
//   - the server is a web API, and gets outbound network, when one of
//     its inputs is a secret (an API key or token: a server needs one to
//     reach a service), when an input's name ends in URL, URI, ENDPOINT
//     or HOST or names an API key or token, or when an input's value is
//     an http(s) URL;
//   - else "strict".
//
// It returns the entry's "sandbox" value (nil for none: a remote, whose
// process is elsewhere, or an OCI package, which Docker isolates and
// whose client needs the daemon's socket) and why, one line a rule that
// applied.
func SandboxPreset(s *registry.Server, st *registry.Setup, values map[string]string) (*config.Sandbox, []string) {
	if st.Package == nil || st.Package.RegistryType == "oci" {
		return nil, nil
	}
	p := findPackage(s, st.Package)
	var why []string
	var read, write []string
	home, _ := os.UserHomeDir()
	grant := func(key, path string, in registry.Input) {
		if path == "" || strings.HasPrefix(path, "<") {
			return
		}
		abs := path
		if path == "~" || strings.HasPrefix(path, "~/") {
			if home == "" {
				return
			}
			abs = filepath.Join(home, path[1:])
		}
		if !filepath.IsAbs(abs) {
			why = append(why, fmt.Sprintf("%s=%s is a relative path: not granted (give an absolute path)", key, path))
			return
		}
		abs = filepath.Clean(abs)
		if slices.Contains(read, abs) || slices.Contains(write, abs) {
			return
		}
		if readOnly(in.Description) {
			read = append(read, abs)
			why = append(why, fmt.Sprintf("%s (a file path, described as read-only): %s, read only", key, abs))
		} else {
			write = append(write, abs)
			why = append(why, fmt.Sprintf("%s (a file path you chose): %s, read and write", key, abs))
		}
		if _, err := os.Stat(abs); err != nil {
			why = append(why, fmt.Sprintf("%s does not exist yet: a sandboxed server gets only what exists when it starts (create it first)", abs))
		}
	}
	network := ""
	web := func(key string, in registry.Input, value string) {
		if network != "" {
			return
		}
		up := strings.ToUpper(strings.TrimLeft(key, "-"))
		switch {
		case in.IsSecret:
			network = fmt.Sprintf("%s is a secret (an API key or token): a web API, outbound network", key)
		case hasSuffix(up, "URL", "URI", "ENDPOINT", "HOST") || strings.Contains(up, "API_KEY") || strings.Contains(up, "APIKEY") || strings.Contains(up, "TOKEN"):
			network = fmt.Sprintf("%s names a service's address or key: a web API, outbound network", key)
		case isURL(value) || isURL(in.Default) || isURL(in.Value):
			network = fmt.Sprintf("%s is a URL: a web API, outbound network", key)
		}
	}
	if p != nil {
		for _, ev := range p.EnvironmentVariables {
			v := st.Env[ev.Name]
			if ev.Format == "filepath" {
				grant(ev.Name, strings.ReplaceAll(v, "$${", "${"), ev.Input)
			}
			web(ev.Name, ev.Input, v)
		}
		for _, a := range slices.Concat(p.RuntimeArguments, p.PackageArguments) {
			key := argKey(a)
			v, ok := values[key]
			if !ok {
				v, ok = values[strings.TrimLeft(key, "-")]
			}
			if !ok {
				v = a.Default
				if a.Value != "" {
					v = a.Value
				}
			}
			if a.Format == "filepath" {
				grant(key, v, a.Input)
			}
			web(key, a.Input, v)
			for name, in := range a.Variables {
				vv, ok := values[name]
				if !ok {
					vv = in.Default
				}
				if in.Format == "filepath" {
					grant(name, vv, in)
				}
				web(name, in, vv)
			}
		}
	}
	for i, a := range st.Package.PackageArgs {
		if filepath.IsAbs(a) && !slices.Contains(write, filepath.Clean(a)) && !slices.Contains(read, filepath.Clean(a)) {
			if fi, err := os.Stat(a); err == nil && fi.IsDir() {
				write = append(write, filepath.Clean(a))
				why = append(why, fmt.Sprintf("argument %d is the folder %s: read and write", i+1, a))
			}
		}
	}
	sb := &config.Sandbox{Preset: config.SandboxStrict}
	if network != "" {
		sb.Preset = config.SandboxNetwork
		why = append(why, network)
	}
	if len(read)+len(write) > 0 {
		sb.Object, sb.Read, sb.Write = true, read, write
	}
	if network == "" && len(read)+len(write) == 0 {
		why = append(why, "no file path and no sign of a web API among its inputs: strict (no network, no file of yours)")
	}
	return sb, why
}

// findPackage is the package of s that pc describes.
func findPackage(s *registry.Server, pc *registry.PackageCard) *registry.Package {
	for i := range s.Packages {
		p := &s.Packages[i]
		if p.RegistryType == pc.RegistryType && p.Identifier == pc.Identifier && p.Version == pc.Version {
			return p
		}
	}
	return nil
}

// argKey is an argument's key for --set, as the card names it.
func argKey(a registry.Argument) string {
	if a.Type == "named" && a.Name != "" {
		return a.Name
	}
	if a.ValueHint != "" {
		return a.ValueHint
	}
	if a.Name != "" {
		return strings.TrimLeft(a.Name, "-")
	}
	return "value"
}

// readOnly says whether an input's description calls the path read-only.
func readOnly(desc string) bool {
	d := strings.ToLower(desc)
	return strings.Contains(d, "read-only") || strings.Contains(d, "read only") || strings.Contains(d, "readonly")
}

func hasSuffix(s string, suffixes ...string) bool {
	for _, x := range suffixes {
		if strings.HasSuffix(s, x) {
			return true
		}
	}
	return false
}

func isURL(v string) bool {
	v = strings.ToLower(v)
	return strings.HasPrefix(v, "https://") || strings.HasPrefix(v, "http://")
}
