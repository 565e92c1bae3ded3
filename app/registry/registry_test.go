package registry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
)

func names(ix *registry.Index) []string {
	var out []string
	for _, e := range ix.Entries {
		out = append(out, e.Server.Name)
	}
	return out
}

func entry(t *testing.T, ix *registry.Index, name string) *registry.Entry {
	t.Helper()
	for i := range ix.Entries {
		if ix.Entries[i].Server.Name == name {
			return &ix.Entries[i]
		}
	}
	return nil
}

// TestSync: a first sync reads every page (cursor pagination) of the
// latest versions; the index saved and loaded again is the same; a
// second sync asks only for what changed since (updated_since), takes a
// new version, keeps a deprecated entry with its message and drops a
// deleted one.
func TestSync(t *testing.T) {
	reg := registrytest.New(t)
	docs := registrytest.Documents(t)
	for _, d := range docs {
		reg.Publish(d)
	}
	c, err := registry.NewClient(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	ix, err := registry.Load(dir, "local", reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Snapshot || len(ix.Entries) != 0 {
		t.Fatalf("a registry never synced (not the official one) starts empty: %+v", ix)
	}
	res, err := registry.Sync(context.Background(), c, ix, registry.SyncOptions{PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Full || res.Pages != 4 || res.Added != len(docs) {
		t.Errorf("first sync: %+v; want full, 4 pages of 2, %d added", res, len(docs))
	}
	if len(ix.Entries) != len(docs) {
		t.Fatalf("index has %q", names(ix))
	}
	for _, q := range reg.Requests() {
		if q.Get("version") != "latest" || q.Get("updated_since") != "" || q.Get("limit") != "2" {
			t.Errorf("first sync asked %v", q)
		}
	}
	if err := ix.Save(dir); err != nil {
		t.Fatal(err)
	}
	again, err := registry.Load(dir, "local", reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names(again), names(ix)) || !again.Since.Equal(ix.Since) || again.Snapshot {
		t.Fatalf("loaded %q since %v, saved %q since %v", names(again), again.Since, names(ix), ix.Since)
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 {
		t.Errorf("the index dir holds %d files (a temporary file left?)", len(files))
	}

	// Changes: a new version, a deprecation, a deletion.
	since := ix.Since
	reg.Tick(time.Hour)
	newer := docs[0]
	newer.Version = "1.7.4"
	newer.Packages = slices.Clone(newer.Packages)
	newer.Packages[0].Version = "1.7.4"
	reg.Publish(newer)
	reg.SetStatus("io.github.example/weather-mcp", registry.StatusDeprecated, "Use io.github.example/weather-2 instead")
	reg.SetStatus("io.github.example/database-manager", registry.StatusDeleted, "malware")
	reg.Requests()
	res, err = registry.Sync(context.Background(), c, again, registry.SyncOptions{PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Full || res.Seen != 3 || res.Removed != 1 || res.Deprecated != 1 || res.Updated != 2 {
		t.Errorf("second sync: %+v; want incremental, 3 seen, 1 removed, 1 deprecated, 2 updated", res)
	}
	for _, q := range reg.Requests() {
		if q.Get("updated_since") != since.Format(time.RFC3339) {
			t.Errorf("second sync asked %v; want updated_since=%s", q, since.Format(time.RFC3339))
		}
	}
	if e := entry(t, again, "io.github.example/database-manager"); e != nil {
		t.Errorf("the deleted entry is still in the index: %+v", e)
	}
	if e := entry(t, again, "io.github.example/weather-mcp"); e == nil || !e.Deprecated() || e.StatusMessage != "Use io.github.example/weather-2 instead" {
		t.Errorf("the deprecated entry: %+v", e)
	}
	if e := entry(t, again, docs[0].Name); e == nil || e.Server.Version != "1.7.4" {
		t.Errorf("the new version: %+v", e)
	}
	if len(again.Entries) != len(docs)-1 || !again.Since.After(since) {
		t.Errorf("index after: %q since %v", names(again), again.Since)
	}
}

// TestSyncFailureKeepsProgress: a page that fails stops the sync with
// the registry's error; the pages read are kept, but Since does not move,
// so the next sync reads them again.
func TestSyncFailureKeepsProgress(t *testing.T) {
	reg := registrytest.New(t)
	for _, d := range registrytest.Documents(t) {
		reg.Publish(d)
	}
	c, _ := registry.NewClient(reg.URL)
	ix := &registry.Index{Registry: "local", URL: reg.URL, Snapshot: true}
	reg.Fail(func(cursor string) bool { return cursor != "" })
	_, err := registry.Sync(context.Background(), c, ix, registry.SyncOptions{PageSize: 3})
	var se *registry.StatusError
	if !errors.As(err, &se) || se.Code != http.StatusServiceUnavailable {
		t.Fatalf("err = %v; want the 503", err)
	}
	if len(ix.Entries) != 3 || !ix.Since.IsZero() || !ix.Snapshot {
		t.Fatalf("after a failed second page: %q since %v snapshot %v; want the first page's 3, Since zero, still a first sync", names(ix), ix.Since, ix.Snapshot)
	}
	reg.Fail(nil)
	if _, err := registry.Sync(context.Background(), c, ix, registry.SyncOptions{PageSize: 3}); err != nil || len(ix.Entries) != 7 {
		t.Fatalf("retry: %v, %q", err, names(ix))
	}
}

// TestSnapshotOffline: with no index on disk, the official registry's
// index is the built-in snapshot, which search answers from with no
// network; a first sync replaces it whole.
func TestSnapshotOffline(t *testing.T) {
	dir := t.TempDir()
	ix, err := registry.Load(dir, "official", registry.DefaultURL)
	if err != nil {
		t.Fatal(err)
	}
	if !ix.Snapshot || len(ix.Entries) < 400 {
		t.Fatalf("the official registry's first index: snapshot %v, %d entries; want the built-in snapshot", ix.Snapshot, len(ix.Entries))
	}
	if slash, _ := registry.Load(dir, "official", registry.DefaultURL+"/"); len(slash.Entries) != len(ix.Entries) {
		t.Errorf("with a trailing slash the official registry's URL has %d entries, not the snapshot's %d", len(slash.Entries), len(ix.Entries))
	}
	s := registry.NewSearcher(append(ix.Entries, registry.CatalogEntries()...))
	for q, want := range map[string]string{
		"airtable":                    "io.github.domdomegg/airtable-mcp-server",
		"read and write files":        "catalog/filesystem",
		"brave web search":            "catalog/brave-search",
		"current time in utc rfc3339": "io.github.domdomegg/time-mcp",
	} {
		hits := s.Search(q, 5)
		if !slices.ContainsFunc(hits, func(r registry.Result) bool { return strings.HasPrefix(r.Entry.Server.Name, want) }) {
			var got []string
			for _, h := range hits {
				got = append(got, h.Entry.Server.Name)
			}
			t.Errorf("search %q: %q; want %s in the top 5", q, got, want)
		}
	}

	// A first sync is full: what the registry does not list goes.
	reg := registrytest.New(t)
	reg.Publish(registrytest.Documents(t)[0])
	c, _ := registry.NewClient(reg.URL)
	ix.URL = reg.URL
	if _, err := registry.Sync(context.Background(), c, ix, registry.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(ix.Entries) != 1 || ix.Snapshot {
		t.Fatalf("after the first sync: %d entries, snapshot %v; want the registry's 1", len(ix.Entries), ix.Snapshot)
	}
}

// TestSnapshotContent: the built-in snapshot says where it came from,
// and every catalog template is in it with its pinned package.
func TestSnapshotContent(t *testing.T) {
	s, err := registry.BuiltIn()
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Sources) < 2 || s.Generated == "" {
		t.Errorf("snapshot sources %q, generated %q", s.Sources, s.Generated)
	}
	if len(s.Catalog) < 10 {
		t.Fatalf("%d catalog entries", len(s.Catalog))
	}
	for _, e := range s.Catalog {
		if len(e.Server.Packages) != 1 || e.Server.Packages[0].Version == "" {
			t.Errorf("catalog entry %s: %+v", e.Server.Name, e.Server.Packages)
		}
	}
}

// TestCheckURL: https anywhere, http only to loopback.
func TestCheckURL(t *testing.T) {
	for u, ok := range map[string]bool{
		"https://registry.modelcontextprotocol.io": true,
		"http://127.0.0.1:8080":                    true,
		"http://localhost:9":                       true,
		"http://[::1]:9":                           true,
		"http://registry.example.com":              false,
		"http://10.0.0.1":                          false,
		"file:///etc/passwd":                       false,
		"https://user:pw@registry.example.com":     false,
		"https://registry.example.com/?x=1":        false,
	} {
		if err := registry.CheckURL(u); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v", u, err)
		}
	}
}

// TestClientRefusesPlainRedirect: a registry that redirects to plain
// http elsewhere is not followed.
func TestClientRefusesPlainRedirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://registry.example.invalid/v0.1/servers", http.StatusFound)
	}))
	defer srv.Close()
	c, _ := registry.NewClient(srv.URL)
	_, err := c.List(context.Background(), registry.ListOptions{})
	if err == nil || !strings.Contains(err.Error(), "plain http") {
		t.Fatalf("err = %v; want the redirect refused as plain http", err)
	}
}

// TestClientBoundsAnswers: an answer over MaxPageBytes is not read.
func TestClientBoundsAnswers(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"servers": [`))
		chunk := []byte(strings.Repeat(" ", 1<<20))
		for range registry.MaxPageBytes>>20 + 1 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer srv.Close()
	c, _ := registry.NewClient(srv.URL)
	_, err := c.List(context.Background(), registry.ListOptions{})
	if err == nil || !strings.Contains(err.Error(), "MB") {
		t.Fatalf("err = %v; want the size refused", err)
	}
}

// TestGet: one version by name (URL-encoded), and latest.
func TestGet(t *testing.T) {
	reg := registrytest.New(t)
	docs := registrytest.Documents(t)
	reg.Publish(docs[3])
	c, _ := registry.NewClient(reg.URL)
	r, err := c.Get(context.Background(), docs[3].Name, "")
	if err != nil || r.Server.Name != docs[3].Name || r.Official().IsLatest == nil || !*r.Official().IsLatest {
		t.Fatalf("Get latest: %+v, %v", r, err)
	}
	if _, err := c.Get(context.Background(), docs[3].Name, "9.9.9"); err == nil {
		t.Fatal("Get of a version that does not exist succeeded")
	}
}
