// Package registrytest is a v0.1 MCP registry on loopback for tests: the
// list call with cursor pagination, updated_since, search and
// version=latest, the version call, and statuses active, deprecated and
// deleted in the official _meta, serving real server.json documents
// (servers.json: the registry repository's seed and the examples of its
// server.json reference).
package registrytest

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/registry"
)

//go:embed servers.json
var serversJSON []byte

// Documents are the real-shaped server.json documents the registry can
// serve (a fresh copy).
func Documents(t testing.TB) []registry.Server {
	var docs []registry.Server
	if err := json.Unmarshal(serversJSON, &docs); err != nil {
		t.Fatal(err)
	}
	return docs
}

// Record is one server version in the registry.
type Record struct {
	Server        registry.Server
	Status        string
	StatusMessage string
	PublishedAt   time.Time
	UpdatedAt     time.Time
	IsLatest      bool
}

// Registry is the fake registry.
type Registry struct {
	*httptest.Server
	mu       sync.Mutex
	records  []*Record
	clock    time.Time
	requests []url.Values // each list call's query
	fail     func(cursor string) bool
}

// Requests returns each list call's query so far, and forgets them.
func (r *Registry) Requests() []url.Values {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.requests
	r.requests = nil
	return out
}

// Fail makes the list calls whose cursor fail returns true for answer
// 503 (nil: none).
func (r *Registry) Fail(fail func(cursor string) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.fail = fail
}

// New starts an empty registry on loopback; the test's end stops it.
func New(t testing.TB) *Registry {
	r := &Registry{clock: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// Tick moves the registry's clock on by d and returns the new time.
func (r *Registry) Tick(d time.Duration) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock = r.clock.Add(d)
	return r.clock
}

// Publish adds a version of s (the latest: older versions lose the
// flag), published and updated now.
func (r *Registry) Publish(s registry.Server) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock = r.clock.Add(time.Second)
	for _, rec := range r.records {
		if rec.Server.Name == s.Name && rec.IsLatest {
			rec.IsLatest = false
			rec.UpdatedAt = r.clock
		}
	}
	r.records = append(r.records, &Record{Server: s, Status: registry.StatusActive, PublishedAt: r.clock, UpdatedAt: r.clock, IsLatest: true})
}

// SetStatus changes the status of every version of name, now.
func (r *Registry) SetStatus(name, status, message string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clock = r.clock.Add(time.Second)
	for _, rec := range r.records {
		if rec.Server.Name == name {
			rec.Status, rec.StatusMessage, rec.UpdatedAt = status, message, r.clock
		}
	}
}

func (r *Registry) item(rec *Record) registry.ServerResponse {
	latest := rec.IsLatest
	meta, _ := json.Marshal(registry.OfficialMeta{Status: rec.Status, StatusMessage: rec.StatusMessage,
		StatusChangedAt: rec.UpdatedAt.Format(time.RFC3339Nano),
		PublishedAt:     rec.PublishedAt.Format(time.RFC3339Nano), UpdatedAt: rec.UpdatedAt.Format(time.RFC3339Nano), IsLatest: &latest})
	return registry.ServerResponse{Server: rec.Server, Meta: map[string]json.RawMessage{registry.OfficialKey: meta}}
}

func (r *Registry) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p := req.URL.EscapedPath()
	switch {
	case p == "/v0.1/servers":
		r.list(w, req)
	case strings.HasPrefix(p, "/v0.1/servers/"):
		rest := strings.TrimPrefix(p, "/v0.1/servers/")
		nameEsc, verEsc, ok := strings.Cut(rest, "/versions/")
		name, err1 := url.PathUnescape(nameEsc)
		ver, err2 := url.PathUnescape(verEsc)
		if !ok || err1 != nil || err2 != nil {
			http.NotFound(w, req)
			return
		}
		for _, rec := range r.records {
			if rec.Server.Name == name && (ver == "latest" && rec.IsLatest || rec.Server.Version == ver) {
				writeJSON(w, r.item(rec))
				return
			}
		}
		http.Error(w, `{"title":"Not Found","status":404,"detail":"Server not found"}`, http.StatusNotFound)
	default:
		http.NotFound(w, req)
	}
}

func (r *Registry) list(w http.ResponseWriter, req *http.Request) {
	q := req.URL.Query()
	r.requests = append(r.requests, q)
	cursor := q.Get("cursor")
	if r.fail != nil && r.fail(cursor) {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	var since time.Time
	if s := q.Get("updated_since"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			http.Error(w, `{"detail":"invalid updated_since"}`, http.StatusBadRequest)
			return
		}
		since = t
	}
	limit := 30
	if l := q.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > 100 {
			http.Error(w, `{"detail":"limit must be 1 to 100"}`, http.StatusBadRequest)
			return
		}
		limit = n
	}
	// Deleted entries are listed only with updated_since (the registry's
	// include_deleted is then implied), so that a mirror can drop them.
	var match []*Record
	for _, rec := range r.records {
		if q.Get("version") == "latest" && !rec.IsLatest {
			continue
		}
		if since.IsZero() && rec.Status == registry.StatusDeleted {
			continue
		}
		if !since.IsZero() && rec.UpdatedAt.Before(since) {
			continue
		}
		if s := q.Get("search"); s != "" && !strings.Contains(strings.ToLower(rec.Server.Name+" "+rec.Server.Description), strings.ToLower(s)) {
			continue
		}
		match = append(match, rec)
	}
	sort.SliceStable(match, func(i, j int) bool { return match[i].Server.Name < match[j].Server.Name })
	start := 0
	if cursor != "" {
		// The cursor is the last name of the previous page, as the
		// official registry's is (opaque to clients).
		start = sort.Search(len(match), func(i int) bool { return match[i].Server.Name > cursor })
	}
	end := min(start+limit, len(match))
	var out registry.ServerList
	out.Servers = []registry.ServerResponse{}
	for _, rec := range match[start:end] {
		out.Servers = append(out.Servers, r.item(rec))
	}
	out.Metadata.Count = len(out.Servers)
	if end < len(match) {
		out.Metadata.NextCursor = match[end-1].Server.Name
	}
	writeJSON(w, out)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(v); err != nil {
		panic(fmt.Sprint("registrytest: ", err))
	}
}

