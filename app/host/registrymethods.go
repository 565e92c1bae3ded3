package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// The registry's methods (docs/registry.md, "In the window"): search and
// show read the registries' local indexes and the built-in catalog, never
// the network; add is app/install's Add over the host's own config
// changes and keyring.

// registryCache is the search index of the indexes last loaded, kept
// while their files and the config's registries are unchanged (building
// it for 10,000 entries takes up to a second).
type registryCache struct {
	mu       sync.Mutex
	key      string
	entries  []registry.Entry
	ixs      []*registry.Index
	searcher *registry.Searcher
}

// registryIndexes loads the indexes of the config's registries from
// <state>/registry: the one place the host reads them (a background sync
// writes the same files). With no state directory, every registry reads
// as never synced (the official one as the built-in snapshot).
func (h *Host) registryIndexes() ([]*registry.Index, error) {
	h.mu.Lock()
	f := h.file
	h.mu.Unlock()
	if f == nil {
		f = config.New()
	}
	regs, err := f.Registries()
	if err != nil {
		return nil, fmt.Errorf("the config's registries: %w", err)
	}
	dir := ""
	if h.opts.StateDir != "" {
		dir = registry.Dir(h.opts.StateDir)
	}
	var out []*registry.Index
	for _, r := range regs {
		ix, err := registry.Load(dir, r.Name, r.URL)
		if err != nil {
			return nil, err
		}
		out = append(out, ix)
	}
	return out, nil
}

