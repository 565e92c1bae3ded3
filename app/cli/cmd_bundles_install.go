package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	sbx "github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
	"golang.org/x/term"
)

var bundlesInstallRows = []*command{
	{name: "bundles install", args: "FILE",
		summary: "install a bundle as a server shared with every AI app (or upgrade the server of the same bundle, after its diffs)",
		help: `install checks FILE as 'bundles check' does (an invalid signature is
refused unless --insist), unpacks it into Switchboard's store (one folder
per bundle, version and SHA-256), and adds a server that runs it: its
user_config values from --set, a sensitive one stored in the keyring
(asked for on a terminal when it is required and not given; it is never
written to a file), its directory and file values granted to its
sandbox. The server is then started once and its tools pinned.

When the config has a server of this bundle under that name (a newer
version, or another build), install is an upgrade: it shows what changes
in the manifest and in the tools of a dry start, asks (or --yes), and
keeps the previous version for 'bundles rollback'. Values given before
are carried over.
`,
		flags: []flagDef{
			{name: "name", kind: stringFlag, arg: "LOCAL", help: "the server's name in the config (default: the bundle's name)"},
			{name: "set", kind: multiFlag, arg: "KEY=VALUE", help: "a user_config value (repeat a multiple option's key for each value; a sensitive one goes to the keyring)"},
			{name: "insist", kind: boolFlag, help: "install a bundle whose signature is invalid"},
			{name: "yes", kind: boolFlag, help: "upgrade without asking (needed when stdin is not a terminal)"},
			{name: "no-start", kind: boolFlag, help: "do not start it once after installing (its tools are pinned when a host first lists them)"},
		},
		run: (*env).bundlesInstall},
	{name: "bundles list", noArgs: true, summary: "the servers installed from bundles: bundle, version, signature, folder",
		run: (*env).bundlesList},
	{name: "bundles remove", aliases: []string{"rm"}, args: "NAME",
		summary: "remove a server installed from a bundle: its entry, its lock record, its unpacked versions and its secrets that no other server uses",
		flags:   []flagDef{{name: "keep-secrets", kind: boolFlag, help: "leave its secrets in the keyring"}},
		run:     (*env).bundlesRemove},
	{name: "bundles rollback", args: "NAME",
		summary: "switch a server upgraded with 'bundles install' to the other version it keeps (the previous one; after a rollback, the one rolled back from)",
		run:     (*env).bundlesRollback},
}

// bundleValues parses --set KEY=VALUE into values by key, in order.
func bundleValues(a *argv) (map[string][]string, error) {
	values := map[string][]string{}
	for _, kv := range a.list("set") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usagef("--set %q: write it as KEY=VALUE", kv)
		}
		values[k] = append(values[k], v)
	}
	return values, nil
}

