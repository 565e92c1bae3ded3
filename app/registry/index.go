package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// Entry is the latest version of one server in a registry's index.
type Entry struct {
	Server          Server `json:"server"`
	Registry        string `json:"registry,omitempty"` // the registry's name in the config ("official"), or "catalog"
	Status          string `json:"status,omitempty"`   // active (also when empty) or deprecated; deleted entries are dropped
	StatusMessage   string `json:"statusMessage,omitempty"`
	StatusChangedAt string `json:"statusChangedAt,omitempty"`
	PublishedAt     string `json:"publishedAt,omitempty"`
	UpdatedAt       string `json:"updatedAt,omitempty"`
	// Note is Switchboard's own word on the entry: where a snapshot
	// entry came from and what it lacks.
	Note string `json:"note,omitempty"`
}

// Deprecated says whether the registry marked the entry deprecated.
func (e *Entry) Deprecated() bool { return e.Status == StatusDeprecated }

// entryOf is the Entry of a list item.
func entryOf(r *ServerResponse, registry string) Entry {
	m := r.Official()
	return Entry{Server: r.Server, Registry: registry, Status: m.Status, StatusMessage: m.StatusMessage,
		StatusChangedAt: m.StatusChangedAt, PublishedAt: m.PublishedAt, UpdatedAt: m.UpdatedAt}
}

// Index is one registry's local index: the latest version of every
// server that is not deleted, and where the next sync resumes.
type Index struct {
	Registry string    `json:"registry"`
	URL      string    `json:"url"`
	SyncedAt time.Time `json:"syncedAt,omitzero"`
	// Since is the newest updatedAt seen: the next sync asks for the
	// servers updated since then (zero: a full sync).
	Since time.Time `json:"since,omitzero"`
	// Snapshot says the entries are the built-in snapshot's, not yet
	// synced: the first sync is a full one.
	Snapshot bool    `json:"snapshot,omitempty"`
	Entries  []Entry `json:"entries"`
}

// MaxIndexBytes bounds an index file read from disk.
const MaxIndexBytes = 512 << 20

// Dir is where the indexes live under Switchboard's state directory.
func Dir(stateDir string) string { return filepath.Join(stateDir, "registry") }

// Path is the index file of the registry name in dir.
func Path(dir, name string) string { return filepath.Join(dir, name+".json") }