// registryKey says what the cache was built from: each registry's name,
// URL and its index file's size and time.
func (h *Host) registryKey() string {
	h.mu.Lock()
	f := h.file
	h.mu.Unlock()
	if f == nil {
		return ""
	}
	regs, _ := f.Registries()
	var b strings.Builder
	for _, r := range regs {
		fmt.Fprintf(&b, "%s %s", r.Name, r.URL)
		if h.opts.StateDir != "" {
			if fi, err := os.Stat(registry.Path(registry.Dir(h.opts.StateDir), r.Name)); err == nil {
				fmt.Fprintf(&b, " %d %d", fi.Size(), fi.ModTime().UnixNano())
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// registrySearcher is the search index of every index's entries and the
// catalog's, built again when an index or the registries changed.
func (h *Host) registrySearcher() (*registry.Searcher, []registry.Entry, []*registry.Index, error) {
	c := &h.regSearch
	c.mu.Lock()
	defer c.mu.Unlock()
	key := h.registryKey()
	if c.searcher != nil && key == c.key {
		return c.searcher, c.entries, c.ixs, nil
	}
	ixs, err := h.registryIndexes()
	if err != nil {
		return nil, nil, nil, err
	}
	var all []registry.Entry
	for _, ix := range ixs {
		all = append(all, ix.Entries...)
	}
	all = append(all, registry.CatalogEntries()...)
	c.key, c.entries, c.ixs, c.searcher = key, all, ixs, registry.NewSearcher(all)
	return c.searcher, all, ixs, nil
}

// serversLookPath resolves a command as a server's would be: in the PATH
// the host gives servers.
func (h *Host) serversLookPath(cmd string) (string, error) {
	l, err := engine.Resolve(&engine.Spec{Name: cmd, Command: cmd}, h.path)
	if err != nil {
		return "", err
	}
	return l.Path, nil
}

func (h *Host) registrySearch(_ context.Context, _ *api.ConnInfo, p hostapi.RegistrySearchParams) (hostapi.RegistrySearchResult, error) {
	q := strings.TrimSpace(p.Query)
	if q == "" {
		return hostapi.RegistrySearchResult{}, api.Errorf(api.CodeBadRequest, "%s needs a query: what the server is for, or its name", hostapi.MethodRegistrySearch.Name)
	}
	limit := p.Limit
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 200)
	s, _, ixs, err := h.registrySearcher()
	if err != nil {
		return hostapi.RegistrySearchResult{}, err
	}
	res := hostapi.RegistrySearchResult{Results: []hostapi.RegistryResult{}, Entries: s.Len()}
	for _, hit := range s.Search(q, limit) {
		en := hit.Entry
		r := hostapi.RegistryResult{Name: en.Server.Name, Registry: en.Registry, Title: en.Server.Title, Description: en.Server.Description,
			Version: en.Server.Version, Status: en.Status, StatusMessage: en.StatusMessage, Remote: len(en.Server.Remotes) > 0, Score: hit.Score}
		if r.Status == "" {
			r.Status = registry.StatusActive
		}
		for _, pk := range en.Server.Packages {
			r.Packages = append(r.Packages, pk.RegistryType+":"+pk.Identifier)
		}
		r.Runnable, r.Why = runnable(en)
		res.Results = append(res.Results, r)
	}
	for _, ix := range ixs {
		switch {
		case ix.Snapshot && len(ix.Entries) > 0:
			res.Notes = append(res.Notes, ix.Registry+": the snapshot built into Switchboard, never synced ('switchboard registry sync' reads the registry's current entries)")
		case ix.Snapshot:
			res.Notes = append(res.Notes, ix.Registry+": never synced ('switchboard registry sync "+ix.Registry+"' reads it)")
		}
	}
	return res, nil
}

// runnable says whether Switchboard can run one of the entry's packages
// or remotes, and if not why.
func runnable(en *registry.Entry) (bool, string) {
	c := registry.MakeCard(en, nil, time.Time{})
	var whys []string
	for _, p := range c.Packages {
		switch {
		case p.Argv == nil:
			whys = append(whys, p.Unsupported)
		case p.Transport != "stdio":
			whys = append(whys, "its package serves "+p.Transport+" itself")
		default:
			return true, ""
		}
	}
	for _, r := range c.Remotes {
		if r.Type == "streamable-http" || r.Type == "sse" {
			return true, ""
		}
		whys = append(whys, "its remote's transport "+r.Type+" is neither streamable-http nor sse")
	}
	if len(whys) == 0 {
		return false, "it has no package and no remote"
	}
	return false, strings.Join(whys, "; ")
}

// findRegistryEntry is the one entry that name (a full name, or the part
// after the namespace) names, in the registry only when it is not "".
func (h *Host) findRegistryEntry(name, only string) (*registry.Entry, error) {
	if name == "" {
		return nil, api.Errorf(api.CodeBadRequest, "give the registry entry's name")
	}
	_, all, _, err := h.registrySearcher()
	if err != nil {
		return nil, err
	}
	if only != "" {
		var kept []registry.Entry
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
		return nil, &hostapi.Error{Code: hostapi.CodeNotFound, Message: fmt.Sprintf("no server named %q in the registries' indexes: search finds names ('switchboard registry sync' refreshes the indexes)", name)}
	case len(found) > 1:
		var names []string
		for _, f := range found {
			names = append(names, f.Registry+": "+f.Server.Name)
		}
		return nil, api.Errorf(api.CodeBadRequest, "%q names %d servers: give the whole name, or the registry (%s)", name, len(found), strings.Join(names, "; "))
	}
	en := *found[0] // a copy: the cache's entries are shared
	return &en, nil
}

func (h *Host) registryShow(_ context.Context, _ *api.ConnInfo, p hostapi.RegistryShowParams) (hostapi.RegistryShowResult, error) {
	en, err := h.findRegistryEntry(p.Name, p.Registry)
	if err != nil {
		return hostapi.RegistryShowResult{}, err
	}
	b, err := json.Marshal(registry.MakeCard(en, h.serversLookPath, time.Now()))
	return hostapi.RegistryShowResult{Card: b}, err
}

// entryAt is the entry at version: en itself when it is the indexed
// version, else the registry's answer for that version (the network).
func (h *Host) entryAt(ctx context.Context, en *registry.Entry, version string) (*registry.Entry, error) {
	if version == "" || version == en.Server.Version {
		return en, nil
	}
	if en.Registry == registry.CatalogRegistry {
		return nil, api.Errorf(api.CodeBadRequest, "%s is a template of the built-in catalog, at version %s only", en.Server.Name, en.Server.Version)
	}
	_, _, ixs, err := h.registrySearcher()
	if err != nil {
		return nil, err
	}
	u := ""
	for _, ix := range ixs {
		if ix.Registry == en.Registry {
			u = ix.URL
		}
	}
	c, err := registry.NewClient(u)
	if err != nil {
		return nil, err
	}
	r, err := c.Get(ctx, en.Server.Name, version)
	if err != nil {
		return nil, fmt.Errorf("version %s of %s is not in the local index (which has %s), and the registry %s could not give it: %w (add the indexed version, or try again online)",
			version, en.Server.Name, en.Server.Version, en.Registry, err)
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

func (h *Host) registryAdd(ctx context.Context, ci *api.ConnInfo, p hostapi.RegistryAddParams) (hostapi.RegistryAddResult, error) {
	en, err := h.findRegistryEntry(p.Name, p.Registry)
	if err != nil {
		return hostapi.RegistryAddResult{}, err
	}
	if en, err = h.entryAt(ctx, en, p.Version); err != nil {
		return hostapi.RegistryAddResult{}, err
	}
	if h.opts.StateDir == "" && !p.Unlocked {
		return hostapi.RegistryAddResult{}, errors.New("this host has no state directory to install packages in: add it unlocked")
	}
	environ := append(os.Environ(), "PATH="+h.path)
	added, err := install.Add(ctx, hostTarget{h, ci}, install.AddRequest{Entry: en, Local: p.Local, Values: p.Values,
		Package: p.Package, Remote: p.Remote, Unlocked: p.Unlocked, StateDir: h.opts.StateDir,
		LookPath: h.serversLookPath, NPMEnv: environ,
		Sandbox: runtime.GOOS == "linux" && sandbox.Probe().Available()}) // the sandbox its inputs imply (docs/registry.md)
	if err != nil {
		return hostapi.RegistryAddResult{}, addError(err, hidden(en, p.Values))
	}
	h.log.Info("added a registry entry", "server", added.Local, "entry", en.Server.Name, "version", en.Server.Version, "registry", en.Registry)
	res := hostapi.RegistryAddResult{Local: added.Local, Entry: en.Server.Name, Chosen: added.Setup.Chosen, Argv: added.Argv,
		Warnings: added.Warnings, Notes: added.Notes}
	if added.Setup.Package == nil {
		res.URL = added.Setup.URL
	}
	if lk := added.Locked; lk != nil && lk.Dir != "" {
		res.Locked = &hostapi.LockSummary{Package: lk.Package, Version: lk.Version, Packages: lk.Packages, Dir: lk.Dir, TreeIntegrity: lk.TreeIntegrity}
	}
	for _, s := range added.Secrets {
		res.Secrets = append(res.Secrets, s.Name)
	}
	if added.LockErr != nil {
		res.LockError = added.LockErr.Error()
	}
	if !p.NoStart && added.Locked != nil && added.Locked.Installed() {
		res.FirstStart = h.firstStart(ctx, added)
	}
	return res, nil
}

// firstStart is the first start of a locked install registry.add made
// (docs/registry.md, "First start"): started once under its sandbox,
// its tools listed (the gateway pins them as it first sees them) and
// their hashes recorded in servers.lock. A failure is said in the
// result; the server stays added.
func (h *Host) firstStart(ctx context.Context, added *install.Added) *hostapi.FirstStart {
	fs := &hostapi.FirstStart{Sandbox: "none"}
	if added.Sandbox != nil {
		fs.Sandbox = install.SandboxLine(added.Sandbox)
	}
	tools, err := install.StartInHost(ctx, mgrStarter{h}, added.Local, 2*time.Minute)
	var ft []install.FirstTool
	if err == nil {
		ft, err = install.FirstTools(tools)
	}
	if err == nil {
		err = install.RecordTools(h.opts.StateDir, added.Local, ft, time.Now())
	}
	if err != nil {
		fs.Error = err.Error()
		h.log.Warn("the first start of a server added from a registry failed", "server", added.Local, "error", err)
		return fs
	}
	for _, t := range ft {
		fs.Tools = append(fs.Tools, hostapi.FirstTool{Name: t.Name, Description: t.Description, Hints: t.Hints})
	}
	return fs
}

// mgrStarter is install.Starter over the host's own manager.
type mgrStarter struct{ h *Host }

func (s mgrStarter) Start(_ context.Context, name string) error { return s.h.mgr.StartServer(name) }
func (s mgrStarter) Tools(_ context.Context, name string) ([]*mcp.Tool, error) {
	return s.h.mgr.Tools(name)
}
func (s mgrStarter) Status(_ context.Context, name string) (hostapi.ServerStatus, error) {
	st := s.h.statusOf(name)
	if st.Name == "" {
		return st, fmt.Errorf("the host has no server %s", name)
	}
	return st, nil
}

// hidden are the values given that must not appear in an error's text:
// every value but those of inputs the card shows as not secret.
func hidden(en *registry.Entry, values map[string]string) []string {
	c := registry.MakeCard(en, nil, time.Time{})
	plain := map[string]bool{}
	mark := func(ins []registry.InputCard) {
		for _, in := range ins {
			if !in.Secret {
				plain[in.Name] = true
				plain[strings.TrimLeft(in.Name, "-")] = true
			}
		}
	}
	for _, pc := range c.Packages {
		mark(pc.Inputs)
		mark(pc.Env)
	}
	for _, rc := range c.Remotes {
		mark(rc.Headers)
		mark(rc.Variables)
	}
	var out []string
	for k, v := range values {
		if !plain[k] && v != "" {
			out = append(out, v)
		}
	}
	// The longest first: a value inside another is replaced after it.
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// addError is install.Add's error for a client: a taken name as
// already_exists with its remedy, the values' problems as bad_request
// with one problem each; secret values never in the text.
func addError(err error, secretValues []string) error {
	scrub := func(s string) string {
		for _, v := range secretValues {
			s = strings.ReplaceAll(s, v, "[secret]")
		}
		return s
	}
	var ee *install.ExistsError
	if errors.As(err, &ee) {
		msg := fmt.Sprintf("a server named %q is in the config already: give another name (or remove that server first); nothing was added", ee.Name)
		return &hostapi.Error{Code: hostapi.CodeAlreadyExists, Message: msg,
			Problems: []hostapi.Problem{{Server: ee.Name, Key: hostapi.KeyName, Message: msg, Fact: fmt.Sprintf("a server named %q is in the config already", ee.Name),
				Remedy: &hostapi.Remedy{Kind: hostapi.RemedyEdit, Server: ee.Name, Text: "give another name, or change the existing server"}}}}
	}
	var se *registry.SetupError
	if errors.As(err, &se) {
		e := &hostapi.Error{Code: hostapi.CodeBadRequest, Message: scrub(err.Error())}
		for i, p := range se.Problems {
			pr := hostapi.Problem{Message: scrub(p)}
			if i == 0 && len(se.Missing) > 0 {
				// The fact without the command line's --set remedy: a
				// form's fields are its remedy.
				pr.Fact = fmt.Sprintf("%s needs a value for %s", se.Chosen, strings.Join(se.Missing, ", "))
			}
			e.Problems = append(e.Problems, pr)
		}
		e.Message = english.Plural(len(e.Problems), "problem") + ": " + strings.Join(func() []string {
			var ms []string
			for _, p := range e.Problems {
				ms = append(ms, p.Message)
			}
			return ms
		}(), "; ")
		return e
	}
	var he *hostapi.Error
	if errors.As(err, &he) {
		return err
	}
	return errors.New(scrub(err.Error()))
}

// hostTarget is install.Add's target in the host: the config changed as
// servers.put changes it, the secrets stored as secrets.set stores them.
type hostTarget struct {
	h  *Host
	ci *api.ConnInfo
}

func (t hostTarget) Get(name string) (json.RawMessage, error) {
	r, err := t.h.getServer(context.Background(), t.ci, hostapi.NameParams{Name: name})
	return r.Entry, err
}

func (t hostTarget) Create(name string, entry json.RawMessage) error {
	return t.h.change(func(f *config.File) error { return configedit.PutServer(f, name, entry, true) })
}

func (t hostTarget) ListSecrets() ([]hostapi.SecretInfo, error) {
	t.h.mu.Lock()
	f := t.h.file
	t.h.mu.Unlock()
	return configedit.ListSecrets(t.h.opts.Secrets, f)
}

func (t hostTarget) SetSecret(name, value string) error {
	_, err := t.h.setSecret(context.Background(), t.ci, hostapi.SecretParams{Name: name, Value: value})
	return err
}

func (t hostTarget) DeleteSecret(name string) error {
	_, err := t.h.deleteSecret(context.Background(), t.ci, hostapi.SecretParams{Name: name})
	return err
}
