package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/switchboard-mcp/switchboard/internal/serverspec"
)

// Runtime is what the engine knows of a server when it adds the
// runtime's own needs to its policy (docs/sandbox.md lists them).
type Runtime struct {
	Exe  string   // the resolved executable
	Args []string // the server's arguments
	Cwd  string   // the spec's working directory ("" for the host's, not added)
	Home string   // the user's home directory
	Path string   // the PATH list the server gets
	Temp string   // the server's private temp directory
	Net  NetMode
	// Protected are the paths never given ([Protected]: credentials, the
	// app's own state); a need that is one, holds one, or is a shared
	// install prefix such as ~/.local is left out ([WideGrant]).
	Protected []string
}

// systemRead are read (and executed) by any program: the dynamic loader
// and libraries, system binaries (an interpreter's /usr/bin/env), locale,
// time zones, CA certificates, the user database, and the harmless parts
// of /proc and /sys that runtimes read (their own process, CPU and memory
// counts, cgroup limits). /proc whole, so that every process of the
// server reads its own /proc/self (node's process.memoryUsage() in a child
// of npx): another process's environ, memory, descriptors and maps stay
// closed, by Landlock's ptrace rule (a sandboxed process may not inspect
// one outside its sandbox), which /proc applies to them.
var systemRead = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/ld.so.preload",
	"/etc/localtime", "/etc/timezone", "/etc/locale.alias", "/etc/default/locale",
	"/etc/ssl", "/etc/ca-certificates", "/etc/pki", "/etc/crypto-policies",
	"/etc/passwd", "/etc/group", "/etc/nsswitch.conf",
	procRead(),
	"/sys/devices/system/cpu", "/sys/fs/cgroup",
	"/dev/urandom", "/dev/random", "/dev/zero",
}

// procRead is /proc whole, so that every process of a server reads its
// own /proc/self; for root, only the server's own /proc/PID ("/proc/self",
// resolved by the shim in the server's process): root reads another
// process's environ even from inside a Landlock domain (seen on Linux
// 6.18; a user does not), so root's children lose their /proc/self
// instead of the servers' environments being open (docs/sandbox.md).
func procRead() string {
	if os.Geteuid() == 0 {
		return "/proc/self"
	}
	return "/proc"
}

// systemWrite: the null device (programs write to it).
var systemWrite = []string{"/dev/null", "/dev/full"}

// netRead are read for name resolution where the network is allowed.
var netRead = []string{"/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols", "/run/systemd/resolve"}

// Needs returns the paths the runtime needs: read (and execute) and
// write. Symbolic links are added with their targets (Landlock checks the
// file a path resolves to). The home directory, its ancestors and / are
// never added whole, whatever the executable's layout.
func (r Runtime) Needs() (read, write []string) {
	seen := map[string]bool{}
	add := func(list *[]string, p string) {
		if p == "" || !filepath.IsAbs(p) || r.tooWide(p) {
			return
		}
		ps := []string{filepath.Clean(p)}
		if !strings.HasPrefix(p, "/proc/") {
			if t, err := filepath.EvalSymlinks(p); err == nil && t != ps[0] && !r.tooWide(t) {
				ps = append(ps, t)
			}
		}
		for _, q := range ps {
			if serverspec.WideGrant(q, r.Home, r.Protected) != "" {
				return // ~/.local for ~/.local/bin/x, a credential file: never
			}
		}
		for _, q := range ps {
			if !seen[q] {
				seen[q] = true
				*list = append(*list, q)
			}
		}
	}
	for _, p := range systemRead {
		add(&read, p)
	}
	if r.Net != NetNone && r.Net != "" {
		for _, p := range netRead {
			add(&read, p)
		}
	}
	for _, p := range systemWrite {
		add(&write, p)
	}
	add(&write, r.Temp)

	// The executable's install, and its interpreter's for a script
	// (#!/usr/bin/env node: node found in PATH).
	progs := []string{r.Exe}
	if in := interpreter(r.Exe, r.Path); in != "" {
		progs = append(progs, in)
	}
	for _, exe := range progs {
		add(&read, exe)
		for _, d := range installDirs(exe) {
			add(&read, d)
		}
		for _, e := range []string{exe, evalOr(exe)} {
			if strings.Contains(e, "/node_modules/") { // node_modules/.bin/server: the packages beside it
				add(&read, packageRoot(e))
			}
		}
	}
	// The package managers' caches, read-only: npx runs packages from
	// ~/.npm/_npx, uv from ~/.cache/uv and its managed Pythons and tools in
	// ~/.local/share/uv. The host fills them outside the sandbox with
	// install scripts off (app/host/warm.go): a server that could write
	// there would plant code that another server, or the user, runs later
	// unconfined. Their credentials (~/.npmrc, uv's credentials) are never
	// given.
	names := map[string]bool{}
	for _, p := range progs {
		names[filepath.Base(p)] = true
	}
	if r.Home != "" {
		if names["npx"] || names["npm"] || names["node"] || names["pnpm"] || names["bunx"] || names["bun"] {
			add(&read, filepath.Join(r.Home, ".npm"))
		}
		if names["uv"] || names["uvx"] || strings.HasPrefix(filepath.Base(r.Exe), "python") {
			add(&read, filepath.Join(r.Home, ".cache", "uv"))
			add(&read, filepath.Join(r.Home, ".local", "share", "uv", "python"))
			add(&read, filepath.Join(r.Home, ".local", "share", "uv", "tools"))
		}
	}
	// A script given by path (node /x/dist/index.js): its package.
	for _, a := range r.Args {
		if !filepath.IsAbs(a) {
			continue
		}
		if fi, err := os.Stat(a); err != nil || !fi.Mode().IsRegular() {
			continue
		}
		add(&read, packageRoot(a))
		if t, err := filepath.EvalSymlinks(a); err == nil && t != a {
			add(&read, packageRoot(t))
		}
	}
	if r.Cwd != "" {
		add(&read, r.Cwd)
		// A project's node_modules linked from elsewhere (a shared
		// checkout, a store): what npx runs from the project is there.
		add(&read, filepath.Join(r.Cwd, "node_modules"))
	}
	return read, write
}

