package registry_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
)

// TestSyncLocked: while a sync of a registry holds its lock (its first
// request held at the registry), a second sync of the same registry is
// refused (ErrBusy) without a request, or with Wait waits for the first
// one's end and then runs, incrementally, from the index it saved; never
// two syncs' requests at once.
func TestSyncLocked(t *testing.T) {
	reg := registrytest.New(t)
	for _, d := range registrytest.Documents(t) {
		reg.Publish(d)
	}
	gate, held := make(chan struct{}), make(chan struct{})
	var inFlight, maxInFlight, requests atomic.Int32
	var first atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		requests.Add(1)
		if n > maxInFlight.Load() {
			maxInFlight.Store(n)
		}
		if first.CompareAndSwap(false, true) {
			close(held)
			<-gate
		}
		reg.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	var open sync.Once
	release := func() { open.Do(func() { close(gate) }) }
	t.Cleanup(release) // before front.Close: a failed test leaves no request held
	c, err := registry.NewClient(front.URL)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	l := registry.Locked{Dir: dir, Name: "local", URL: front.URL}
	type out struct {
		ix  *registry.Index
		res registry.SyncResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		ix, res, err := registry.SyncLocked(context.Background(), c, l)
		done <- out{ix, res, err}
	}()
	<-held // the first sync is in its first request, under the lock
	if _, _, err := registry.SyncLocked(context.Background(), c, l); !errors.Is(err, registry.ErrBusy) {
		t.Fatalf("a second sync while the first holds the lock: %v; want ErrBusy", err)
	}
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests: the refused sync asked the registry", n)
	}
	waiting := make(chan struct{})
	second := make(chan out, 1)
	w := l
	w.Wait, w.Waiting = true, func() { close(waiting) }
	go func() {
		ix, res, err := registry.SyncLocked(context.Background(), c, w)
		second <- out{ix, res, err}
	}()
	<-waiting
	release()
	a := <-done
	b := <-second
	if a.err != nil || b.err != nil {
		t.Fatalf("syncs: %v, %v", a.err, b.err)
	}
	if !a.res.Full || b.res.Full || len(b.ix.Entries) != len(a.ix.Entries) {
		t.Errorf("first %+v, second %+v: want a full sync, then an incremental one from the index it saved", a.res, b.res)
	}
	if m := maxInFlight.Load(); m != 1 {
		t.Errorf("%d requests at once: two syncs ran together", m)
	}
	if _, err := os.Stat(registry.LockPath(dir, "local")); err != nil {
		t.Errorf("the lock file: %v", err)
	}
}