// bundlesInstall is 'switchboard bundles install FILE' (docs/bundles.md).
func (e *env) bundlesInstall(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("bundles install takes one FILE (.mcpb)")
	}
	values, err := bundleValues(a)
	if err != nil {
		return err
	}
	if local := a.str("name"); local != "" && !config.ValidServerName(local) {
		return usagef("--name %q: use 1 to 31 lower-case letters, digits or '-', starting with a letter or digit", local)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	state := config.StateDir(e.getenv)
	home, _ := os.UserHomeDir()
	req := install.BundleRequest{File: a.pos[0], Local: a.str("name"), Values: values, Insist: a.flag("insist"),
		StateDir: state, LookPath: e.serversLookPath(), Dirs: install.BundleDirs(home), Progress: e.stderr,
		Sandbox: runtime.GOOS == "linux" && sbx.Probe().Available()}
	o, err := install.OpenBundle(ctx, req)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			o.Undo()
		}
	}()
	m := o.Manifest
	local := req.Local
	if local == "" {
		local = config.NormalizeName(m.Name)
	}
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	if _, err := b.get(local); err == nil {
		lock, lerr := install.ReadLock(state)
		if lerr != nil {
			return lerr
		}
		cur := lock.Servers[local]
		if cur == nil || cur.Ecosystem != install.EcosystemBundle || cur.Package != m.Name {
			return &install.ExistsError{Name: local}
		}
		if err := e.bundleUpgrade(ctx, a, b, state, local, cur, o, req); err != nil {
			return err
		}
		done = true
		return nil
	}
	// Sensitive values: given with --set, else asked for on a terminal
	// when required.
	for _, k := range m.Keys {
		opt := m.UserConfig[k]
		if !opt.Sensitive || !opt.Required || len(values[k]) > 0 {
			continue
		}
		if f, ok := e.stdin.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
			return fmt.Errorf("%s needs %s (%s), which is sensitive: give it with --set %s=VALUE (it goes to the keyring, never into a file), or run this on a terminal to be asked", m.Name, k, opt.Title, k)
		}
		v, err := e.readSecret(k)
		if err != nil {
			return err
		}
		values[k] = []string{v}
	}
	req.Opened, req.Local = o, local
	added, err := install.AddBundle(ctx, addTarget{b}, req)
	if err != nil {
		return err
	}
	done = true
	lk := added.Locked
	if added.LockErr != nil {
		fmt.Fprintf(e.stderr, "switchboard: %s was installed, but its lock could not be written: %v ('bundles remove %s' and install it again)\n", local, added.LockErr, local)
	}
	fmt.Fprintf(e.stdout, "installed %s: %s %s by %s, %s\n", local, termtext.Escape(m.Name), termtext.Escape(m.Version), termtext.Escape(m.Author.Name), termtext.Escape(lk.Bundle.Signature))
	fmt.Fprintf(e.stdout, "  runs:   %s\n", termtext.Escape(install.ArgvLine(added.Argv)))
	fmt.Fprintf(e.stdout, "  folder: %s (SHA-256 %s; tree %s in %s)\n", termtext.Escape(lk.Dir), lk.Bundle.SHA256, lk.TreeIntegrity, install.LockPath(state))
	e.printAddedSandbox(added)
	for _, w := range added.Warnings {
		fmt.Fprintf(e.stdout, "warning: %s\n", termtext.Escape(w))
	}
	for _, n := range added.Notes {
		fmt.Fprintf(e.stdout, "note: %s\n", termtext.Escape(n))
	}
	if a.flag("no-start") {
		fmt.Fprintf(e.stdout, "not started (--no-start): its tools are pinned when it first lists them to a host\n")
		return nil
	}
	return e.firstStart(ctx, b, added, state)
}

// printAddedSandbox prints the sandbox and the secrets an add made.
func (e *env) printAddedSandbox(added *install.Added) {
	switch {
	case added.Sandbox != nil:
		fmt.Fprintf(e.stdout, "  sandbox: %s\n", termtext.Escape(install.SandboxLine(added.Sandbox)))
		for _, w := range added.SandboxWhy {
			fmt.Fprintf(e.stdout, "    %s\n", termtext.Escape(w))
		}
	case added.Unconfined != "":
		fmt.Fprintf(e.stdout, "  sandbox: none: %s\n", added.Unconfined)
	}
	for _, s := range added.Secrets {
		what := "stored"
		if s.Replaced {
			what = "replaced (no server used it)"
		}
		fmt.Fprintf(e.stdout, "  secret %s %s in the keyring (the config refers to it)\n", s.Name, what)
	}
}