// tooWide reports whether p is /, the home directory or one of its
// ancestors: never a runtime need.
func (r Runtime) tooWide(p string) bool {
	p = filepath.Clean(p)
	if p == "/" {
		return true
	}
	if r.Home == "" {
		return false
	}
	h := filepath.Clean(r.Home)
	return p == h || strings.HasPrefix(h, p+"/")
}

// installDirs returns the install tree of an executable: for
// PREFIX/bin/prog (node's prefix, a virtualenv, ~/.nvm/versions/node/vX)
// the prefix, else its directory; for the file a symlink points to, the
// same again. System prefixes (/usr, /bin) are in systemRead already.
func installDirs(exe string) []string {
	var out []string
	for _, p := range []string{exe, evalOr(exe)} {
		dir := filepath.Dir(p)
		if filepath.Base(dir) == "bin" {
			out = append(out, filepath.Dir(dir))
		} else {
			out = append(out, dir)
		}
	}
	return out
}

func evalOr(p string) string {
	if t, err := filepath.EvalSymlinks(p); err == nil {
		return t
	}
	return p
}

// interpreter returns the program a script's #! line runs (through
// /usr/bin/env: looked up in path), or "".
func interpreter(exe, path string) string {
	f, err := os.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	if !strings.HasPrefix(line, "#!") {
		return ""
	}
	fields := strings.Fields(line[2:])
	if len(fields) == 0 {
		return ""
	}
	prog := fields[0]
	if filepath.Base(prog) == "env" {
		prog = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				prog = f
				break
			}
		}
		if prog == "" || filepath.IsAbs(prog) {
			return prog
		}
		for _, dir := range filepath.SplitList(path) {
			c := filepath.Join(dir, prog)
			if fi, err := os.Stat(c); filepath.IsAbs(dir) && err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				return c
			}
		}
		return ""
	}
	return prog
}

// packageRoot is the tree a script file belongs to: the outermost
// node_modules folder on its path (its dependencies are found there), else
// the nearest folder with package.json, pyproject.toml or go.mod, else its
// own folder.
func packageRoot(file string) string {
	if i := strings.Index(file, "/node_modules/"); i >= 0 {
		return file[:i+len("/node_modules")]
	}
	dir := filepath.Dir(file)
	for d := dir; d != "/" && d != "."; d = filepath.Dir(d) {
		for _, m := range []string{"package.json", "pyproject.toml", "setup.py", "go.mod"} {
			if _, err := os.Stat(filepath.Join(d, m)); err == nil {
				return d
			}
		}
	}
	return dir
}
