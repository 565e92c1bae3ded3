package cli

import (
	"fmt"
	"maps"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

var registryOutdatedRow = &command{name: "registry outdated",
	summary: "for each server added from a registry (servers.lock), whether its registry's index has a newer version (no network: 'registry sync' refreshes the indexes)",
	help: `A release younger than 3 days is listed as "too new to offer" and not
counted as an update: a compromised release is usually found and pulled
within days. --allow-new counts it. The versions compare as semantic
versions when both are one, else the index's (the registry's latest) is
newer when it differs. The host does the same after each background sync
and the tray shows "N updates to review".
`,
	flags: []flagDef{{name: "allow-new", kind: boolFlag, help: "count releases younger than 3 days as updates too"}},
	run:   (*env).registryOutdated}

// registryOutdated is 'switchboard registry outdated'.
func (e *env) registryOutdated(a *argv) error {
	if len(a.pos) > 0 {
		return usagef("registry outdated takes no argument")
	}
	state := config.StateDir(e.getenv)
	lock, err := install.ReadLock(state)
	if err != nil {
		return err
	}
	ixs, err := e.registryIndexes()
	if err != nil {
		return err
	}
	byName := map[string]*registry.Index{}
	for _, ix := range ixs {
		byName[ix.Registry] = ix
	}
	byName["catalog"] = &registry.Index{Registry: "catalog", Entries: registry.CatalogEntries()}
	installed := installedFromLock(lock)
	ups := registry.Outdated(installed, byName, time.Now(), a.flag("allow-new"))
	registry.SortUpdates(ups)
	if e.json {
		return e.printJSON(ups)
	}
	if len(ups) == 0 {
		fmt.Fprintf(e.stdout, "No server was added from a registry (%s has none): nothing to check.\n", install.LockPath(state))
		return nil
	}
	x := termtext.Escape
	tw := tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tENTRY\tREGISTRY\tINSTALLED\tLATEST\tSTATUS")
	tooNew := 0
	for _, u := range ups {
		note := ""
		switch {
		case u.Missing:
			note = "not in the registry's index (deleted, or never synced: 'switchboard registry sync')"
		case u.Offered:
			note = fmt.Sprintf("update (published %s ago)", english.Plural(u.AgeDays, "day"))
			if u.TooNew {
				note = "update, " + registry.TooNewText(u)
			}
		case u.TooNew:
			tooNew++
			note = registry.TooNewText(u)
		case !u.Newer:
			note = "up to date"
		}
		if u.Status == registry.StatusDeprecated {
			msg := u.StatusMessage
			if msg == "" {
				msg = "no reason given"
			}
			note += "; DEPRECATED: " + msg
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", x(u.Server), x(u.Entry), x(u.Registry), x(u.Version), x(u.Latest), x(note))
	}
	_ = tw.Flush()
	n := registry.CountOffered(ups)
	fmt.Fprintf(e.stdout, "\n%s to review", english.Plural(n, "update"))
	if tooNew > 0 {
		fmt.Fprintf(e.stdout, "; %s too new to offer (--allow-new lists them as updates)", english.Plural(tooNew, "release"))
	}
	fmt.Fprintln(e.stdout, ".")
	e.snapshotNote(e.stdout, ixs)
	return nil
}

// installedFromLock are the servers of servers.lock that came from a
// registry, by name.
func installedFromLock(lock *install.Lock) []registry.Installed {
	var out []registry.Installed
	for _, name := range slices.Sorted(maps.Keys(lock.Servers)) {
		l := lock.Servers[name]
		if l.Registry == "" || l.Entry == "" {
			continue
		}
		out = append(out, registry.Installed{Server: name, Registry: l.Registry, Entry: l.Entry, Version: l.EntryVersion})
	}
	return out
}
