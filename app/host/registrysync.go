package host

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
)

// The background sync of the registries' indexes (docs/registry.md, "The
// local index and its sync"). Package variables for the tests, read by
// Run before the goroutine starts (a test that sets them races no host
// still running: Run awaits the goroutine before it returns).
var (
	// registrySyncEvery is how old an index may be: older, it is synced;
	// then again each period.
	registrySyncEvery = 24 * time.Hour
	// registrySyncDelay is how long after its start the host waits
	// before its first sync: its servers start first.
	registrySyncDelay = 30 * time.Second
	// registrySyncRetry is the wait after a first failure; it doubles at
	// each failure in a row, up to registrySyncEvery.
	registrySyncRetry = time.Minute
)

// maxRegistryNotices bounds the notices the host keeps for host.info.
const maxRegistryNotices = 20

// registrySync is the host's state of the background sync.
type registrySync struct {
	wake chan struct{} // a config change: the registries may differ (set before any goroutine)

	// guarded by Host.mu
	status  []hostapi.RegistryStatus
	updates int
	notices []hostapi.RegistryNotice
	nextID  int

	// the goroutine's own
	failures map[string]int
	retryAt  map[string]time.Time
}

// wakeRegistries tells the sync that the config changed (no wait).
func (h *Host) wakeRegistries() {
	if h.reg.wake == nil {
		return
	}
	select {
	case h.reg.wake <- struct{}{}:
	default:
	}
}

// watchRegistries syncs every registry of the config whose index is older
// than every, delay after the start and then as each comes due, until ctx
// ends. A failure is retried after retry, doubling up to every. Only
// this goroutine syncs in the host, one registry at a time, and each
// sync holds the registry's lock (registry.SyncLocked) against a
// 'switchboard registry sync' at the same time.
func (h *Host) watchRegistries(ctx context.Context, every, delay, retry time.Duration) {
	h.reg.failures, h.reg.retryAt = map[string]int{}, map[string]time.Time{}
	notBefore := time.Now().Add(delay)
	wait := h.registryRound(ctx, every, retry, notBefore) // the statuses at once; no sync before notBefore
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		case <-h.reg.wake:
			t.Stop()
		}
		wait = h.registryRound(ctx, every, retry, notBefore)
	}
}

// configRegistries are the registries of the config in force (none when
// its list has a problem: the config's report says it).
func (h *Host) configRegistries() []config.RegistrySettings {
	h.mu.Lock()
	f := h.file
	h.mu.Unlock()
	if f == nil {
		return nil
	}
	regs, err := f.Registries()
	if err != nil {
		return nil
	}
	return regs
}

