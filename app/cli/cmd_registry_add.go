package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/textproto"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

var registryAddRow = &command{name: "registry add", args: "NAME[@VERSION]",
	summary: "add a registry entry to the config as a server: its exact argv (or URL), inputs from --set, secrets into the keyring",
	flags: []flagDef{
		{name: "name", kind: stringFlag, arg: "LOCAL", help: "the server's name in the config (default: the entry's name after its namespace)"},
		{name: "set", kind: multiFlag, arg: "KEY=VALUE", help: "an input's value: an environment variable, header, URL variable or argument as 'registry show' lists it (a secret one goes to the keyring)"},
		{name: "registry", kind: stringFlag, arg: "R", help: "only the registry R's entry (a name in two registries)"},
		{name: "package", kind: stringFlag, arg: "N", help: "run the entry's package N (as 'registry show' numbers them; default: the first Switchboard can run)"},
		{name: "remote", kind: stringFlag, arg: "N", help: "use the entry's remote N instead of a package"},
		{name: "unlocked", kind: boolFlag, help: "an npm package: run it with 'npx -y PACKAGE@VERSION' (resolved at each start) instead of installing it locked"},
	},
	run: (*env).registryAdd}

// findEntry is the one entry of the indexes and the catalog that name
// (a full name, or the part after the namespace) names, in the registry
// only when it is not "".
func (e *env) findEntry(name, only string) (*registry.Entry, []*registry.Index, error) {
	ixs, err := e.registryIndexes()
	if err != nil {
		return nil, nil, err
	}
	all := registryEntries(ixs)
	if only != "" {
		kept := all[:0]
		for _, en := range all {
			if en.Registry == only {
				kept = append(kept, en)
			}
		}
		all = kept
	}
	found := registry.Find(all, name)
	switch {
	case len(found) == 0:
		return nil, nil, fmt.Errorf("no server named %q in the registries' indexes: 'switchboard registry search WORDS' finds names (and 'registry sync' refreshes the indexes)", name)
	case len(found) > 1:
		var names []string
		for _, f := range found {
			names = append(names, f.Registry+": "+f.Server.Name)
		}
		return nil, nil, fmt.Errorf("%q names %d servers: give the whole name, or --registry R (%s)", name, len(found), termtext.Escape(strings.Join(names, "; ")))
	}
	return found[0], ixs, nil
}

