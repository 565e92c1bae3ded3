package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/trust"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"golang.org/x/term"
)

var registryUpgradeRow = &command{name: "registry upgrade", args: "NAME",
	summary: "upgrade a server added from a registry after its diffs: server.json; for a locked install also the package tree and the tool definitions of a sandboxed dry start",
	flags: []flagDef{
		{name: "to", kind: stringFlag, arg: "VERSION", help: "the version to upgrade to (default: the index's latest)"},
		{name: "allow-new", kind: boolFlag, help: "accept a release younger than 3 days"},
		{name: "yes", kind: boolFlag, help: "switch without asking (needed when stdin is not a terminal)"},
		{name: "set", kind: multiFlag, arg: "KEY=VALUE", help: "a value for an environment variable the new version adds (a secret one goes to the keyring)"},
	},
	run: (*env).registryUpgrade}

var registryRollbackRow = &command{name: "registry rollback", args: "NAME",
	summary: "return a server upgraded with 'registry upgrade' to its previous install (still on disk) and lock record",
	run:     (*env).registryRollback}

// registryUpgrade is 'switchboard registry upgrade NAME' (docs/registry.md,
// "Upgrades and rollback").
func (e *env) registryUpgrade(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("registry upgrade takes one server NAME (as the config names it)")
	}
	local := a.pos[0]
	values := map[string]string{}
	for _, kv := range a.list("set") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("--set %q: write it as KEY=VALUE", kv)
		}
		values[k] = v
	}
	state := config.StateDir(e.getenv)
	lock, err := install.ReadLock(state)
	if err != nil {
		return err
	}
	cur := lock.Servers[local]
	if cur == nil {
		return fmt.Errorf("%s was not added from a registry (servers.lock has no record of it): nothing to upgrade", local)
	}
	if cur.Ecosystem == install.EcosystemBundle {
		return fmt.Errorf("%s runs an MCP bundle: 'switchboard bundles install NEWER.mcpb --name %s' upgrades it after its diffs", local, local)
	}
	if cur.Installed() && cur.Ecosystem != "npm" && cur.Ecosystem != "pypi" {
		return fmt.Errorf("%s is a locked %s install, which 'registry upgrade' does not upgrade yet: remove it and 'registry add' the new version", local, cur.Ecosystem)
	}
	en, _, err := e.findEntry(cur.Entry, cur.Registry)
	if err != nil {
		return err
	}
	if to := a.str("to"); to != "" {
		if en, err = e.entryVersion(en, to); err != nil {
			return err
		}
	}
	// The index's latest is older than what is installed (an --to
	// upgrade since, or a registry that went back): not a downgrade.
	if c, ok := registry.CompareVersions(en.Server.Version, cur.EntryVersion); ok && c < 0 && a.str("to") == "" {
		fmt.Fprintf(e.stdout, "%s is at %s, newer than the index's latest %s: nothing to upgrade (--to VERSION chooses one)\n", local, termtext.Escape(cur.EntryVersion), termtext.Escape(en.Server.Version))
		return nil
	}
	if en.Server.Version == cur.EntryVersion {
		fmt.Fprintf(e.stdout, "%s is at %s, the %s: nothing to upgrade\n", local, termtext.Escape(cur.EntryVersion),
			map[bool]string{true: "version asked for", false: "index's latest ('registry sync' refreshes the index)"}[a.str("to") != ""])
		return nil
	}
	t, err := time.Parse(time.RFC3339Nano, en.PublishedAt)
	if err != nil && !a.flag("allow-new") {
		return fmt.Errorf("%s %s has no publication time in its registry: it counts as younger than 3 days, which is not offered ('registry outdated' says the same); give --allow-new", en.Server.Name, en.Server.Version)
	}
	if err == nil && time.Since(t) < registry.MinReleaseAge && !a.flag("allow-new") {
		return fmt.Errorf("%s %s was published %s ago: a release younger than 3 days is not offered (most malicious releases are pulled within days); wait, or give --allow-new", en.Server.Name, en.Server.Version, registry.Age(time.Since(t)))
	}
	// The entry as it is, and the old server.json (the registry's
	// answer for the installed version: the network).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	if !cur.Installed() {
		return e.upgradeUnlocked(a, b, state, local, cur, en, values)
	}
	raw, entry, rest, err := lockedEntry(b, local, cur, "remove it and 'registry add' the new version")
	if err != nil {
		return err
	}
	var pkg *registry.Package
	for i := range en.Server.Packages {
		if p := &en.Server.Packages[i]; p.RegistryType == cur.Ecosystem && install.SamePackage(cur.Ecosystem, p.Identifier, cur.Package) {
			pkg = p
		}
	}
	if pkg == nil {
		return fmt.Errorf("%s %s has no %s package %s any more: remove %s and add the entry again", en.Server.Name, en.Server.Version, cur.Ecosystem, cur.Package, local)
	}

	fmt.Fprintf(e.stdout, "%s: %s %s -> %s (package %s %s -> %s)\n", local, termtext.Escape(en.Server.Name), termtext.Escape(cur.EntryVersion),
		termtext.Escape(en.Server.Version), termtext.Escape(cur.Package), termtext.Escape(cur.Version), termtext.Escape(pkg.Version))
	// (a) server.json.
	fmt.Fprintln(e.stdout, "server.json:")
	var newEnv []registry.KeyValue
	if old, err := e.entryVersion(en, cur.EntryVersion); err != nil {
		fmt.Fprintf(e.stdout, "  the installed version's server.json cannot be read (%v): not compared\n", err)
	} else {
		d := install.ServerDiff(&old.Server, &en.Server, cur.Ecosystem, pkg.Identifier)
		printList(e, d, "no change of its variables, arguments, remotes or transport")
		if o := findPackage(&old.Server, cur.Ecosystem, pkg.Identifier); o != nil {
			newEnv = addedEnv(o, pkg)
			if !slices.Equal(argNames(*o), argNames(*pkg)) {
				return fmt.Errorf("%s %s changes its arguments, which an upgrade does not carry over: remove %s and 'registry add' the new version", en.Server.Name, en.Server.Version, local)
			}
		}
	}
	// New variables: each needs a value (--set), a secret into the keyring.
	env := map[string]string{}
	if entry["env"] != nil {
		_ = json.Unmarshal(entry["env"], &env)
	}
	secrets, missing := newEnvValues(local, env, newEnv, values)
	if len(missing) > 0 {
		return fmt.Errorf("%s %s needs a value for what it adds: give %s (nothing was changed)", en.Server.Name, en.Server.Version, strings.Join(missing, " "))
	}

	// (b) the package tree, installed beside the old one.
	next, err := e.installBeside(ctx, state, local, cur, en, pkg)
	if err != nil {
		return err
	}
	tc, err := install.DiffTrees(cur.Dir, next.Dir)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "package tree (%d packages, %s -> %s):\n", next.Packages, sizeWords(tc.SizeWas), sizeWords(tc.SizeNow))
	printList(e, tc.Packages, "the same packages at the same versions")
	for _, p := range tc.InstallScripts {
		what := "has an install script (it did not run: scripts are off)"
		if slices.Contains(tc.NewScripts, p) {
			what = "NEW install script (it did not run: scripts are off)"
		}
		fmt.Fprintf(e.stdout, "  %s: %s\n", termtext.Escape(p), what)
	}

	// (c) the tools of a sandboxed dry start of the new version.
	dry := maps.Clone(entry)
	newArgv := setRun(dry, next, rest)
	if len(env) > 0 {
		dry["env"], _ = json.Marshal(env)
	}
	dryRaw, _ := json.Marshal(dry)
	s, err := config.ParseServer(local, dryRaw)
	if err != nil {
		return err
	}
	var tools []install.FirstTool
	{
		mt, err := e.startOnce(ctx, s, local, newSecrets{secrets, e.store()})
		if err != nil {
			return fmt.Errorf("the dry start of %s %s failed: %w (nothing was changed; the new install stays in %s)", cur.Package, pkg.Version, err, next.Dir)
		}
		if tools, err = install.FirstTools(mt); err != nil {
			return err
		}
		e.printToolDiff(cur.Tools, tools, pinnedDescriptions(pinsPath(e.getenv), local))
	}

	if err := e.confirmSwitch(a, local, pkg.Version, " (the new install stays in "+next.Dir+")"); err != nil {
		return err
	}
	prev := *cur
	prev.Previous = nil
	next.Tools = map[string]string{}
	for _, t := range tools {
		next.Tools[t.Name] = t.Hash
	}
	if len(tools) > 0 {
		next.ToolsAt = time.Now().UTC().Truncate(time.Second)
	}
	if err := e.switchEntry(b, state, local, raw, dryRaw, secrets, next, &prev); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "switched %s to %s %s (runs %s); 'switchboard registry rollback %s' returns to %s\n", local, termtext.Escape(cur.Package), termtext.Escape(pkg.Version),
		termtext.Escape(install.ArgvLine(newArgv)), local, termtext.Escape(cur.Version))
	fmt.Fprintf(e.stdout, "its new and changed tools are held for review when the host lists them ('switchboard tools review %s')\n", local)
	return nil
}