// Load reads the index of the registry name (at url) from dir. With no
// file yet, the official registry's index is the built-in snapshot and
// any other registry's is empty (Snapshot true for both: never synced).
func Load(dir, name, url string) (*Index, error) {
	p := Path(dir, name)
	f, err := os.Open(p)
	if errors.Is(err, os.ErrNotExist) {
		ix := &Index{Registry: name, URL: url, Snapshot: true}
		if strings.TrimRight(url, "/") == DefaultURL {
			for _, e := range SnapshotEntries() {
				e.Registry = name
				ix.Entries = append(ix.Entries, e)
			}
		}
		return ix, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxIndexBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxIndexBytes {
		return nil, fmt.Errorf("%s is over %d MB: remove it and run 'switchboard registry sync %s'", p, MaxIndexBytes>>20, name)
	}
	var ix Index
	if err := json.Unmarshal(data, &ix); err != nil {
		return nil, fmt.Errorf("%s cannot be read (%v): remove it and run 'switchboard registry sync %s'", p, err, name)
	}
	if strings.TrimRight(ix.URL, "/") != strings.TrimRight(url, "/") {
		// The config now names another URL for this registry: what the
		// file holds came from elsewhere.
		return &Index{Registry: name, URL: url, Snapshot: true}, nil
	}
	for i := range ix.Entries {
		ix.Entries[i].Registry = name
	}
	return &ix, nil
}

// Save writes the index to dir atomically (config.WriteFile: a synced
// temporary file renamed over the old one): a reader sees the old index or
// the new one, never half.
func (ix *Index) Save(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(ix)
	if err != nil {
		return err
	}
	return config.WriteFile(Path(dir, ix.Registry), data)
}

// SyncOptions are a sync's parameters.
type SyncOptions struct {
	Full     bool // ignore Since: read every server, and drop those no longer listed
	MaxPages int  // 0: 1000 pages
	PageSize int  // 0: PageLimit
	// Start, if set, is called before the first page: with the index
	// and whether the sync is a full one.
	Start func(ix *Index, full bool)
	// Progress, if set, is called after each page.
	Progress func(page, servers int)
	now      func() time.Time
}

// SyncResult says what a sync changed.
type SyncResult struct {
	Full       bool
	Pages      int
	Seen       int // items read
	Added      int
	Updated    int
	Removed    int // deleted in the registry (or, on a full sync, no longer listed)
	Deprecated int // entries now deprecated
	// Changes are the entries whose status changed in this sync: newly
	// deprecated, or deleted while the index had them (the host tells
	// the user of a server added from one: app/host/registrysync.go).
	Changes []StatusChange
}

// StatusChange is an entry whose status changed in a sync.
type StatusChange struct {
	Name    string // the server's name in the registry
	Version string // its latest version
	Status  string // StatusDeprecated or StatusDeleted
	Message string // the registry's statusMessage
}

// Sync brings the index up to date from the registry: the servers
// updated since the last sync (all of them the first time, or with
// Full), latest versions only. A server whose status is deleted is
// dropped; a deprecated one is kept with its message. On an error the
// pages read so far are kept (without moving Since, so the next sync
// reads them again) and the error is returned.
func Sync(ctx context.Context, c *Client, ix *Index, o SyncOptions) (SyncResult, error) {
	full := o.Full || ix.Snapshot || ix.Since.IsZero()
	res := SyncResult{Full: full}
	maxPages := o.MaxPages
	if maxPages <= 0 {
		maxPages = 1000
	}
	now := time.Now
	if o.now != nil {
		now = o.now
	}
	byName := map[string]int{}
	for i, e := range ix.Entries {
		byName[e.Server.Name] = i
	}
	entries := ix.Entries
	listed := map[string]bool{}
	newest := ix.Since
	opts := ListOptions{Limit: o.PageSize}
	if !full {
		opts.UpdatedSince = ix.Since
	}
	if o.Start != nil {
		o.Start(ix, full)
	}
	seenCursors := map[string]bool{}
	var syncErr error
	for {
		if res.Pages >= maxPages {
			syncErr = fmt.Errorf("registry %s: stopped after %d pages (%d servers): a registry this large is not supported", ix.Registry, res.Pages, res.Seen)
			break
		}
		page, err := c.List(ctx, opts)
		if err != nil {
			syncErr = err
			break
		}
		res.Pages++
		for i := range page.Servers {
			r := &page.Servers[i]
			res.Seen++
			m := r.Official()
			if m.IsLatest != nil && !*m.IsLatest {
				continue
			}
			name := r.Server.Name
			if name == "" {
				continue
			}
			if t, err := time.Parse(time.RFC3339Nano, m.UpdatedAt); err == nil && t.After(newest) {
				newest = t
			}
			listed[name] = true
			at, had := byName[name]
			if m.Status == StatusDeleted {
				if had {
					res.Changes = append(res.Changes, StatusChange{Name: name, Version: r.Server.Version, Status: StatusDeleted, Message: m.StatusMessage})
					entries[at].Server.Name = "" // dropped below
					delete(byName, name)
					res.Removed++
				}
				continue
			}
			e := entryOf(r, ix.Registry)
			if e.Deprecated() && (!had || !entries[at].Deprecated()) {
				res.Deprecated++
				res.Changes = append(res.Changes, StatusChange{Name: name, Version: e.Server.Version, Status: StatusDeprecated, Message: e.StatusMessage})
			}
			if had {
				entries[at] = e
				res.Updated++
			} else {
				byName[name] = len(entries)
				entries = append(entries, e)
				res.Added++
			}
		}
		if o.Progress != nil {
			o.Progress(res.Pages, res.Seen)
		}
		next := page.Metadata.NextCursor
		if next == "" || len(page.Servers) == 0 {
			break
		}
		if seenCursors[next] {
			syncErr = fmt.Errorf("registry %s: the cursor %q came back twice: stopped (the registry's pagination is broken)", ix.Registry, next)
			break
		}
		seenCursors[next] = true
		opts.Cursor = next
	}
	if full && syncErr == nil {
		// What a full listing no longer has is gone (the snapshot's
		// entries included: they were only a stand-in).
		for i := range entries {
			if n := entries[i].Server.Name; n != "" && !listed[n] {
				entries[i].Server.Name = ""
				res.Removed++
			}
		}
	}
	kept := entries[:0:0]
	for _, e := range entries {
		if e.Server.Name != "" {
			kept = append(kept, e)
		}
	}
	sort.SliceStable(kept, func(i, j int) bool { return kept[i].Server.Name < kept[j].Server.Name })
	ix.Entries = kept
	if syncErr != nil {
		return res, syncErr
	}
	ix.Since = newest
	ix.Snapshot = false
	ix.SyncedAt = now().UTC()
	return res, nil
}