// bundleUpgrade switches local, a server of cur's bundle, to the bundle o
// after showing the diffs of the manifest and of a dry start's tools.
func (e *env) bundleUpgrade(ctx context.Context, a *argv, b backend, state, local string, cur *install.Locked, o *install.BundleOpened, req install.BundleRequest) error {
	m := o.Manifest
	if filepath.Clean(o.Dir) == filepath.Clean(cur.Dir) {
		fmt.Fprintf(e.stdout, "%s runs this bundle already (%s %s, %s): nothing to upgrade\n", local, termtext.Escape(m.Name), termtext.Escape(m.Version), termtext.Escape(cur.Dir))
		return nil
	}
	old, err := install.ReadBundleManifest(cur.Dir)
	if err != nil {
		return fmt.Errorf("the installed version of %s cannot be read (%w): 'bundles remove %s' and install it again", local, err, local)
	}
	fmt.Fprintf(e.stdout, "%s: %s %s -> %s\n", local, termtext.Escape(m.Name), termtext.Escape(cur.Version), termtext.Escape(m.Version))
	fmt.Fprintln(e.stdout, "manifest:")
	var was install.BundleLock
	if cur.Bundle != nil {
		was = *cur.Bundle
	}
	printList(e, install.BundleDiff(old, m, was.Signature, install.SignatureWords(o.Signature)), "no change of its command, options, declared tools, platforms or runtimes")

	// The values: those given before (for options the new version still
	// has), then --set; a secret keeps its keyring name.
	values := map[string][]string{}
	for k, vs := range was.Values {
		if _, ok := m.UserConfig[k]; ok {
			values[k] = vs
		}
	}
	secrets := map[string]string{} // keyring name -> value, stored at the switch
	names := map[string]string{}
	for k, n := range was.Secrets {
		if o, ok := m.UserConfig[k]; ok && o.Sensitive {
			names[k], values[k] = n, []string{""}
		}
	}
	for k, vs := range req.Values {
		values[k] = vs
		if opt, ok := m.UserConfig[k]; ok && opt.Sensitive && len(vs) > 0 {
			if names[k] == "" {
				names[k] = config.SuggestSecretName(local, k)
			}
			secrets[names[k]] = vs[len(vs)-1]
		}
	}
	var missing []string
	for _, k := range m.Keys {
		if opt := m.UserConfig[k]; opt.Required && opt.Default == nil && len(values[k]) == 0 {
			missing = append(missing, "--set "+k+"=VALUE")
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s %s needs a value for what it adds: give %s (nothing was changed; its unpacked folder is removed)", m.Name, m.Version, strings.Join(missing, " "))
	}
	secretName := func(k string) string {
		if n := names[k]; n != "" {
			return n
		}
		return config.SuggestSecretName(local, k)
	}
	entry, _, err := install.BundleEntry(m, o.Dir, req.Dirs, values, secretName, req.Sandbox)
	if err != nil {
		return fmt.Errorf("%s %s cannot run with the values given before:\n%w\n(nothing was changed)", m.Name, m.Version, err)
	}
	raw, err := b.get(local)
	if err != nil {
		return err
	}
	var keep map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keep); err != nil {
		return err
	}
	for k, v := range entry {
		keep[k], _ = json.Marshal(v)
	}
	if _, ok := entry["env"]; !ok {
		delete(keep, "env")
	}
	if !req.Sandbox {
		delete(keep, "sandbox")
	}
	if sb, ok := entry["sandbox"].(*config.Sandbox); ok {
		fmt.Fprintf(e.stdout, "sandbox: %s\n", termtext.Escape(install.SandboxLine(sb)))
	}
	nraw, err := json.Marshal(keep)
	if err != nil {
		return err
	}

	// The tools of a dry start of the new version, under its sandbox.
	s, err := config.ParseServer(local, nraw)
	if err != nil {
		return err
	}
	mt, err := e.startOnce(ctx, s, local, newSecrets{secrets, e.store()})
	if err != nil {
		return fmt.Errorf("the dry start of %s %s failed: %w (nothing was changed; its unpacked folder is removed)", m.Name, m.Version, err)
	}
	tools, err := install.FirstTools(mt)
	if err != nil {
		return err
	}
	e.printToolDiff(cur.Tools, tools, pinnedDescriptions(pinsPath(e.getenv), local))
	if err := e.confirmSwitch(a, local, m.Version, " (the new version's unpacked folder is removed)"); err != nil {
		return err
	}
	plain := map[string][]string{}
	sens := map[string]string{}
	for k, vs := range values {
		if m.UserConfig[k].Sensitive {
			sens[k] = ""
		} else {
			plain[k] = vs
		}
	}
	next := install.BundleRecord(req, o, plain, sens, secretName)
	next.Tools = map[string]string{}
	for _, t := range tools {
		next.Tools[t.Name] = t.Hash
	}
	if len(tools) > 0 {
		next.ToolsAt = time.Now().UTC().Truncate(time.Second)
	}
	prev := *cur
	prev.Previous = nil
	if err := e.switchEntry(b, state, local, raw, nraw, secrets, next, &prev); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "switched %s to %s %s; 'switchboard bundles rollback %s' returns to %s\n", local, termtext.Escape(m.Name), termtext.Escape(m.Version), local, termtext.Escape(cur.Version))
	fmt.Fprintf(e.stdout, "its new and changed tools are held for review when the host lists them ('switchboard tools review %s')\n", local)
	return nil
}