// confirmSwitch asks whether to switch local to version, unless --yes;
// stays is said when nothing is switched.
func (e *env) confirmSwitch(a *argv, local, version, stays string) error {
	if a.flag("yes") {
		return nil
	}
	f, ok := e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return fmt.Errorf("nothing was switched: stdin is not a terminal to ask on; read the diffs above and give --yes to switch%s", stays)
	}
	fmt.Fprintf(e.stdout, "switch %s to %s? [y/N] ", local, termtext.Escape(version))
	line, _ := bufio.NewReader(f).ReadString('\n')
	if ans := strings.ToLower(strings.TrimSpace(line)); ans != "y" && ans != "yes" {
		return fmt.Errorf("nothing was switched")
	}
	return nil
}

// registryRollback is 'switchboard registry rollback NAME'.
func (e *env) registryRollback(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("registry rollback takes one server NAME")
	}
	local := a.pos[0]
	state := config.StateDir(e.getenv)
	lock, err := install.ReadLock(state)
	if err != nil {
		return err
	}
	cur := lock.Servers[local]
	if cur == nil || cur.Previous == nil {
		return fmt.Errorf("%s has no previous install to return to (servers.lock records one after 'registry upgrade')", local)
	}
	prev := cur.Previous
	if cur.Ecosystem == install.EcosystemBundle {
		return fmt.Errorf("%s runs an MCP bundle: 'switchboard bundles rollback %s' returns to its other version", local, local)
	}
	if !cur.Installed() {
		return e.rollbackUnlocked(state, local, cur, prev)
	}
	if changes, err := install.Verify(prev, 5); err != nil || changes != nil {
		return fmt.Errorf("the previous install %s is not as locked (%v%s): not returned to", prev.Dir, err, strings.Join(changes, "; "))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	raw, entry, rest, err := lockedEntry(b, local, cur, "not rolled back")
	if err != nil {
		return err
	}
	argv := setRun(entry, prev, rest)
	back, _ := json.Marshal(entry)
	if err := b.put(local, back, false); err != nil {
		return err
	}
	if err := install.UpdateLock(state, func(l *install.Lock) { l.Servers[local] = prev }); err != nil {
		if rerr := b.put(local, raw, false); rerr != nil {
			return errors.Join(err, rerr)
		}
		return fmt.Errorf("servers.lock could not be written (%w): the entry was put back", err)
	}
	fmt.Fprintf(e.stdout, "rolled %s back to %s %s (runs %s); the install of %s stays in %s\n", local, termtext.Escape(prev.Package), termtext.Escape(prev.Version),
		termtext.Escape(install.ArgvLine(argv)), termtext.Escape(cur.Version), termtext.Escape(cur.Dir))
	return nil
}

