package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// The upgrade of a server added from a registry that has no locked
// install (docs/registry.md, "Upgrades and rollback"): an unlocked
// package (npx, uvx, docker with its version in the argv) or a remote.
// Its review is the server.json diff; the switch rewrites the version
// pin the add wrote into the entry (the package's PACKAGE@VERSION
// argument, the remote's URL) and the lock record together.

// pinToken is the argument of an unlocked package's argv that pins its
// version, as registry.MakeSetup writes it; "" when none can be named.
func pinToken(l *install.Locked, version string) string {
	switch l.Ecosystem {
	case "npm", "nuget":
		return l.Package + "@" + version
	case "pypi":
		return l.Package + "==" + version
	case "oci":
		if l.Image != "" {
			return "" // run by its digest: a new version needs a new digest
		}
		if strings.Contains(l.Package, "@") || strings.Contains(l.Package[strings.LastIndex(l.Package, "/")+1:], ":") {
			return "" // the identifier holds its own tag or digest
		}
		return l.Package + ":" + version
	}
	return ""
}

// pinIndex is where tok is in args: it must be there exactly once.
func pinIndex(args []string, tok string) int {
	at := -1
	for i, a := range args {
		if a == tok {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// newEnvValues gives each environment variable a new version adds its
// value: --set's, else its default; a secret one a keyring reference
// (secrets holds what to store at the switch); missing are the --set a
// required one without a value needs.
func newEnvValues(local string, env map[string]string, added []registry.KeyValue, values map[string]string) (secrets map[string]string, missing []string) {
	secrets = map[string]string{}
	for _, ev := range added {
		v, ok := values[ev.Name]
		if !ok {
			v = ev.Default
		}
		switch {
		case v == "" && ev.IsRequired:
			missing = append(missing, "--set "+ev.Name+"=VALUE")
		case v == "":
		case ev.IsSecret:
			secrets[config.SuggestSecretName(local, ev.Name)] = v
			env[ev.Name] = config.KeyringRef(config.SuggestSecretName(local, ev.Name))
		default:
			env[ev.Name] = strings.ReplaceAll(v, "${", "$${")
		}
	}
	return secrets, missing
}

// addedEnv are the environment variables of now that was lacks.
func addedEnv(was, now *registry.Package) []registry.KeyValue {
	var out []registry.KeyValue
	for _, ev := range now.EnvironmentVariables {
		if !slices.ContainsFunc(was.EnvironmentVariables, func(x registry.KeyValue) bool { return x.Name == ev.Name }) {
			out = append(out, ev)
		}
	}
	return out
}

func findPackage(s *registry.Server, registryType, identifier string) *registry.Package {
	for i := range s.Packages {
		if p := &s.Packages[i]; p.RegistryType == registryType && p.Identifier == identifier {
			return p
		}
	}
	return nil
}

// upgradeUnlocked is 'registry upgrade' of a server with no locked
// install; en is the version to go to (its age checked).
func (e *env) upgradeUnlocked(a *argv, b backend, state, local string, cur *install.Locked, en *registry.Entry, values map[string]string) error {
	raw, err := b.get(local)
	if err != nil {
		return err
	}
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entry); err != nil {
		return fmt.Errorf("%s's config entry: %w", local, err)
	}
	old, err := e.entryVersion(en, cur.EntryVersion)
	if err != nil {
		return fmt.Errorf("the installed version's server.json (%s %s) cannot be read: %w (nothing was changed; an upgrade of an unlocked server compares the two)", en.Server.Name, cur.EntryVersion, err)
	}
	next := *cur
	next.EntryVersion, next.InstalledAt = en.Server.Version, time.Now().UTC().Truncate(time.Second)
	next.Tools, next.ToolsAt, next.Previous = nil, time.Time{}, nil
	prev := *cur
	prev.Previous = nil
	secrets := map[string]string{}
	var what string

	if cur.Ecosystem == "remote" {
		fmt.Fprintf(e.stdout, "%s: %s %s -> %s (a remote)\n", local, termtext.Escape(en.Server.Name), termtext.Escape(cur.EntryVersion), termtext.Escape(en.Server.Version))
		fmt.Fprintln(e.stdout, "server.json:")
		var url string
		if json.Unmarshal(entry["url"], &url) != nil || url == "" {
			return fmt.Errorf("%s's config entry has no url (it was changed since): remove it and 'registry add' the new version", local)
		}
		ro, rn := old.Server.Remotes, en.Server.Remotes
		var diffs []string
		urlChanged := false
		if len(ro) != len(rn) {
			diffs = append(diffs, fmt.Sprintf("remotes: %d, now %d", len(ro), len(rn)))
		} else {
			for i := range ro {
				o, n := ro[i], rn[i]
				if o.Type != n.Type {
					diffs = append(diffs, fmt.Sprintf("remote %d: transport was %s, now %s", i+1, o.Type, n.Type))
				}
				switch {
				case o.URL == n.URL:
				case strings.ReplaceAll(o.URL, cur.EntryVersion, en.Server.Version) == n.URL:
					urlChanged = true
					fmt.Fprintf(e.stdout, "  remote %d: URL %s -> %s (only the version in it)\n", i+1, termtext.Escape(o.URL), termtext.Escape(n.URL))
				default:
					diffs = append(diffs, fmt.Sprintf("remote %d: URL %s -> %s", i+1, o.URL, n.URL))
				}
				if !reflect.DeepEqual(o.Headers, n.Headers) {
					diffs = append(diffs, fmt.Sprintf("remote %d: headers %s -> %s", i+1, headerWords(o.Headers), headerWords(n.Headers)))
				}
				if !reflect.DeepEqual(o.Variables, n.Variables) {
					diffs = append(diffs, fmt.Sprintf("remote %d: URL variables %s -> %s", i+1, varWords(o.Variables), varWords(n.Variables)))
				}
			}
		}
		printList(e, diffs, "no change of its remotes' URLs (but the version in them), headers or variables")
		if len(diffs) > 0 {
			return fmt.Errorf("%s %s changes its remote beyond the version in its URL, which an upgrade does not carry over: remove %s and 'registry add' the new version (nothing was changed)", en.Server.Name, en.Server.Version, local)
		}
		if urlChanged {
			if !strings.Contains(url, cur.EntryVersion) {
				return fmt.Errorf("%s's URL %s does not hold the version %s its registry's URL did (the entry was changed since): remove it and 'registry add' the new version (nothing was changed)", local, termtext.Escape(url), termtext.Escape(cur.EntryVersion))
			}
			nu := strings.ReplaceAll(url, cur.EntryVersion, en.Server.Version)
			entry["url"], _ = json.Marshal(nu)
			prev.URL, next.URL = url, nu
			what = "its URL " + nu
		} else {
			what = "the same URL"
		}
	} else {
		tok := pinToken(cur, cur.Version)
		if tok == "" {
			return fmt.Errorf("%s runs %s %s, whose version is not pinned by a PACKAGE@VERSION argument 'registry upgrade' can rewrite: remove it and 'registry add' the new version", local, cur.Ecosystem, cur.Package)
		}
		po, pn := findPackage(&old.Server, cur.Ecosystem, cur.Package), findPackage(&en.Server, cur.Ecosystem, cur.Package)
		if pn == nil {
			return fmt.Errorf("%s %s has no %s package %s any more: remove %s and add the entry again", en.Server.Name, en.Server.Version, cur.Ecosystem, cur.Package, local)
		}
		fmt.Fprintf(e.stdout, "%s: %s %s -> %s (package %s %s -> %s, unlocked)\n", local, termtext.Escape(en.Server.Name), termtext.Escape(cur.EntryVersion),
			termtext.Escape(en.Server.Version), termtext.Escape(cur.Package), termtext.Escape(cur.Version), termtext.Escape(pn.Version))
		fmt.Fprintln(e.stdout, "server.json:")
		printList(e, install.ServerDiff(&old.Server, &en.Server, cur.Ecosystem, cur.Package), "no change of its variables, arguments, remotes or transport")
		if po == nil {
			return fmt.Errorf("the installed version's server.json has no %s package %s: remove %s and add the entry again", cur.Ecosystem, cur.Package, local)
		}
		if !slices.Equal(argNames(*po), argNames(*pn)) {
			return fmt.Errorf("%s %s changes its arguments, which an upgrade does not carry over: remove %s and 'registry add' the new version", en.Server.Name, en.Server.Version, local)
		}
		var args []string
		if json.Unmarshal(entry["args"], &args) != nil {
			return fmt.Errorf("%s's config entry has no args (it was changed since): remove it and 'registry add' the new version", local)
		}
		at := pinIndex(args, tok)
		if at < 0 {
			return fmt.Errorf("%s's config entry does not hold its pin %s once in its args (it was edited since): put it back, or remove %s and 'registry add' the new version (nothing was changed)", local, termtext.Escape(tok), local)
		}
		env := map[string]string{}
		if entry["env"] != nil {
			_ = json.Unmarshal(entry["env"], &env)
		}
		added := addedEnv(po, pn)
		var missing []string
		secrets, missing = newEnvValues(local, env, added, values)
		if len(missing) > 0 {
			return fmt.Errorf("%s %s needs a value for what it adds: give %s (nothing was changed)", en.Server.Name, en.Server.Version, strings.Join(missing, " "))
		}
		args[at] = pinToken(cur, pn.Version)
		if cur.Ecosystem == "oci" {
			// docker passes a variable only when its argv names it.
			var ins []string
			for _, ev := range added {
				if _, ok := env[ev.Name]; ok {
					ins = append(ins, "-e", ev.Name)
				}
			}
			args = slices.Insert(args, at, ins...)
		}
		entry["args"], _ = json.Marshal(args)
		if len(env) > 0 {
			entry["env"], _ = json.Marshal(env)
		}
		next.Version = pn.Version
		what = "runs " + install.ArgvLine(args)
	}
	if err := e.confirmSwitch(a, local, en.Server.Version, ""); err != nil {
		return err
	}
	nraw, _ := json.Marshal(entry)
	if err := e.switchEntry(b, state, local, raw, nraw, secrets, &next, &prev); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "switched %s to %s %s (%s); 'switchboard registry rollback %s' returns to %s\n", local, termtext.Escape(en.Server.Name), termtext.Escape(en.Server.Version),
		termtext.Escape(what), local, termtext.Escape(cur.EntryVersion))
	return nil
}

// switchEntry is an upgrade's switch: the secrets first, then the
// entry, then the lock record (next, with prev as its previous); the
// entry goes back if the lock cannot be written.
func (e *env) switchEntry(b backend, state, local string, raw, nraw json.RawMessage, secrets map[string]string, next, prev *install.Locked) error {
	for name, v := range secrets {
		if _, err := b.setSecret(name, v); err != nil {
			return fmt.Errorf("storing %s in the keyring: %w (nothing was switched)", name, err)
		}
	}
	if err := b.put(local, nraw, false); err != nil {
		return fmt.Errorf("switching the entry: %w (nothing was switched)", err)
	}
	next.Previous = prev
	if err := install.UpdateLock(state, func(l *install.Lock) { l.Servers[local] = next }); err != nil {
		if rerr := b.put(local, raw, false); rerr != nil {
			return fmt.Errorf("servers.lock could not be written (%w), and the entry could not be put back: %v", err, rerr)
		}
		return fmt.Errorf("servers.lock could not be written (%w): the entry was put back, nothing was switched", err)
	}
	return nil
}

// rollbackUnlocked is 'registry rollback' of a server with no locked
// install: the pin the upgrade wrote goes back to prev's, and prev is
// the lock's record again.
func (e *env) rollbackUnlocked(state, local string, cur, prev *install.Locked) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b, err := e.backend(ctx)
	if err != nil {
		return err
	}
	defer b.close()
	raw, back, what, err := unpinned(b, local, cur, prev)
	if err != nil {
		return err
	}
	if err := b.put(local, back, false); err != nil {
		return err
	}
	if err := install.UpdateLock(state, func(l *install.Lock) { l.Servers[local] = prev }); err != nil {
		if rerr := b.put(local, raw, false); rerr != nil {
			return errors.Join(err, rerr)
		}
		return fmt.Errorf("servers.lock could not be written (%w): the entry was put back", err)
	}
	fmt.Fprintf(e.stdout, "rolled %s back to %s %s (%s)\n", local, termtext.Escape(prev.Entry), termtext.Escape(prev.EntryVersion), termtext.Escape(what))
	return nil
}