// TestSyncChanges: a sync reports the entries newly deprecated and those
// deleted while the index had them (not a deleted entry it never had,
// nor a deprecated one again).
func TestSyncChanges(t *testing.T) {
	reg := registrytest.New(t)
	docs := registrytest.Documents(t)
	for _, d := range docs {
		reg.Publish(d)
	}
	c, err := registry.NewClient(reg.URL)
	if err != nil {
		t.Fatal(err)
	}
	ix := &registry.Index{Registry: "local", URL: reg.URL, Snapshot: true}
	if res, err := registry.Sync(context.Background(), c, ix, registry.SyncOptions{}); err != nil || len(res.Changes) != 0 {
		t.Fatalf("first sync: %+v, %v", res, err)
	}
	reg.Tick(time.Hour)
	reg.Publish(registry.Server{Name: "io.github.never/indexed", Version: "1.0.0"})
	reg.SetStatus("io.github.never/indexed", registry.StatusDeleted, "spam")
	reg.SetStatus("io.github.example/weather-mcp", registry.StatusDeprecated, "use weather-2")
	reg.SetStatus("io.github.example/database-manager", registry.StatusDeleted, "malware")
	res, err := registry.Sync(context.Background(), c, ix, registry.SyncOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []registry.StatusChange{
		{Name: "io.github.example/database-manager", Version: version(docs, "io.github.example/database-manager"), Status: registry.StatusDeleted, Message: "malware"},
		{Name: "io.github.example/weather-mcp", Version: version(docs, "io.github.example/weather-mcp"), Status: registry.StatusDeprecated, Message: "use weather-2"},
	}
	if !reflect.DeepEqual(res.Changes, want) {
		t.Errorf("changes %+v\nwant %+v", res.Changes, want)
	}
	for _, e := range ix.Entries {
		if e.Server.Name == "io.github.example/database-manager" || e.Server.Name == "io.github.never/indexed" {
			t.Errorf("a deleted entry is in the index: %+v", e)
		}
	}
	reg.Tick(time.Hour)
	reg.SetStatus("io.github.example/weather-mcp", registry.StatusDeprecated, "use weather-2, really")
	if res, err := registry.Sync(context.Background(), c, ix, registry.SyncOptions{}); err != nil || len(res.Changes) != 0 {
		t.Errorf("a deprecated entry deprecated again: %+v, %v", res, err)
	}
}

func version(docs []registry.Server, name string) string {
	for _, d := range docs {
		if d.Name == name {
			return d.Version
		}
	}
	return ""
}

// TestCompareVersions: semantic versions, a leading v, pre-releases and
// build metadata; anything else does not compare.
func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
		ok   bool
	}{
		{"1.2.3", "1.2.3", 0, true},
		{"1.2.4", "1.2.3", 1, true},
		{"1.10.0", "1.9.9", 1, true},
		{"2.0.0", "10.0.0", -1, true},
		{"v1.2.3", "1.2.3", 0, true},
		{"1.2.3+build.5", "1.2.3", 0, true},
		{"1.2.3-rc.1", "1.2.3", -1, true},
		{"1.2.3-rc.2", "1.2.3-rc.10", -1, true},
		{"1.2.3-beta", "1.2.3-alpha", 1, true},
		{"1.2.3-alpha", "1.2.3-alpha.1", -1, true},
		{"1.2.3-1", "1.2.3-alpha", -1, true},
		{"2026.8.31", "2025.12.1", 1, true},
		{"1.2", "1.2.3", 0, false},
		{"01.2.3", "1.2.3", 0, false},
		{"latest", "1.0.0", 0, false},
		{"1.2.3-", "1.2.3", 0, false},
	} {
		got, ok := registry.CompareVersions(c.a, c.b)
		if got != c.want || ok != c.ok {
			t.Errorf("CompareVersions(%q, %q) = %d, %v; want %d, %v", c.a, c.b, got, ok, c.want, c.ok)
		}
	}
}

