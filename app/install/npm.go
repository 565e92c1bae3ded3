package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Request is one npm install: a server's package at its exact version.
type Request struct {
	Server       string // the server's name in the config
	Registry     string // where the entry came from
	Entry        string
	EntryVersion string
	Package      string // the npm package's name
	Version      string // its exact version
	// Source is what npm installs when it is not PACKAGE@VERSION: a
	// package tarball's absolute path (tests). The package installed
	// must still be Package at Version.
	Source string
}

// NPM runs npm.
type NPM struct {
	Path string   // npm's absolute path
	Env  []string // its environment (nil: this process's)
	// Output gets npm's output (nil: dropped; an error quotes its end).
	Output io.Writer
}

// npmName is an npm package name: an optional @scope/ and a name, in
// the characters npm allows for new packages.
var npmName = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*$`)

// exactVersion is an exact semver version, no range.
var exactVersion = regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// Args is npm's argument vector for installing spec into the folder it
// runs in: install scripts off (no preinstall, install, postinstall or
// prepare of any package in the tree runs), no audit or funding calls
// to the registry, no devDependencies, the exact version saved; npm
// writes package-lock.json with every package's integrity.
func Args(spec string) []string {
	return []string{"install", "--ignore-scripts", "--no-audit", "--no-fund", "--omit=dev", "--save-exact", "--", spec}
}

// Folder is where version of the npm package pkg is installed:
// PackagesRoot/npm/PKG@VERSION (a scoped package in its scope's
// folder).
func Folder(stateDir, pkg, version string) string {
	return filepath.Join(PackagesRoot(stateDir), "npm", filepath.FromSlash(pkg)+"@"+version)
}

// PackagesRoot is the folder of the locked installs: beside the state
// directory, not in it (STATE-packages: ~/.local/state/switchboard-packages),
// because Switchboard's state is a protected path that no sandboxed
// server may read (config.StatePaths), and a sandboxed server must read
// its own install (the engine grants the outermost node_modules of the
// script it runs, read-only).
func PackagesRoot(stateDir string) string {
	stateDir = filepath.Clean(stateDir)
	return filepath.Join(filepath.Dir(stateDir), filepath.Base(stateDir)+"-packages")
}

// InstallNPM installs r's package into its folder (or takes the one a
// server installed before, when it still matches its lock) and returns
// what the lock records of it; the caller writes it with UpdateLock.
// The install is made in a temporary folder beside the final one and
// renamed into place, so that a failed install leaves nothing.
func InstallNPM(ctx context.Context, stateDir string, npm NPM, r Request) (*Locked, error) {
	if !npmName.MatchString(r.Package) {
		return nil, fmt.Errorf("%q is not an npm package name Switchboard installs (lower-case letters, digits, '-', '.', '_', '~', an optional @scope/)", r.Package)
	}
	if !exactVersion.MatchString(r.Version) {
		return nil, fmt.Errorf("%s's version %q is not one exact version (like 1.2.3): a locked install needs one", r.Package, r.Version)
	}
	if stateDir == "" || !filepath.IsAbs(stateDir) {
		return nil, fmt.Errorf("no state directory to install %s into (HOME or XDG_STATE_HOME unset?)", r.Package)
	}
	dir := Folder(stateDir, r.Package, r.Version)
	l := &Locked{Registry: r.Registry, Entry: r.Entry, EntryVersion: r.EntryVersion, Ecosystem: "npm",
		Package: r.Package, Version: r.Version, Dir: dir, InstalledAt: time.Now().UTC().Truncate(time.Second)}

	if kept, err := reuse(stateDir, dir, r.Package+"@"+r.Version, l); err != nil || kept {
		return l, err
	}

	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".*.tmp")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp) // gone after the rename; else what a failure left
	pj := `{"name": "switchboard-install", "private": true, "description": "Switchboard's install of one MCP server (servers.lock records it): do not change it"}` + "\n"
	if err := os.WriteFile(filepath.Join(tmp, "package.json"), []byte(pj), 0o600); err != nil {
		return nil, err
	}
	spec := r.Package + "@" + r.Version
	if r.Source != "" {
		spec = r.Source
	}
	if err := runTool(ctx, tmp, npm.Env, npm.Output, "npm install "+spec, npm.Path, Args(spec)...); err != nil {
		return nil, err
	}

	pkgDir := filepath.Join(tmp, "node_modules", filepath.FromSlash(r.Package))
	b, err := os.ReadFile(filepath.Join(pkgDir, "package.json"))
	if err != nil {
		return nil, fmt.Errorf("npm installed no %s: %w", r.Package, err)
	}
	var pkg packageJSON
	if err := json.Unmarshal(b, &pkg); err != nil {
		return nil, fmt.Errorf("%s's package.json: %w", r.Package, err)
	}
	if pkg.Name != r.Package || pkg.Version != r.Version {
		return nil, fmt.Errorf("npm installed %s@%s when asked for %s@%s: not used", pkg.Name, pkg.Version, r.Package, r.Version)
	}
	bin, err := pkg.entry()
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(filepath.Join(pkgDir, bin)); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s's bin entry %s is not a file of the package", r.Package, bin)
	}
	lines, err := Listing(tmp)
	if err != nil {
		return nil, err
	}
	for _, line := range lines {
		if strings.HasPrefix(line, "package ") {
			l.Packages++
		}
	}
	l.TreeIntegrity = Integrity(lines)
	l.Bin = filepath.Join(dir, "node_modules", filepath.FromSlash(r.Package), filepath.FromSlash(bin))
	if err := writeListing(dir, lines); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return nil, fmt.Errorf("moving the install into %s: %w", dir, err)
	}
	return l, nil
}

// packageJSON is what an install reads of a package's package.json.
type packageJSON struct {
	Name    string          `json:"name"`
	Version string          `json:"version"`
	Bin     json.RawMessage `json:"bin"`
}

// entry is the file `node` runs: the package's bin when it is one path,
// else the bin named like the package (without its scope), else the
// only one.
func (p *packageJSON) entry() (string, error) {
	clean := func(s string) (string, error) {
		c := path.Clean(strings.ReplaceAll(s, `\`, "/"))
		if c == "." || c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) {
			return "", fmt.Errorf("%s's bin %q is outside the package", p.Name, s)
		}
		return c, nil
	}
	var one string
	if err := json.Unmarshal(p.Bin, &one); err == nil && one != "" {
		return clean(one)
	}
	var bins map[string]string
	if err := json.Unmarshal(p.Bin, &bins); err != nil || len(bins) == 0 {
		return "", fmt.Errorf("%s has no bin in its package.json: there is no program to run (it may be a library, not a server)", p.Name)
	}
	_, base, _ := strings.Cut(p.Name, "/")
	if base == "" {
		base = p.Name
	}
	if f, ok := bins[base]; ok {
		return clean(f)
	}
	if f, ok := bins[p.Name]; ok {
		return clean(f)
	}
	if len(bins) == 1 {
		for _, f := range bins {
			return clean(f)
		}
	}
	names := make([]string, 0, len(bins))
	for n := range bins {
		names = append(names, n)
	}
	slices.Sort(names)
	return "", fmt.Errorf("%s has %d programs in its bin (%s) and none is named %s: Switchboard cannot tell which is the server", p.Name, len(bins), strings.Join(names, ", "), base)
}

// reuse takes the install at dir when a lock entry has it and it still
// matches (kept true: l gets its fields); an install no entry has is
// removed (installed again). A folder that differs from its lock is an
// error naming what changed.
func reuse(stateDir, dir, what string, l *Locked) (kept bool, err error) {
	if _, err := os.Stat(dir); err != nil {
		return false, nil
	}
	// Installed before, for another server or an earlier add: kept
	// when a lock entry has it and it still matches.
	lock, err := ReadLock(stateDir)
	if err != nil {
		return false, err
	}
	for _, name := range sortedNames(lock) {
		prev := lock.Servers[name]
		if filepath.Clean(prev.Dir) != filepath.Clean(dir) {
			continue
		}
		changes, err := Verify(prev, 5)
		if err != nil {
			return false, err
		}
		if changes != nil {
			return false, fmt.Errorf("%s is installed in %s already (for %s), and that tree differs from its lock: %s ('switchboard servers verify %s' names every change; remove the folder to install it again)",
				what, dir, name, strings.Join(changes, "; "), name)
		}
		l.Bin, l.Args, l.Packages, l.TreeIntegrity, l.InstalledAt = prev.Bin, prev.Args, prev.Packages, prev.TreeIntegrity, prev.InstalledAt
		return true, nil
	}
	// A folder no lock entry has (an install a crash interrupted
	// after the rename, or a server removed): installed again.
	if err := os.RemoveAll(dir); err != nil {
		return false, fmt.Errorf("removing the earlier install %s that no lock entry has: %w", dir, err)
	}
	return false, nil
}

func sortedNames(l *Lock) []string {
	names := make([]string, 0, len(l.Servers))
	for n := range l.Servers {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// ErrNoNPM says npm is not where servers' PATH would find it.
var ErrNoNPM = errors.New("npm is not in the PATH the host gives servers")

// runTool runs a package manager (npm, pip) in dir with env, its output
// copied to output (may be nil); a failure says what failed with the
// last 2000 bytes of what it printed.
func runTool(ctx context.Context, dir string, env []string, output io.Writer, what, argv0 string, args ...string) error {
	cmd := exec.CommandContext(ctx, argv0, args...)
	cmd.Dir = dir
	cmd.Env = env
	var tail bytes.Buffer
	out := io.Writer(&tail)
	if output != nil {
		out = io.MultiWriter(&tail, output)
	}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(tail.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		return fmt.Errorf("%s failed (%v): %s", what, err, msg)
	}
	return nil
}

// undoFolder is the undo of an install into dir: it removes the folder
// and its listing, unless the install was there before (another
// server's).
func undoFolder(dir string, existed bool) func() {
	return func() {
		if !existed {
			os.RemoveAll(dir)
			os.Remove(ListingPath(dir))
		}
	}
}