// unpinned is local's entry now (raw) and rolled back (back) from cur's
// pin to prev's, and what runs then.
func unpinned(b backend, local string, cur, prev *install.Locked) (json.RawMessage, json.RawMessage, string, error) {
	raw, err := b.get(local)
	if err != nil {
		return nil, nil, "", err
	}
	var entry map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entry); err != nil {
		return nil, nil, "", fmt.Errorf("%s's config entry: %w", local, err)
	}
	what := "the same URL"
	if cur.Ecosystem == "remote" {
		if cur.URL != "" {
			var url string
			if json.Unmarshal(entry["url"], &url) != nil || url != cur.URL || prev.URL == "" {
				return nil, nil, "", fmt.Errorf("%s's URL is not %s, the one the upgrade wrote (it was changed since): not rolled back", local, termtext.Escape(cur.URL))
			}
			entry["url"], _ = json.Marshal(prev.URL)
			what = "its URL " + prev.URL
		}
	} else {
		var args []string
		tok, back := pinToken(cur, cur.Version), pinToken(prev, prev.Version)
		at := -1
		if json.Unmarshal(entry["args"], &args) == nil && tok != "" && back != "" {
			at = pinIndex(args, tok)
		}
		if at < 0 {
			return nil, nil, "", fmt.Errorf("%s's config entry does not hold its pin %s once in its args (it was edited since): not rolled back", local, termtext.Escape(tok))
		}
		args[at] = back
		entry["args"], _ = json.Marshal(args)
		what = "runs " + install.ArgvLine(args)
	}
	back, _ := json.Marshal(entry)
	return raw, back, what, nil
}

func headerWords(h []registry.KeyValue) string {
	var s []string
	for _, kv := range h {
		s = append(s, kv.Name+inputFlags(kv.Input))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func varWords(v map[string]registry.Input) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(v)) {
		s = append(s, k+inputFlags(v[k]))
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

func inputFlags(in registry.Input) string {
	var w []string
	if in.IsRequired {
		w = append(w, "required")
	}
	if in.IsSecret {
		w = append(w, "secret")
	}
	if len(w) == 0 {
		return ""
	}
	return " (" + strings.Join(w, ", ") + ")"
}