// bundlesList is 'switchboard bundles list'.
func (e *env) bundlesList(a *argv) error {
	lock, err := install.ReadLock(config.StateDir(e.getenv))
	if err != nil {
		return err
	}
	type row struct {
		Name      string `json:"name"`
		Bundle    string `json:"bundle"`
		Version   string `json:"version"`
		Signature string `json:"signature"`
		Dir       string `json:"dir"`
		File      string `json:"file,omitempty"`
		Origin    string `json:"origin,omitempty"`
		Previous  string `json:"previous,omitempty"`
	}
	rows := []row{}
	for _, name := range slices.Sorted(maps.Keys(lock.Servers)) {
		l := lock.Servers[name]
		if l.Ecosystem != install.EcosystemBundle {
			continue
		}
		r := row{Name: name, Bundle: l.Package, Version: l.Version, Dir: l.Dir}
		if l.Bundle != nil {
			r.Signature, r.File, r.Origin = l.Bundle.Signature, l.Bundle.File, l.Bundle.Origin
		}
		if l.Previous != nil {
			r.Previous = l.Previous.Version
		}
		rows = append(rows, r)
	}
	if e.json {
		return e.printJSON(rows)
	}
	if len(rows) == 0 {
		fmt.Fprintln(e.stdout, "no server was installed from a bundle ('switchboard bundles install FILE.mcpb')")
		return nil
	}
	for _, r := range rows {
		prev := ""
		if r.Previous != "" {
			prev = "; the other version kept: " + r.Previous
		}
		fmt.Fprintf(e.stdout, "%-20s %s %s, %s%s\n", r.Name, termtext.Escape(r.Bundle), termtext.Escape(r.Version), termtext.Escape(r.Signature), termtext.Escape(prev))
		fmt.Fprintf(e.stdout, "%-20s %s\n", "", termtext.Escape(r.Dir))
	}
	return nil
}

// bundleRecord is local's lock record, which must be a bundle's.
func (e *env) bundleRecord(local string) (*install.Locked, error) {
	lock, err := install.ReadLock(config.StateDir(e.getenv))
	if err != nil {
		return nil, err
	}
	cur := lock.Servers[local]
	if cur == nil || cur.Ecosystem != install.EcosystemBundle {
		return nil, fmt.Errorf("%s was not installed from a bundle ('switchboard bundles list' lists those that were; 'servers remove %s' removes any server)", local, local)
	}
	return cur, nil
}

