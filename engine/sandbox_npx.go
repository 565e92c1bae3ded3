package engine

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// npxDirect is the launch of a sandboxed npx entry's package straight from
// npx's cache, where the host's warm-up installed it (app/host/warm.go):
// ~/.npm/_npx/HASH/node_modules/.bin/BIN ARGS..., the file npx itself would
// run. npx cannot run it under the sandbox: for a package named without a
// version it asks the registry for the newest first (npm exec passes
// preferOnline, whatever npm_config_prefer_offline says), retrying for
// about a minute where there is no network, and then it takes a lock and
// rewrites package.json in that folder, which the sandbox keeps read-only.
// The server sat in "starting" until the handshake timeout (issue 26).
//
// ok is false, and the entry runs through npx as written, when its
// arguments are not the plain forms ("npx [-y] PKG ARGS...", "npx [-y]
// --package=PKG... [--] BIN ARGS...": other npm options may change what
// runs), when the package is not a registry name, or when the folder or
// its bin is not there (not warmed yet, another cache).
func npxDirect(spec *Spec, launch *Launch, env []string, home string) (*Launch, bool) {
	if goosName == "windows" || filepath.Base(launch.Resolved) != "npx" {
		return nil, false
	}
	pkgs, bin, rest, ok := npxCommand(spec.Args)
	if !ok {
		return nil, false
	}
	cache := ""
	for _, k := range []string{"npm_config_cache", "NPM_CONFIG_CACHE"} {
		if v, ok := lookupEnv(env, k, goosName); ok && v != "" {
			cache = v
		}
	}
	if cache == "" {
		if home == "" {
			return nil, false
		}
		cache = filepath.Join(home, ".npm")
	}
	if !filepath.IsAbs(cache) {
		return nil, false
	}
	dir := filepath.Join(cache, "_npx", npxHash(pkgs))
	if bin == "" {
		name := npmName(pkgs[0])
		if name == "" {
			return nil, false
		}
		if bin = npxBin(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json"), name); bin == "" {
			return nil, false
		}
	}
	if bin != filepath.Base(bin) || bin == "." || bin == ".." {
		return nil, false
	}
	path := filepath.Join(dir, "node_modules", ".bin", bin)
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	return &Launch{Path: path, Args: append([]string{path}, rest...), Resolved: path}, true
}

// npxCommand parses npx's arguments in the forms npxDirect runs: the
// packages, the bin named after "--package" ("" to take the package's
// own), and the server's arguments.
func npxCommand(args []string) (pkgs []string, bin string, rest []string, ok bool) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if !strings.HasPrefix(a, "-") {
			break
		}
		switch name, value, has := strings.Cut(a, "="); {
		case a == "-y" || a == "--yes" || a == "-q" || a == "--quiet":
		case (name == "--package" || name == "-p") && has:
			pkgs = append(pkgs, value)
		case (a == "--package" || a == "-p") && i+1 < len(args):
			i++
			pkgs = append(pkgs, args[i])
		default:
			return nil, "", nil, false
		}
	}
	if i >= len(args) {
		return nil, "", nil, false
	}
	if len(pkgs) == 0 {
		return []string{args[i]}, "", args[i+1:], true
	}
	return pkgs, args[i], args[i+1:], true
}

// npxHash names the folder npx installs packages into: the first 16 hex
// digits of the SHA-512 of the package specs, sorted, one a line
// (libnpmexec).
func npxHash(pkgs []string) string {
	s := slices.Clone(pkgs)
	slices.Sort(s)
	h := sha512.Sum512([]byte(strings.Join(s, "\n")))
	return hex.EncodeToString(h[:])[:16]
}

// npmName is the package name of a registry spec ("@scope/name@1.2",
// "name@latest", "name"), "" for any other spec (a path, a URL, git, a
// GitHub "user/repo").
func npmName(spec string) string {
	name := spec
	if at := strings.LastIndex(spec, "@"); at > 0 {
		name = spec[:at]
	}
	if strings.ContainsAny(name, `:\ `) || strings.HasPrefix(name, ".") || name == "" {
		return ""
	}
	if strings.HasPrefix(name, "@") {
		scope, n, ok := strings.Cut(name[1:], "/")
		if !ok || scope == "" || n == "" || strings.Contains(n, "/") {
			return ""
		}
	} else if strings.Contains(name, "/") {
		return ""
	}
	return name
}

// npxBin is the bin npx runs for a package without a command named: its
// only one (or its only target), or the one named as the package without
// its scope (libnpmexec's getBinFromManifest); "" if there is none.
func npxBin(manifest, name string) string {
	b, err := os.ReadFile(manifest)
	if err != nil {
		return ""
	}
	var m struct {
		Bin json.RawMessage `json:"bin"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	short := name[strings.LastIndex(name, "/")+1:]
	var one string
	if json.Unmarshal(m.Bin, &one) == nil && one != "" {
		return short
	}
	var bins map[string]string
	if json.Unmarshal(m.Bin, &bins) != nil || len(bins) == 0 {
		return ""
	}
	targets := map[string]bool{}
	var first string
	for k, v := range bins {
		targets[v] = true
		if first == "" || k < first {
			first = k
		}
	}
	if len(targets) == 1 {
		return first
	}
	if bins[short] != "" {
		return short
	}
	return ""
}