// Synthetic returns n server.json documents shaped like the official
// registry's (names io.github.OWNER/NAME or a reverse domain, a title, a
// sentence of description, an npm, PyPI or OCI package with variables),
// made from word lists with a fixed seed: the same n, the same
// documents.
func Synthetic(n int) []registry.Server {
	services := strings.Fields(`github gitlab bitbucket slack discord notion confluence jira linear asana trello
		postgres mysql sqlite mongodb redis elasticsearch bigquery snowflake supabase firebase
		s3 gcs azure aws cloudflare vercel netlify kubernetes docker terraform ansible
		stripe paypal shopify hubspot salesforce zendesk intercom twilio sendgrid mailgun
		gmail outlook calendar drive dropbox onedrive box figma sketch miro
		youtube spotify twitter reddit hackernews arxiv wikipedia weather maps openstreetmap
		playwright puppeteer selenium browser fetch scraper rss pdf excel csv markdown
		git filesystem shell terminal ssh memory notes obsidian todoist evernote`)
	actions := strings.Fields(`search query read write manage monitor deploy analyze summarize create update list fetch sync
		automate index translate convert schedule track inspect debug test`)
	objects := strings.Fields(`issues pull-requests repositories messages channels pages databases tables records
		documents files buckets clusters pods deployments payments invoices customers orders tickets
		emails events videos playlists posts papers articles forecasts routes screenshots logs metrics
		alerts dashboards notes tasks projects contacts leads`)
	owners := strings.Fields(`acme blueocean dataforge nimbus quantum skylark ironclad vertex lumen polaris
		cascade emberlabs northwind contoso fabrikam tailspin wingtip adventure litware proseware`)
	state := uint64(0x9e3779b97f4a7c15)
	rnd := func(k int) int {
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		return int(state % uint64(k))
	}
	out := make([]registry.Server, 0, n)
	for i := range n {
		svc := services[rnd(len(services))]
		act, act2 := actions[rnd(len(actions))], actions[rnd(len(actions))]
		obj, obj2 := objects[rnd(len(objects))], objects[rnd(len(objects))]
		owner := owners[rnd(len(owners))]
		ns := "io.github." + owner
		if rnd(3) == 0 {
			ns = "com." + owner
		}
		short := fmt.Sprintf("%s-mcp-%d", svc, i)
		s := registry.Server{
			Name:        ns + "/" + short,
			Title:       strings.ToUpper(svc[:1]) + svc[1:] + " " + strings.ReplaceAll(obj, "-", " "),
			Description: fmt.Sprintf("MCP server to %s and %s %s %s in %s: %s %s through the %s API.", act, act2, svc, strings.ReplaceAll(obj, "-", " "), svc, act, strings.ReplaceAll(obj2, "-", " "), svc),
			Version:     fmt.Sprintf("%d.%d.%d", rnd(3), rnd(20), rnd(10)),
			Repository:  &registry.Repository{URL: "https://github.com/" + owner + "/" + short, Source: "github"},
		}
		env := []registry.KeyValue{{Name: strings.ToUpper(svc) + "_API_KEY", Input: registry.Input{Description: "API key for " + svc, IsRequired: true, IsSecret: true}}}
		switch rnd(3) {
		case 0:
			s.Packages = []registry.Package{{RegistryType: "npm", Identifier: "@" + owner + "/" + short, Version: s.Version, RuntimeHint: "npx", Transport: registry.Transport{Type: "stdio"}, EnvironmentVariables: env}}
		case 1:
			s.Packages = []registry.Package{{RegistryType: "pypi", Identifier: short, Version: s.Version, RuntimeHint: "uvx", Transport: registry.Transport{Type: "stdio"}, EnvironmentVariables: env}}
		default:
			s.Packages = []registry.Package{{RegistryType: "oci", Identifier: "docker.io/" + owner + "/" + short + ":" + s.Version, Transport: registry.Transport{Type: "stdio"}, EnvironmentVariables: env}}
		}
		out = append(out, s)
	}
	return out
}

// Seed writes a config at configPath that lists this registry as name
// (and no server), and syncs its index into stateDir, as a host's first
// sync would: the setup of a test of the host, the window or a journey.
func (r *Registry) Seed(t testing.TB, name, configPath, stateDir string) {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"version": 1, "mcpServers": map[string]any{},
		"registries": []map[string]string{{"name": name, "url": r.URL}}})
	if err := os.MkdirAll(filepath.Dir(configPath), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(configPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	dir := registry.Dir(stateDir)
	ix, err := registry.Load(dir, name, r.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := registry.NewClient(r.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := registry.Sync(context.Background(), c, ix, registry.SyncOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Save(dir); err != nil {
		t.Fatal(err)
	}
}
