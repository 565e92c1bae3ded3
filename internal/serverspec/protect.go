package serverspec

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// credentialPaths are the files and folders, relative to the home
// directory, that hold the user's credentials or code that other
// programs run later: a sandboxed server is never given them, neither by
// the engine's runtime needs nor by a list of the entry (a list that
// contains one is a problem of the config). Switchboard's own state (its
// config, activity log, pins, OAuth material) is added by the app
// (engine.StartOptions.Protected).
var credentialPaths = []string{
	".ssh", ".gnupg", ".netrc", ".npmrc", ".pypirc", ".yarnrc", ".yarnrc.yml",
	".cargo/credentials", ".cargo/credentials.toml",
	".docker/config.json", ".aws", ".azure", ".kube", ".config/gcloud",
	".config/gh", ".config/hub", ".git-credentials", ".config/git/credentials",
	".local/share/keyrings", ".password-store", ".pki", ".local/share/uv/credentials", ".config/uv/uv.toml",
	".mozilla", ".config/google-chrome", ".config/chromium",
	".bash_history", ".zsh_history", ".python_history", ".node_repl_history",
}

// Protected returns the absolute paths a sandboxed server is never given
// under home, with extra (the app's own state) added, symbolic links
// resolved beside their names.
func Protected(home string, extra ...string) []string {
	var out []string
	add := func(p string) {
		p = filepath.Clean(p)
		out = append(out, p)
		if t, err := filepath.EvalSymlinks(p); err == nil && t != p {
			out = append(out, t)
		}
	}
	if home != "" {
		for _, c := range credentialPaths {
			add(filepath.Join(home, c))
		}
	}
	for _, e := range extra {
		if filepath.IsAbs(e) {
			add(e)
		}
	}
	return out
}

// sharedPrefixes are folders under home that many programs install into
// and run from: an executable there is granted its own file and package
// folder, never the prefix (a server could read everything else in it, or
// another program's code).
var sharedPrefixes = []string{".local", ".cargo", "go", ".deno", ".bun", ".npm-global", ".yarn", ".volta", ".asdf", ".pyenv", ".rbenv", ".nvm", ".cache", ".config"}

// WideGrant says why path must not be granted to a sandboxed server, or ""
// when it may be: it is /, home or an ancestor of home, or a shared
// install prefix such as ~/.local, or it contains (or is) one of the
// protected paths or is inside one. path is resolved through ".." and symbolic links
// before it is compared; a path that does not exist is compared as
// written.
func WideGrant(path, home string, protected []string) string {
	if path == "" {
		return ""
	}
	ps := []string{filepath.Clean(path)}
	if t, err := filepath.EvalSymlinks(path); err == nil && t != ps[0] {
		ps = append(ps, t)
	}
	homes := []string{}
	if home != "" {
		homes = append(homes, filepath.Clean(home))
		if t, err := filepath.EvalSymlinks(home); err == nil && t != homes[0] {
			homes = append(homes, t)
		}
	}
	for _, p := range ps {
		if p == "/" {
			return "it is the root folder, /"
		}
		for _, h := range homes {
			if p == h {
				return "it is the home folder"
			}
			if within(h, p) {
				return "it holds the home folder"
			}
			for _, s := range sharedPrefixes {
				if p == filepath.Join(h, s) {
					return "it is " + filepath.Join("~", s) + ", which holds other programs and their data"
				}
			}
		}
		for _, q := range protected {
			if within(p, q) {
				return "it is inside " + tildePath(q, homes) + ", which a sandboxed server may never read"
			}
			if p == q || within(q, p) {
				return "it holds " + tildePath(q, homes) + ", which a sandboxed server may never read"
			}
		}
	}
	return ""
}

// within reports whether child is strictly inside parent.
func within(child, parent string) bool {
	if parent == "/" {
		return child != "/"
	}
	return strings.HasPrefix(child, parent+string(os.PathSeparator))
}

func tildePath(p string, homes []string) string {
	for _, h := range homes {
		if within(p, h) {
			return "~" + strings.TrimPrefix(p, h)
		}
	}
	return p
}

// AllowPorts returns the TCP ports of "host:port" endpoints, each once;
// endpoints without a valid port are skipped (the config refuses them).
func AllowPorts(endpoints []string) []uint16 {
	var out []uint16
	for _, e := range endpoints {
		i := strings.LastIndexByte(e, ':')
		if i < 0 {
			continue
		}
		var port int
		if _, err := fmt.Sscanf(e[i+1:], "%d", &port); err != nil || port < 1 || port > 65535 || fmt.Sprint(port) != e[i+1:] {
			continue
		}
		dup := false
		for _, p := range out {
			dup = dup || p == uint16(port)
		}
		if !dup {
			out = append(out, uint16(port))
		}
	}
	return out
}