// bundlesRemove is 'switchboard bundles remove NAME'.
func (e *env) bundlesRemove(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("bundles remove takes one server NAME")
	}
	local := a.pos[0]
	cur, err := e.bundleRecord(local)
	if err != nil {
		return err
	}
	ctx := context.Background()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	if err := b.remove(local); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "removed %s (%s %s)\n", local, termtext.Escape(cur.Package), termtext.Escape(cur.Version))
	state := config.StateDir(e.getenv)
	// The backend dropped local's lock record; the folders and secrets
	// that no remaining record uses go.
	lock, err := install.ReadLock(state)
	if err != nil {
		return err
	}
	used := map[string]bool{}
	usedSecret := map[string]bool{}
	for _, l := range lock.Servers {
		for r := l; r != nil; r = r.Previous {
			used[filepath.Clean(r.Dir)] = true
			if r.Bundle != nil {
				for _, n := range r.Bundle.Secrets {
					usedSecret[n] = true
				}
			}
		}
	}
	var errs []error
	for r := cur; r != nil; r = r.Previous {
		if r.Dir == "" || used[filepath.Clean(r.Dir)] || filepath.Dir(filepath.Clean(r.Dir)) != install.BundlesRoot(state) {
			continue
		}
		if err := os.RemoveAll(r.Dir); err != nil {
			errs = append(errs, err)
			continue
		}
		os.Remove(install.ListingPath(r.Dir))
		fmt.Fprintf(e.stdout, "  deleted %s\n", termtext.Escape(r.Dir))
	}
	if cur.Bundle != nil && !a.flag("keep-secrets") {
		list, err := b.listSecrets()
		if err != nil {
			errs = append(errs, err)
		}
		inUse := map[string][]string{}
		for _, s := range list {
			inUse[s.Name] = s.UsedBy
		}
		for _, k := range slices.Sorted(maps.Keys(cur.Bundle.Secrets)) {
			n := cur.Bundle.Secrets[k]
			if usedSecret[n] || len(inUse[n]) > 0 {
				fmt.Fprintf(e.stdout, "  secret %s kept: %s uses it\n", n, strings.Join(inUse[n], ", "))
				continue
			}
			if err := b.deleteSecret(n); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("the secret %s could not be removed (%w): 'switchboard secret rm %s'", n, err, n))
				continue
			}
			fmt.Fprintf(e.stdout, "  secret %s removed from the keyring\n", n)
		}
	}
	return errors.Join(errs...)
}

// bundlesRollback is 'switchboard bundles rollback NAME'.
func (e *env) bundlesRollback(a *argv) error {
	if len(a.pos) != 1 {
		return usagef("bundles rollback takes one server NAME")
	}
	local := a.pos[0]
	cur, err := e.bundleRecord(local)
	if err != nil {
		return err
	}
	prev := cur.Previous
	if prev == nil {
		return fmt.Errorf("%s has no previous version to return to (servers.lock records one after an upgrade with 'bundles install')", local)
	}
	if changes, err := install.Verify(prev, 5); err != nil || changes != nil {
		return fmt.Errorf("the previous version's folder %s is not as unpacked (%v%s): not returned to", prev.Dir, err, strings.Join(changes, "; "))
	}
	m, err := install.ReadBundleManifest(prev.Dir)
	if err != nil {
		return err
	}
	values := map[string][]string{}
	var bl install.BundleLock
	if prev.Bundle != nil {
		bl = *prev.Bundle
	}
	maps.Copy(values, bl.Values)
	for k := range bl.Secrets {
		values[k] = []string{""}
	}
	ctx := context.Background()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	raw, err := b.get(local)
	if err != nil {
		return err
	}
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entry); err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	_, hadSandbox := entry["sandbox"]
	built, _, err := install.BundleEntry(m, prev.Dir, install.BundleDirs(home), values, func(k string) string { return bl.Secrets[k] }, hadSandbox)
	if err != nil {
		return fmt.Errorf("the previous version cannot be run again: %w", err)
	}
	delete(entry, "env")
	for k, v := range built {
		entry[k], _ = json.Marshal(v)
	}
	back, _ := json.Marshal(entry)
	if err := b.put(local, back, false); err != nil {
		return err
	}
	state := config.StateDir(e.getenv)
	// The version rolled back from stays the other version (its folder
	// stays in the store): 'bundles rollback' again returns to it, and
	// 'bundles remove' deletes it.
	back2 := *prev
	other := *cur
	other.Previous = nil
	back2.Previous = &other
	if err := install.UpdateLock(state, func(l *install.Lock) { l.Servers[local] = &back2 }); err != nil {
		if rerr := b.put(local, raw, false); rerr != nil {
			return errors.Join(err, rerr)
		}
		return fmt.Errorf("servers.lock could not be written (%w): the entry was put back", err)
	}
	fmt.Fprintf(e.stdout, "rolled %s back to %s %s; the version %s stays in %s ('bundles rollback %s' again returns to it)\n", local, termtext.Escape(prev.Package), termtext.Escape(prev.Version), termtext.Escape(cur.Version), termtext.Escape(cur.Dir), local)
	return nil
}
