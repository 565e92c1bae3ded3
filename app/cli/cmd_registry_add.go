package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostrun"
	"github.com/switchboard-mcp/switchboard/app/trust"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/internal/english"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	sbx "github.com/switchboard-mcp/switchboard/engine/sandbox"
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
		{name: "no-start", kind: boolFlag, help: "skip the first start (the server started once under its sandbox: its tools listed, their hashes locked, their pins taken)"},
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
	values := map[string]string{}
	var pkg, remote int
	for _, kv := range a.list("set") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usagef("--set %q: write it as KEY=VALUE", kv)
		}
		if _, dup := values[k]; dup {
			return usagef("--set %s is given twice", k)
		}
		values[k] = v
	}
	for _, f := range []struct {
		flag string
		to   *int
	}{{"package", &pkg}, {"remote", &remote}} {
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
	if local := a.str("name"); local != "" && !config.ValidServerName(local) {
		return usagef("--name %q: use 1 to 31 lower-case letters, digits or '-', starting with a letter or digit", local)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	state := config.StateDir(e.getenv)
	added, err := install.Add(ctx, addTarget{b}, install.AddRequest{Entry: en, Local: a.str("name"),
		Values: values, Package: pkg, Remote: remote, Unlocked: a.flag("unlocked"),
		StateDir: state, LookPath: e.serversLookPath(),
		NPMEnv: append(os.Environ(), "PATH="+e.getenv("PATH")), Progress: e.stderr,
		Sandbox: runtime.GOOS == "linux" && sbx.Probe().Available()})
	if err != nil {
		return err
	}
	local, st, lk := added.Local, added.Setup, added.Locked
	if added.LockErr != nil {
		fmt.Fprintf(e.stderr, "switchboard: %s was added, but its lock could not be written: %v ('switchboard servers verify %s' cannot check it; remove it and add it again)\n", local, added.LockErr, local)
	}
	fmt.Fprintf(e.stdout, "added %s: %s %s, %s\n", local, termtext.Escape(en.Server.Name), termtext.Escape(en.Server.Version), termtext.Escape(st.Chosen))
	switch {
	case lk.Bundle != nil:
		fmt.Fprintf(e.stdout, "  runs:   %s\n", termtext.Escape(install.ArgvLine(added.Argv)))
		fmt.Fprintf(e.stdout, "  bundle: %s (SHA-256 %s, as its entry's fileSha256; tree %s in %s)\n", termtext.Escape(lk.Dir), lk.Bundle.SHA256, lk.TreeIntegrity, install.LockPath(state))
	case lk.Dir != "":
		fmt.Fprintf(e.stdout, "  runs:   %s\n", termtext.Escape(install.ArgvLine(added.Argv)))
		how, at := "install scripts off", "@"
		if lk.Ecosystem == "pypi" {
			how, at = "wheels only, every file checked against its SHA-256", "=="
		}
		fmt.Fprintf(e.stdout, "  locked: %s%s%s and %d package(s) in %s, %s; tree %s in %s\n",
			termtext.Escape(lk.Package), at, termtext.Escape(lk.Version), lk.Packages-1, termtext.Escape(lk.Dir), how, lk.TreeIntegrity, install.LockPath(state))
	case lk.Image != "":
		fmt.Fprintf(e.stdout, "  runs:   %s\n", termtext.Escape(install.ArgvLine(added.Argv)))
		fmt.Fprintf(e.stdout, "  pinned: image digest %s (Docker checks the image it pulls against it)\n", termtext.Escape(lk.Image))
	case st.Package != nil:
		fmt.Fprintf(e.stdout, "  runs:   %s\n", termtext.Escape(install.ArgvLine(added.Argv)))
		fmt.Fprintf(e.stdout, "  pinned: %s\n", termtext.Escape(st.Package.Pin))
	default:
		fmt.Fprintf(e.stdout, "  url:    %s\n", termtext.Escape(st.URL))
	}
	e.printAddedSandbox(added)
	for _, w := range added.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", termtext.Escape(w))
	}
	for _, n := range added.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", termtext.Escape(n))
	}
	switch {
	case a.flag("no-start"):
		fmt.Fprintf(e.stdout, "not started (--no-start): its tools are pinned when it first lists them to a host\n")
		return nil
	case !lk.Installed():
		// npx, uvx, docker, dnx or a remote: what runs is fetched at its
		// start (a sandboxed npx needs the host's warm-up), so the
		// first start is the host's.
		fmt.Fprintf(e.stdout, "not started now (not a locked install): its tools are pinned when a host first lists them\n")
		return nil
	}
	return e.firstStart(ctx, b, added, state)
}