// registryRound syncs each registry that is due (not before notBefore),
// then computes the updates to review and publishes what changed; it
// returns the time until the next registry comes due.
func (h *Host) registryRound(ctx context.Context, every, retry time.Duration, notBefore time.Time) time.Duration {
	dir := registry.Dir(h.opts.StateDir)
	regs := h.configRegistries()
	now := time.Now()
	sync := !now.Before(notBefore)
	next := every
	if !sync {
		next = notBefore.Sub(now)
	}
	soon := func(at time.Time) {
		if d := at.Sub(now); d < next {
			next = max(d, min(time.Second, retry)) // never a busy loop
		}
	}
	h.mu.Lock()
	old := map[string]hostapi.RegistryStatus{}
	for _, st := range h.reg.status {
		old[st.Name] = st
	}
	h.mu.Unlock()
	indexes := map[string]*registry.Index{"catalog": {Registry: "catalog", Entries: registry.CatalogEntries()}}
	var status []hostapi.RegistryStatus
	var notices []hostapi.RegistryNotice
	for _, r := range regs {
		st := old[r.Name]
		if st.URL != r.URL {
			st = hostapi.RegistryStatus{}
		}
		st.Name, st.URL = r.Name, r.URL
		ix, err := registry.Load(dir, r.Name, r.URL)
		if err != nil {
			st.LastError = err.Error()
			status = append(status, st)
			continue
		}
		due := ix.Snapshot || ix.SyncedAt.IsZero() || now.Sub(ix.SyncedAt) >= every
		retryAt := h.reg.retryAt[r.Name]
		switch {
		case !due:
			st.NextSync = ix.SyncedAt.Add(every)
			st.LastError = "" // synced since (by 'switchboard registry sync')
			delete(h.reg.failures, r.Name)
		case !sync:
			st.NextSync = notBefore
		case now.Before(retryAt):
			st.NextSync = retryAt
		default:
			var res registry.SyncResult
			ix, res, err = h.syncRegistry(ctx, dir, r, ix)
			if ctx.Err() != nil {
				return next
			}
			st.LastTry = now
			if err != nil {
				st.NextSync, st.LastError = h.registryFailed(r, err, retry, every)
			} else {
				st.LastError = ""
				st.NextSync = ix.SyncedAt.Add(every)
				notices = append(notices, h.registryChanges(r.Name, res.Changes)...)
			}
		}
		if !st.NextSync.IsZero() {
			soon(st.NextSync)
		}
		st.SyncedAt, st.Entries = ix.SyncedAt, len(ix.Entries)
		if ix.Snapshot {
			st.SyncedAt = time.Time{}
		}
		indexes[r.Name] = ix
		status = append(status, st)
	}
	updates := h.countUpdates(indexes, now)
	h.mu.Lock()
	changed := !reflect.DeepEqual(status, h.reg.status) || updates != h.reg.updates || len(notices) > 0
	h.reg.status, h.reg.updates = status, updates
	for _, n := range notices {
		h.reg.nextID++
		n.ID = h.reg.nextID
		h.reg.notices = append(h.reg.notices, n)
	}
	if len(h.reg.notices) > maxRegistryNotices {
		h.reg.notices = slices.Clone(h.reg.notices[len(h.reg.notices)-maxRegistryNotices:])
	}
	ev := hostapi.RegistryEvent{Registries: status, Updates: updates, Notices: slices.Clone(h.reg.notices)}
	h.mu.Unlock()
	if changed {
		_ = h.srv.Publish(hostapi.TopicRegistry, ev)
	}
	return next
}

// syncRegistry syncs one registry under its lock. A lock held by
// another sync (a 'switchboard registry sync' running now) is
// registry.ErrBusy, with ix as it was.
func (h *Host) syncRegistry(ctx context.Context, dir string, r config.RegistrySettings, ix *registry.Index) (*registry.Index, registry.SyncResult, error) {
	c, err := registry.NewClient(r.URL)
	if err != nil {
		return ix, registry.SyncResult{}, err
	}
	h.log.Info("syncing a registry's index", "registry", r.Name, "url", r.URL, "since", ix.Since)
	start := time.Now()
	nix, res, err := registry.SyncLocked(ctx, c, registry.Locked{Dir: dir, Name: r.Name, URL: r.URL})
	if nix == nil {
		return ix, res, err
	}
	if err == nil {
		h.log.Info("registry synced", "registry", r.Name, "entries", len(nix.Entries), "added", res.Added, "updated", res.Updated,
			"removed", res.Removed, "deprecated", res.Deprecated, "took", time.Since(start).Round(time.Millisecond))
	}
	return nix, res, err
}

// registryFailed counts a failed sync and says when the next try is,
// and what to do, in the log and in the status.
func (h *Host) registryFailed(r config.RegistrySettings, err error, retry, every time.Duration) (time.Time, string) {
	if errors.Is(err, registry.ErrBusy) {
		// Not a failure: the other sync brings the index up to date.
		at := time.Now().Add(retry)
		h.reg.retryAt[r.Name] = at
		h.log.Info("another sync of a registry is running (switchboard registry sync): the host looks again later", "registry", r.Name, "at", at.Format(time.TimeOnly))
		return at, ""
	}
	h.reg.failures[r.Name]++
	wait := retry
	for i := 1; i < h.reg.failures[r.Name] && wait < every; i++ {
		wait *= 2
	}
	wait = min(wait, every)
	at := time.Now().Add(wait)
	h.reg.retryAt[r.Name] = at
	remedy := fmt.Sprintf(`check the network, and the registry's url in the config's "registries"; 'switchboard registry sync %s' tries at once and says more`, r.Name)
	h.log.Warn("the background sync of a registry's index failed; search answers from the index as it was", "registry", r.Name,
		"error", err, "failures", h.reg.failures[r.Name], "retry_at", at.Format(time.DateTime), "remedy", remedy)
	return at, fmt.Sprintf("%v: the host tries again at %s; %s", err, at.Format(time.DateTime), remedy)
}