// entryVersion is the entry at version: the index's when it is its
// latest, else the registry's answer for that version (the network).
func (e *env) entryVersion(en *registry.Entry, version string) (*registry.Entry, error) {
	if version == "" || version == en.Server.Version {
		return en, nil
	}
	if en.Registry == registry.CatalogRegistry {
		return nil, fmt.Errorf("%s is a template of the built-in catalog, at version %s only: add it without @%s", en.Server.Name, en.Server.Version, version)
	}
	regs, _, err := e.registryState()
	if err != nil {
		return nil, err
	}
	var u string
	for _, r := range regs {
		if r.Name == en.Registry {
			u = r.URL
		}
	}
	c, err := registry.NewClient(u)
	if err != nil {
		return nil, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(e.stderr, "%s: reading %s version %s from %s…\n", en.Registry, en.Server.Name, version, u)
	r, err := c.Get(ctx, en.Server.Name, version)
	if err != nil {
		return nil, fmt.Errorf("version %s of %s is not in the local index (which has %s), and the registry %s could not give it: %w (add the indexed version without @%s, or try again online)",
			version, en.Server.Name, en.Server.Version, en.Registry, err, version)
	}
	if r.Server.Name != en.Server.Name || r.Server.Version != version {
		return nil, fmt.Errorf("the registry %s answered %s version %s when asked for %s version %s: not added", en.Registry, r.Server.Name, r.Server.Version, en.Server.Name, version)
	}
	m := r.Official()
	if m.Status == registry.StatusDeleted {
		return nil, fmt.Errorf("the registry %s marks version %s of %s deleted (%s): not added", en.Registry, version, en.Server.Name, m.StatusMessage)
	}
	return &registry.Entry{Server: r.Server, Registry: en.Registry, Status: m.Status, StatusMessage: m.StatusMessage, PublishedAt: m.PublishedAt, UpdatedAt: m.UpdatedAt}, nil
}

// registryAdd is 'switchboard registry add NAME[@VERSION]': the entry's
// package (or remote), with the values given, becomes a config entry by
// the path of 'servers add' (the host's API, or the file under its lock),
// its secret values stored in the keyring first.
func (e *env) registryAdd(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("registry add takes one server NAME[@VERSION] (as 'registry search' lists it)")
	}
	name, version, _ := strings.Cut(a.pos[0], "@")
	if name == "" {
		return usagef("registry add %q: give NAME[@VERSION]", a.pos[0])
	}
	o := registry.SetupOptions{Values: map[string]string{}}
	for _, kv := range a.list("set") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("--set %q: write it as KEY=VALUE", kv)
		}
		if _, dup := o.Values[k]; dup {
			return usagef("--set %s is given twice", k)
		}
		o.Values[k] = v
	}
	for _, f := range []struct {
		flag string
		to   *int
	}{{"package", &o.Package}, {"remote", &o.Remote}} {
		if s := a.str(f.flag); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				return usagef("--%s %q: give a number, 1 or more ('registry show' numbers them)", f.flag, s)
			}
			*f.to = n
		}
	}
	en, _, err := e.findEntry(name, a.str("registry"))
	if err != nil {
		return err
	}
	if en, err = e.entryVersion(en, version); err != nil {
		return err
	}
	local := a.str("name")
	if local == "" {
		_, short := registry.SplitName(en.Server.Name)
		local = config.NormalizeName(short)
	} else if !config.ValidServerName(local) {
		return usagef("--name %q: use 1 to 31 lower-case letters, digits or '-', starting with a letter or digit", local)
	}
	secretName := func(key string) string { return config.SuggestSecretName(local, key) }
	o.Literal = func(v string) string { return strings.ReplaceAll(v, "${", "$${") } // a literal value, never a reference
	o.SecretRef = func(key string) string { return config.KeyringRef(secretName(key)) }
	lookPath := e.serversLookPath()
	st, err := registry.MakeSetup(&en.Server, lookPath, o)
	if err != nil {
		return fmt.Errorf("registry add %s: %w", en.Server.Name, err)
	}
	// An npm package is installed locked (docs/registry.md, "Locked
	// installs") unless --unlocked: checked here, installed once the
	// name is known to be free.
	var npmPath string
	locked := st.Package != nil && st.Package.RegistryType == "npm" && !a.flag("unlocked")
	if locked {
		if len(st.Package.RuntimeArgs) > 0 {
			return fmt.Errorf("registry add %s: its package gives npx the arguments %s, which a locked install (run with node) cannot pass: add it with --unlocked to run it with npx",
				en.Server.Name, termtext.Escape(argvLine(st.Package.RuntimeArgs)))
		}
		if npmPath, err = lookPath("npm"); err != nil {
			return fmt.Errorf("registry add %s: %w: a locked install needs npm (Node.js: %s), or add it with --unlocked to run it with 'npx -y' (which needs Node.js too, and resolves the package's dependencies at each start)",
				en.Server.Name, install.ErrNoNPM, st.Package.RuntimeURL)
		}
	}

	entry := map[string]any{}
	if st.Package != nil {
		entry["command"], entry["args"] = st.Command, st.Args
		if len(st.Env) > 0 {
			entry["env"] = st.Env
		}
	} else {
		entry["url"] = st.URL
		entry["type"] = map[string]string{"streamable-http": config.RemoteHTTP, "sse": config.RemoteSSE}[st.Type]
		if len(st.Headers) > 0 {
			headers := map[string]string{}
			for k, v := range st.Headers {
				headers[textproto.CanonicalMIMEHeaderKey(k)] = v // as 'servers add --header' writes them
			}
			entry["headers"] = headers
		}
	}
	ctx := context.Background()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	if _, err := b.get(local); err == nil {
		return fmt.Errorf("a server named %q is in the config already: give another name with --name LOCAL (or remove it first: 'switchboard servers remove %s')", local, local)
	}
	var lk *install.Locked
	undoInstall := func() {}
	if locked {
		if lk, undoInstall, err = e.installNPM(npmPath, local, en, st); err != nil {
			return fmt.Errorf("registry add %s: %w (nothing was added)", en.Server.Name, err)
		}
		entry["command"], entry["args"] = "node", append([]string{lk.Bin}, st.Package.PackageArgs...)
	}
	raw, err := json.Marshal(entry)
	if err != nil {
		undoInstall()
		return err
	}
	// The secrets first (the entry refers to them), each under the
	// entry's name; if the entry is refused, those that were new are
	// removed again. A secret of that name that another server uses is
	// never replaced.
	had := map[string]bool{}
	if len(st.Secrets) > 0 {
		list, err := b.listSecrets()
		if err != nil {
			return fmt.Errorf("reading the keyring's secrets: %w (nothing was added)", err)
		}
		for _, si := range list {
			had[si.Name] = true
			for _, key := range slices.Sorted(maps.Keys(st.Secrets)) {
				if secretName(key) == si.Name && len(si.UsedBy) > 0 {
					return fmt.Errorf("the keyring's secret %q, where %s would go, is used by %s: give another name with --name LOCAL (nothing was added)", si.Name, key, strings.Join(si.UsedBy, ", "))
				}
			}
		}
	}
	var stored []string
	for _, key := range slices.Sorted(maps.Keys(st.Secrets)) {
		s := secretName(key)
		if _, err := b.setSecret(s, st.Secrets[key]); err != nil {
			e.forgetSecrets(b, stored)
			undoInstall()
			return fmt.Errorf("storing %s in the keyring as %q: %w (nothing was added)", key, s, err)
		}
		if !had[s] {
			stored = append(stored, s)
		}
	}
	if err := b.put(local, raw, true); err != nil {
		e.forgetSecrets(b, stored)
		undoInstall()
		return err
	}
	if lk != nil {
		if err := install.UpdateLock(config.StateDir(e.getenv), func(l *install.Lock) { l.Servers[local] = lk }); err != nil {
			fmt.Fprintf(e.stderr, "switchboard: %s was added, but its lock could not be written: %v ('switchboard servers verify %s' cannot check it; remove it and add it again)\n", local, err, local)
		}
	}
	fmt.Fprintf(e.stdout, "added %s: %s %s, %s\n", local, termtext.Escape(en.Server.Name), termtext.Escape(en.Server.Version), termtext.Escape(st.Chosen))
	switch {
	case lk != nil:
		fmt.Fprintf(e.stdout, "  runs:   %s\n", termtext.Escape(argvLine(append([]string{"node"}, entry["args"].([]string)...))))
		fmt.Fprintf(e.stdout, "  locked: %s@%s and %d package(s) in %s, install scripts off; tree %s in %s\n",
			termtext.Escape(lk.Package), termtext.Escape(lk.Version), lk.Packages-1, termtext.Escape(lk.Dir), lk.TreeIntegrity, install.LockPath(config.StateDir(e.getenv)))
	case st.Package != nil:
		fmt.Fprintf(e.stdout, "  runs:   %s\n", termtext.Escape(argvLine(append([]string{st.Command}, st.Args...))))
		fmt.Fprintf(e.stdout, "  pinned: %s\n", termtext.Escape(st.Package.Pin))
	default:
		fmt.Fprintf(e.stdout, "  url:    %s\n", termtext.Escape(st.URL))
	}
	for _, key := range slices.Sorted(maps.Keys(st.Secrets)) {
		s, what := secretName(key), "stored"
		if had[s] {
			what = "replaced (no server used it)"
		}
		fmt.Fprintf(e.stdout, "  secret %s %s in the keyring (the config refers to it)\n", s, what)
	}
	if en.Deprecated() {
		fmt.Fprintf(e.stdout, "warning: its registry marks it deprecated: %s\n", termtext.Escape(en.StatusMessage))
	}
	if _, err := lookPath("node"); lk != nil && err != nil {
		fmt.Fprintf(e.stdout, "warning: node (Node.js) is not in the PATH the host gives servers: the server will not start until it is ('switchboard doctor' shows that PATH)\n")
	}
	if p := st.Package; p != nil && !p.RuntimeFound && lk == nil {
		fmt.Fprintf(e.stdout, "warning: %s (%s) is not in the PATH the host gives servers: install it from %s; the server will not start until then ('switchboard doctor' shows that PATH)\n",
			st.Command, p.Runtime, p.RuntimeURL)
	}
	if s, err := config.ParseServer(local, raw); err == nil {
		for _, n := range s.Notes(local) {
			fmt.Fprintf(e.stdout, "note: %s: %s\n", n.Path(), termtext.Escape(n.Message))
		}
	}
	return nil
}