// firstStart is the first start of a server just added (docs/registry.md,
// "First start"): started once under its sandbox — by the running host
// (whose gateway pins its tools as it first sees them), else in this
// process as the host would start it (and its pins taken here) — its
// tools shown with their annotations, and their hashes recorded in
// servers.lock.
func (e *env) firstStart(ctx context.Context, b backend, added *install.Added, state string) error {
	local := added.Local
	var tools []*mcp.Tool
	var err error
	if hb, ok := b.(*hostBackend); ok {
		tools, err = install.StartInHost(ctx, connStarter{hb.c}, local, 2*time.Minute)
	} else {
		tools, err = e.onceFirstStart(ctx, local, added.Raw)
	}
	if err != nil {
		return fmt.Errorf("%s was added, but its first start failed: %w ('switchboard servers set %s --sandbox ...' widens its sandbox; 'registry add --no-start' skips this)", local, err, local)
	}
	ft, err := install.FirstTools(tools)
	if err != nil {
		return err
	}
	where := "no sandbox"
	if added.Sandbox != nil {
		where = "sandbox " + install.SandboxLine(added.Sandbox)
	}
	fmt.Fprintf(e.stdout, "first start (%s): %s\n", termtext.Escape(where), english.Plural(len(ft), "tool"))
	for _, t := range ft {
		hints := "no annotations"
		if len(t.Hints) > 0 {
			hints = strings.Join(t.Hints, ", ")
		}
		desc, _, _ := strings.Cut(strings.TrimSpace(t.Description), "\n")
		fmt.Fprintf(e.stdout, "  %-28s [%s] %s\n", termtext.Escape(t.Name), hints, termtext.Escape(desc))
	}
	if err := install.RecordTools(state, local, ft, time.Now()); err != nil {
		fmt.Fprintf(e.stderr, "switchboard: the tools' hashes could not be written to servers.lock: %v\n", err)
	} else {
		fmt.Fprintf(e.stdout, "  their definitions' hashes are in %s; they are pinned: a later change is held for review\n", install.LockPath(state))
	}
	return nil
}

// connStarter is install.Starter over the host's API.
type connStarter struct{ c *client.Conn }

func (s connStarter) Start(ctx context.Context, name string) error { return s.c.Start(ctx, name) }
func (s connStarter) Tools(ctx context.Context, name string) ([]*mcp.Tool, error) {
	return s.c.Tools(ctx, name)
}
func (s connStarter) Status(ctx context.Context, name string) (hostapi.ServerStatus, error) {
	list, err := s.c.Servers(ctx)
	for _, st := range list {
		if st.Name == name {
			return st, nil
		}
	}
	if err == nil {
		err = fmt.Errorf("the host has no server %s", name)
	}
	return hostapi.ServerStatus{}, err
}

// onceFirstStart starts local in this process, as a host would, and
// takes its pins in the host's pin file (no host runs to take them).
func (e *env) onceFirstStart(ctx context.Context, local string, raw json.RawMessage) ([]*mcp.Tool, error) {
	s, err := config.ParseServer(local, raw)
	if err != nil {
		return nil, err
	}
	tools, err := e.startOnce(ctx, s, local, e.store())
	if err != nil {
		return nil, err
	}
	if pp := pinsPath(e.getenv); pp != "" {
		store, err := trust.Open(pp)
		if err == nil {
			_, err = store.Observe(local, trust.Mode(s.Trust), tools)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "switchboard: the tools of %s could not be pinned in %s: %v (the host pins them when it first lists them)\n", local, pp, err)
		}
	}
	return tools, nil
}

// addTarget is install.Target over the CLI's backend (the host's API,
// or the file and the keyring).
type addTarget struct{ b backend }

func (t addTarget) Get(name string) (json.RawMessage, error) { return t.b.get(name) }
func (t addTarget) Create(name string, entry json.RawMessage) error {
	return t.b.put(name, entry, true)
}
func (t addTarget) ListSecrets() ([]hostapi.SecretInfo, error) { return t.b.listSecrets() }
func (t addTarget) DeleteSecret(name string) error             { return t.b.deleteSecret(name) }
func (t addTarget) SetSecret(name, value string) error {
	_, err := t.b.setSecret(name, value)
	return err
}

// startOnce starts s once in this process as the host would (the PATH
// the host gives servers, secrets from secrets) and returns its tools.
func (e *env) startOnce(ctx context.Context, s *config.Server, local string, secrets engine.SecretResolver) ([]*mcp.Tool, error) {
	path, _ := hostrun.LoginPath(ctx, 5*time.Second)
	if path == "" {
		path = e.getenv("PATH")
	}
	return hostrun.StartOnce(ctx, s, local, hostrun.OnceOptions{Path: path, Secrets: secrets, Version: Version})
}