// registryChanges acts on the status changes of a sync of registry reg
// for the servers servers.lock says were added from it: a deleted entry
// disables its server ("disabled": true, as 'servers disable' writes it,
// through the host's config write: nothing else of the entry changes), a
// deprecated one is said; each is a notice (host.info, the registry event, the tray's
// notification) and a line of the log.
func (h *Host) registryChanges(reg string, changes []registry.StatusChange) []hostapi.RegistryNotice {
	if len(changes) == 0 {
		return nil
	}
	lock, err := install.ReadLock(h.opts.StateDir)
	if err != nil {
		h.log.Warn("cannot read servers.lock: the registry's status changes are not checked against the servers", "registry", reg, "error", err)
		return nil
	}
	byEntry := map[string]registry.StatusChange{}
	for _, c := range changes {
		byEntry[c.Name] = c
	}
	var out []hostapi.RegistryNotice
	for _, name := range slices.Sorted(maps.Keys(lock.Servers)) {
		l := lock.Servers[name]
		c, ok := byEntry[l.Entry]
		if l.Registry != reg || !ok {
			continue
		}
		server := h.lockedServer(name, l)
		if server == "" {
			continue // no longer in the config
		}
		msg := c.Message
		if msg == "" {
			msg = "no reason given"
		}
		n := hostapi.RegistryNotice{At: time.Now(), Server: server, Registry: reg, Entry: l.Entry, Status: c.Status, Message: c.Message}
		switch c.Status {
		case registry.StatusDeleted:
			err := h.change(func(f *config.File) error { return configedit.SetDisabled(f, server, true) })
			if err != nil {
				n.Line = fmt.Sprintf("%s was removed from the registry %s: %s; disabling it failed (%v): disable it ('switchboard servers disable %s')", server, reg, msg, err, server)
				h.log.Error("a server's registry entry was deleted, and disabling the server failed", "server", server, "registry", reg, "entry", l.Entry, "message", c.Message, "error", err)
			} else {
				n.Disabled = true
				n.Line = fmt.Sprintf("%s was removed from the registry %s: %s; it is disabled", server, reg, msg)
				h.log.Warn("a server's registry entry was deleted: the server is disabled", "server", server, "registry", reg, "entry", l.Entry, "message", c.Message,
					"remedy", "remove it ('switchboard servers remove "+server+"'), or enable it again if you trust it")
			}
		case registry.StatusDeprecated:
			n.Line = fmt.Sprintf("%s is deprecated in the registry %s: %s; it keeps running", server, reg, msg)
			h.log.Warn("a server's registry entry is deprecated; the server keeps running", "server", server, "registry", reg, "entry", l.Entry, "message", c.Message)
		default:
			continue
		}
		out = append(out, n)
	}
	return out
}

// lockedServer is the config's name of the server servers.lock holds as
// name: name itself, or for a server renamed since its add, the entry
// that runs the locked install's entry point; "" when none.
func (h *Host) lockedServer(name string, l *install.Locked) string {
	h.mu.Lock()
	f := h.file
	h.mu.Unlock()
	if f == nil {
		return ""
	}
	if _, ok := f.Servers[name]; ok {
		return name
	}
	if l.Bin == "" {
		return ""
	}
	for _, n := range slices.Sorted(maps.Keys(f.Servers)) {
		if slices.Contains(f.Servers[n].Args, l.Bin) {
			return n
		}
	}
	return ""
}

// countUpdates is 'registry outdated”s count over the indexes: the
// servers of servers.lock with a newer release old enough to offer.
func (h *Host) countUpdates(indexes map[string]*registry.Index, now time.Time) int {
	lock, err := install.ReadLock(h.opts.StateDir)
	if err != nil {
		return 0
	}
	var installed []registry.Installed
	for _, name := range slices.Sorted(maps.Keys(lock.Servers)) {
		l := lock.Servers[name]
		if l.Registry != "" && l.Entry != "" {
			installed = append(installed, registry.Installed{Server: name, Registry: l.Registry, Entry: l.Entry, Version: l.EntryVersion})
		}
	}
	return registry.CountOffered(registry.Outdated(installed, indexes, now, false))
}