func argNames(p registry.Package) []string {
	var s []string
	for _, a := range slices.Concat(p.RuntimeArguments, p.PackageArguments) {
		s = append(s, a.Type+" "+a.Name+" "+a.ValueHint)
	}
	return s
}

// newSecrets answers the secrets an upgrade adds from memory (they are
// stored only at the switch), the others from the keyring.
type newSecrets struct {
	m    map[string]string
	next engine.SecretResolver
}

func (r newSecrets) Resolve(ctx context.Context, name string) ([]byte, error) {
	if v, ok := r.m[name]; ok {
		return []byte(v), nil
	}
	return r.next.Resolve(ctx, name)
}

func printList(e *env, lines []string, none string) {
	if len(lines) == 0 {
		fmt.Fprintf(e.stdout, "  %s\n", none)
	}
	for _, l := range lines {
		fmt.Fprintf(e.stdout, "  %s\n", termtext.Escape(l))
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

func sizeWords(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// pinnedDescriptions are the pinned descriptions of server's tools in
// the pin file (read only), by tool name.
func pinnedDescriptions(path, server string) map[string]string {
	out := map[string]string{}
	if path == "" {
		return out
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return out
	}
	var f struct {
		Servers map[string]struct {
			Tools map[string]trust.Pin `json:"tools"`
		} `json:"servers"`
	}
	if json.Unmarshal(b, &f) != nil {
		return out
	}
	for name, p := range f.Servers[server].Tools {
		if p.Pinned != nil {
			var d struct{ Description string }
			if json.Unmarshal(p.Pinned.JSON, &d) == nil {
				out[name] = d.Description
			}
		}
	}
	return out
}

// lockedEntry reads local's config entry, which must still run cur's
// locked install (npm: node with cur.Bin first; pypi: cur.Bin with
// cur.Args first): the raw entry, its keys and the package's own
// arguments that follow; otherwise an error ending with what follows.
func lockedEntry(b backend, local string, cur *install.Locked, otherwise string) (json.RawMessage, map[string]json.RawMessage, []string, error) {
	raw, err := b.get(local)
	if err != nil {
		return nil, nil, nil, err
	}
	var entry map[string]json.RawMessage
	var command string
	var args []string
	if json.Unmarshal(raw, &entry) == nil && json.Unmarshal(entry["args"], &args) == nil && json.Unmarshal(entry["command"], &command) == nil {
		switch {
		case cur.Ecosystem == "pypi" && command == cur.Bin && len(args) >= len(cur.Args) && slices.Equal(args[:len(cur.Args)], cur.Args):
			return raw, entry, args[len(cur.Args):], nil
		case cur.Ecosystem != "pypi" && len(args) > 0 && args[0] == cur.Bin:
			return raw, entry, args[1:], nil
		}
	}
	return nil, nil, nil, fmt.Errorf("%s's config entry does not run its locked install %s (it was changed since): %s", local, cur.Bin, otherwise)
}

// setRun makes entry run l's install with the package's own arguments
// rest, and returns the argv.
func setRun(entry map[string]json.RawMessage, l *install.Locked, rest []string) []string {
	argv := append([]string{"node", l.Bin}, rest...)
	if l.Ecosystem == "pypi" {
		argv = slices.Concat([]string{l.Bin}, l.Args, rest)
	}
	entry["command"], _ = json.Marshal(argv[0])
	entry["args"], _ = json.Marshal(argv[1:])
	return argv
}

// installBeside installs pkg, the new version of cur's package, beside
// the installed one, as 'registry add' installs it.
func (e *env) installBeside(ctx context.Context, state, local string, cur *install.Locked, en *registry.Entry, pkg *registry.Package) (*install.Locked, error) {
	req := install.Request{Server: local, Registry: cur.Registry, Entry: en.Server.Name, EntryVersion: en.Server.Version, Package: pkg.Identifier, Version: pkg.Version}
	if cur.Ecosystem == "pypi" {
		py, err := e.serversLookPath()("python3")
		if err != nil {
			return nil, fmt.Errorf("%w: an upgrade installs the new version in a venv of its own", install.ErrNoPython)
		}
		fmt.Fprintf(e.stderr, "installing %s==%s beside the installed version (a Python venv, every file hash-checked, wheels only)…\n", termtext.Escape(pkg.Identifier), termtext.Escape(pkg.Version))
		return install.InstallPyPI(ctx, state, install.Python{Path: py, Env: append(os.Environ(), "PATH="+e.getenv("PATH"))}, req)
	}
	npmPath, err := e.serversLookPath()("npm")
	if err != nil {
		return nil, fmt.Errorf("%w: an upgrade installs the new version with npm", install.ErrNoNPM)
	}
	environ := append(os.Environ(), "PATH="+filepath.Dir(npmPath)+string(os.PathListSeparator)+e.getenv("PATH"))
	fmt.Fprintf(e.stderr, "installing %s@%s beside the installed version (npm, install scripts off)…\n", termtext.Escape(pkg.Identifier), termtext.Escape(pkg.Version))
	return install.InstallNPM(ctx, state, install.NPM{Path: npmPath, Env: environ}, req)
}

// printToolDiff prints the tools of a dry start against the hashes the
// lock recorded: added (with their annotations), changed (with the
// pinned description beside the new one, when olds has it), removed.
func (e *env) printToolDiff(locked map[string]string, tools []install.FirstTool, olds map[string]string) {
	fmt.Fprintf(e.stdout, "tools (a dry start under its sandbox):\n")
	td := install.DiffTools(locked, tools)
	for _, t := range tools {
		switch {
		case slices.Contains(td.Added, t.Name):
			fmt.Fprintf(e.stdout, "  + %s: added [%s] %s\n", termtext.Escape(t.Name), strings.Join(t.Hints, ", "), termtext.Escape(firstLine(t.Description)))
		case slices.Contains(td.Changed, t.Name):
			fmt.Fprintf(e.stdout, "  ~ %s: changed\n", termtext.Escape(t.Name))
			if old, ok := olds[t.Name]; ok && old != t.Description {
				fmt.Fprintf(e.stdout, "      was: %s\n      now: %s\n", termtext.Escape(old), termtext.Escape(t.Description))
			}
		}
	}
	for _, n := range td.Removed {
		fmt.Fprintf(e.stdout, "  - %s: removed\n", termtext.Escape(n))
	}
	if len(locked) == 0 {
		fmt.Fprintf(e.stdout, "  (the lock has no tools of the first start: every tool counts as added)\n")
	} else if len(td.Added)+len(td.Removed)+len(td.Changed) == 0 {
		fmt.Fprintf(e.stdout, "  the same %d tool definitions\n", len(tools))
	}
}