// TestOutdated: a newer semantic version is an update when it is 3 days
// old or more; a younger one is too new and offered only with allowNew;
// an older or equal version is none; versions that are not semantic are
// newer when the index's (the latest) differs; an entry the index lacks
// is missing; the deprecated status is passed on.
func TestOutdated(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	at := func(d time.Duration) string { return now.Add(-d).Format(time.RFC3339Nano) }
	ix := &registry.Index{Registry: "official", Entries: []registry.Entry{
		{Server: registry.Server{Name: "x/old-enough", Version: "1.3.0"}, PublishedAt: at(4 * 24 * time.Hour)},
		{Server: registry.Server{Name: "x/too-new", Version: "2.0.0"}, PublishedAt: at(26 * time.Hour)},
		{Server: registry.Server{Name: "x/same", Version: "1.0.0"}, PublishedAt: at(100 * 24 * time.Hour)},
		{Server: registry.Server{Name: "x/older", Version: "0.9.0"}, PublishedAt: at(100 * 24 * time.Hour)},
		{Server: registry.Server{Name: "x/dated", Version: "2026-11-20"}, PublishedAt: at(15 * 24 * time.Hour)},
		{Server: registry.Server{Name: "x/no-date", Version: "1.1.0"}},
		{Server: registry.Server{Name: "x/deprecated", Version: "1.0.0"}, Status: registry.StatusDeprecated, StatusMessage: "use y", PublishedAt: at(9 * 24 * time.Hour)},
	}}
	installed := []registry.Installed{
		{Server: "a", Registry: "official", Entry: "x/old-enough", Version: "1.2.9"},
		{Server: "b", Registry: "official", Entry: "x/too-new", Version: "1.0.0"},
		{Server: "c", Registry: "official", Entry: "x/same", Version: "1.0.0"},
		{Server: "d", Registry: "official", Entry: "x/older", Version: "1.0.0"},
		{Server: "e", Registry: "official", Entry: "x/dated", Version: "2026-10-01"},
		{Server: "f", Registry: "official", Entry: "x/no-date", Version: "1.0.0"},
		{Server: "g", Registry: "official", Entry: "x/deprecated", Version: "1.0.0"},
		{Server: "h", Registry: "official", Entry: "x/gone", Version: "1.0.0"},
		{Server: "i", Registry: "work", Entry: "x/old-enough", Version: "1.0.0"},
	}
	idx := map[string]*registry.Index{"official": ix}
	type row struct {
		newer, tooNew, offered, missing bool
		age                             int
	}
	want := map[string]row{
		"a": {newer: true, offered: true, age: 4},
		"b": {newer: true, tooNew: true, age: 1},
		"c": {age: 100},
		"d": {age: 100},
		"e": {newer: true, offered: true, age: 15},
		"f": {newer: true, tooNew: true},
		"g": {age: 9},
		"h": {missing: true},
		"i": {missing: true},
	}
	ups := registry.Outdated(installed, idx, now, false)
	for _, u := range ups {
		got := row{u.Newer, u.TooNew, u.Offered, u.Missing, u.AgeDays}
		if got != want[u.Server] {
			t.Errorf("%s: %+v; want %+v", u.Server, got, want[u.Server])
		}
	}
	if n := registry.CountOffered(ups); n != 2 {
		t.Errorf("%d offered; want 2 (a, e)", n)
	}
	if g := ups[6]; g.Status != registry.StatusDeprecated || g.StatusMessage != "use y" || g.Latest != "1.0.0" {
		t.Errorf("deprecated: %+v", g)
	}
	if s := registry.TooNewText(ups[1]); s != "too new to offer (1 day; --allow-new)" {
		t.Errorf("TooNewText %q", s)
	}
	allowed := registry.Outdated(installed, idx, now, true)
	if n := registry.CountOffered(allowed); n != 4 {
		t.Errorf("--allow-new: %d offered; want 4 (a, b, e, f)", n)
	}
	registry.SortUpdates(allowed)
	var order []string
	for _, u := range allowed {
		order = append(order, u.Server)
	}
	if !reflect.DeepEqual(order[:4], []string{"a", "b", "e", "f"}) {
		t.Errorf("sorted: %v", order)
	}
}

// TestSearchDeprecatedLower: of two entries that match a query alike, the
// deprecated one comes after the active one (which it would lead
// otherwise), and keeps its status; one that matches much better still
// leads.
func TestSearchDeprecatedLower(t *testing.T) {
	old := registry.Entry{Server: registry.Server{Name: "io.github.a/weather", Description: "Weather forecasts for a city"},
		Status: registry.StatusDeprecated, StatusMessage: "use weather-2"}
	active := registry.Entry{Server: registry.Server{Name: "io.github.b/weather-two", Description: "Weather forecasts for a city"}}
	plain := registry.NewSearcher([]registry.Entry{{Server: old.Server}, active})
	if hits := plain.Search("weather", 2); len(hits) != 2 || hits[0].Entry.Server.Name != old.Server.Name {
		t.Fatalf("the test's premise: without its status the first entry leads: %v", hits)
	}
	s := registry.NewSearcher([]registry.Entry{old, active})
	hits := s.Search("weather", 2)
	if len(hits) != 2 || hits[0].Entry.Server.Name != active.Server.Name || !hits[1].Entry.Deprecated() || hits[1].Entry.StatusMessage != "use weather-2" {
		t.Fatalf("hits %+v, %+v", hits[0].Entry, hits[1].Entry)
	}
	if hits := s.Search("weather", 1); len(hits) != 1 || hits[0].Entry.Server.Name != active.Server.Name {
		t.Errorf("limit 1: %+v", hits)
	}
	// Much better: its name is the query, the other only says it once.
	far := registry.NewSearcher([]registry.Entry{
		{Server: registry.Server{Name: "io.github.a/postgres", Title: "Postgres", Description: "Postgres queries and Postgres schemas"}, Status: registry.StatusDeprecated},
		{Server: registry.Server{Name: "io.github.b/database-tools", Description: "Many databases, among them postgres, mysql, sqlite, oracle and more"}},
	})
	if hits := far.Search("postgres", 2); len(hits) != 2 || hits[0].Entry.Server.Name != "io.github.a/postgres" {
		t.Errorf("a deprecated entry that matches much better: %+v", hits)
	}
}