// installNPM installs the npm package of st locked into the state
// directory and returns its lock entry, and an undo that removes the
// install again when it was made now (not one another server had).
func (e *env) installNPM(npmPath, local string, en *registry.Entry, st *registry.Setup) (*install.Locked, func(), error) {
	state := config.StateDir(e.getenv)
	p := st.Package
	dir := install.Folder(state, p.Identifier, p.Version)
	_, statErr := os.Stat(dir)
	existed := statErr == nil
	fmt.Fprintf(e.stderr, "installing %s@%s into %s (npm, install scripts off)…\n", termtext.Escape(p.Identifier), termtext.Escape(p.Version), termtext.Escape(dir))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	environ := os.Environ()
	if path := filepath.Dir(npmPath); path != "" {
		// npm's own "#!/usr/bin/env node" finds the node beside it first.
		environ = append(environ, "PATH="+path+string(os.PathListSeparator)+e.getenv("PATH"))
	}
	lk, err := install.InstallNPM(ctx, state, install.NPM{Path: npmPath, Env: environ},
		install.Request{Server: local, Registry: en.Registry, Entry: en.Server.Name, EntryVersion: en.Server.Version, Package: p.Identifier, Version: p.Version})
	if err != nil {
		return nil, nil, err
	}
	undo := func() {
		if !existed {
			os.RemoveAll(dir)
			os.Remove(install.ListingPath(dir))
		}
	}
	return lk, undo, nil
}

// forgetSecrets removes the secrets stored for an entry that was not
// added (a failure to remove one is said, not fatal).
func (e *env) forgetSecrets(b backend, names []string) {
	for _, s := range names {
		if err := b.deleteSecret(s); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(e.stderr, "switchboard: the secret %s stored for it could not be removed (%v): 'switchboard secret rm %s'\n", s, err, s)
		}
	}
}
