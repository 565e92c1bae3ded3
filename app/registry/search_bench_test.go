package registry_test

import (
	"sort"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
)

// benchQueries are requests a person types in the search box.
var benchQueries = []string{
	"github", "postgres database", "slack messages", "search the web", "kubernetes pods",
	"send email", "read pdf files", "stripe payments", "jira tickets", "weather forecast",
	"browser automation playwright", "notes", "s3 buckets", "calendar events", "translate documents",
	"monitor alerts dashboards", "git repositories", "screenshots", "reddit posts", "memory",
}

func synthetic10k() []registry.Entry {
	docs := registrytest.Synthetic(10000)
	entries := make([]registry.Entry, len(docs))
	for i, d := range docs {
		entries[i] = registry.Entry{Server: d, Registry: "official"}
	}
	return entries
}

// BenchmarkSearch10k: one search over 10,000 registry entries (index
// built once, as the CLI and the window do per process); reports the
// p50 and p90 of the queries' times over all iterations.
func BenchmarkSearch10k(b *testing.B) {
	s := registry.NewSearcher(synthetic10k())
	var times []time.Duration
	b.ResetTimer()
	i := 0
	for b.Loop() {
		q := benchQueries[i%len(benchQueries)]
		i++
		t0 := time.Now()
		if len(s.Search(q, 20)) == 0 {
			b.Fatalf("no result for %q", q)
		}
		times = append(times, time.Since(t0))
	}
	sort.Slice(times, func(a, c int) bool { return times[a] < times[c] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[len(times)*9/10].Microseconds())/1000, "p90-ms")
}

// BenchmarkIndex10k: building the search index of 10,000 entries.
func BenchmarkIndex10k(b *testing.B) {
	entries := synthetic10k()
	registry.NewSearcher(entries[:1]) // the WordNet table, unzipped once per process
	b.ResetTimer()
	for b.Loop() {
		registry.NewSearcher(entries)
	}
}

// BenchmarkSync10k: a full sync of 10,000 servers (100 pages of 100)
// from a v0.1 registry on loopback, and saving the index; the same
// through SyncLocked (the lock, loading the previous index, saving);
// then an incremental sync after 50 servers changed. pages-only is the
// baseline: the same pages read and decoded, no index.
func BenchmarkSync10k(b *testing.B) {
	reg := registrytest.New(b)
	docs := registrytest.Synthetic(10000)
	for _, d := range docs {
		reg.Publish(d)
	}
	c, err := registry.NewClient(reg.URL)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	// The baseline: the same 100 pages read and decoded (the client's
	// List), no index kept, nothing saved.
	b.Run("pages-only", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n, opts := 0, registry.ListOptions{}
			for {
				page, err := c.List(b.Context(), opts)
				if err != nil {
					b.Fatal(err)
				}
				n += len(page.Servers)
				if page.Metadata.NextCursor == "" {
					break
				}
				opts.Cursor = page.Metadata.NextCursor
			}
			if n != len(docs) {
				b.Fatalf("%d servers", n)
			}
		}
	})
	b.Run("full", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			ix := &registry.Index{Registry: "bench", URL: reg.URL, Snapshot: true}
			res, err := registry.Sync(b.Context(), c, ix, registry.SyncOptions{})
			if err != nil || res.Added != len(docs) {
				b.Fatalf("%+v, %v", res, err)
			}
			if err := ix.Save(dir); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What 'registry sync' and the host run: under the registry's lock,
	// the index loaded (the previous run's, 10,000 entries), a full sync,
	// saved.
	b.Run("full-locked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_, res, err := registry.SyncLocked(b.Context(), c, registry.Locked{Dir: dir, Name: "bench", URL: reg.URL, Options: registry.SyncOptions{Full: true}})
			if err != nil || res.Seen != len(docs) {
				b.Fatalf("%+v, %v", res, err)
			}
		}
	})
	b.Run("incremental-50", func(b *testing.B) {
		b.ReportAllocs()
		ix := &registry.Index{Registry: "bench", URL: reg.URL, Snapshot: true}
		if _, err := registry.Sync(b.Context(), c, ix, registry.SyncOptions{}); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for b.Loop() {
			b.StopTimer()
			for i := range 50 {
				reg.SetStatus(docs[i*7].Name, registry.StatusActive, "")
			}
			b.StartTimer()
			res, err := registry.Sync(b.Context(), c, ix, registry.SyncOptions{})
			if err != nil || res.Full || res.Updated < 50 {
				b.Fatalf("%+v, %v", res, err)
			}
		}
	})
}
