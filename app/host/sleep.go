package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// Servers that sleep (issue 15 §4, docs/sleep.md): an on-demand entry
// ("start": "on-demand") is not run until a call needs it. While it
// sleeps the gateway lists what it listed last, from a cache kept on disk
// (lists/NAME.json in the host's state directory) and keyed by the
// entry's fingerprint; a call wakes it, and idleStop after its last call
// it is stopped with the normal ladder and sleeps again.

// ListsDir is the folder of the list caches in the host's state
// directory.
const ListsDir = "lists"

// listCacheVersion is the cache file's format; a file of another version
// is no cache.
const listCacheVersion = 1

// listCache is what an on-demand server listed, as saved after each
// successful list of a run.
type listCache struct {
	Version int `json:"version"`
	// Key is the entry's cache key (cacheKey): a cache of another
	// version of the entry is no cache.
	Key   string    `json:"key"`
	Saved time.Time `json:"saved"`
	// Protocol is the protocol version of the run that listed.
	Protocol string `json:"protocolVersion,omitempty"`
	// TTLMs is the smallest ttlMs the lists gave (2026-07-28 servers);
	// nil when the server gave none (an older protocol): the cache is good
	// until the entry changes.
	TTLMs *int `json:"ttlMs,omitempty"`
	// Scope is the strictest cacheScope the lists gave ("private" over
	// "public"); recorded, not acted on: the cache is the user's own.
	Scope       string                  `json:"cacheScope,omitempty"`
	Completions bool                    `json:"completions,omitempty"`
	Tools       []*mcp.Tool             `json:"tools"`
	Prompts     []*mcp.Prompt           `json:"prompts"`
	Resources   []*mcp.Resource         `json:"resources"`
	Templates   []*mcp.ResourceTemplate `json:"resourceTemplates"`
}

// stale reports whether the server's ttlMs has passed (a ttlMs of 0 is
// stale at once, as the protocol says): the cache is still served, but
// the server is started once at the host's start (or when its entry is
// applied) to refresh it.
func (c *listCache) stale(now time.Time) bool {
	return c.TTLMs != nil && !now.Before(c.Saved.Add(time.Duration(*c.TTLMs)*time.Millisecond))
}

// cacheKey is the key of an entry's lists: a hash of its fingerprint,
// which is its engine spec (the name, command, args, cwd, env names and
// values as written, so secret references by name and never their values,
// inheritEnv, stderr and the numeric options the engine reads). start,
// idleStop, callTimeout, tools and trust are not in it: they change what
// the host does around the server, not what the server lists.
func cacheKey(c ServerConfig) string {
	sum := sha256.Sum256([]byte(c.Fingerprint))
	return hex.EncodeToString(sum[:])
}

// cachePath is the file of a server's cache, "" without a lists
// directory.
func (s *server) cachePath(name string) string {
	if s.reg.listsDir == "" {
		return ""
	}
	return filepath.Join(s.reg.listsDir, name+".json")
}

// loadCache reads the cache of c, or nil: none, of another version of
// the entry, or unreadable (then the server is started once to learn its
// lists again).
func (s *server) loadCache(c ServerConfig) *listCache {
	p := s.cachePath(c.Name)
	if p == "" {
		return nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		if !os.IsNotExist(err) {
			s.reg.log.Warn("the list cache of an on-demand server cannot be read; it is started to list again", "server", c.Name, "error", err)
		}
		return nil
	}
	var lc listCache
	if err := json.Unmarshal(b, &lc); err != nil {
		s.reg.log.Warn("the list cache of an on-demand server is damaged; it is started to list again", "server", c.Name, "path", p, "error", err)
		return nil
	}
	if lc.Version != listCacheVersion || lc.Key != cacheKey(c) {
		return nil
	}
	return &lc
}

// saveCache writes lc for the server name: atomically (a temporary file
// renamed over it), mode 0600. A failure is logged; the server then
// simply learns its lists again at the next start.
func (s *server) saveCache(name string, lc *listCache) {
	p := s.cachePath(name)
	if p == "" {
		return
	}
	if err := writeAtomic(p, lc); err != nil {
		s.reg.log.Warn("the list cache of an on-demand server cannot be saved; it is started at the next host start to list again", "server", name, "error", err)
	}
}

func writeAtomic(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a successful rename, there is nothing to remove
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// cacheInfo gathers the cache fields of a run's list results.
type cacheInfo struct {
	ttl   *int
	scope string
}

func (ci *cacheInfo) add(c mcp.Cacheable) {
	if ci.ttl == nil || c.TTLMs < *ci.ttl {
		t := max(c.TTLMs, 0)
		ci.ttl = &t
	}
	if c.CacheScope == "private" || ci.scope == "" {
		ci.scope = c.CacheScope
	}
}

// listPages reads every page of one list, adding each page's cache fields
// to ci (nil: the session's protocol has none).
func listPages[T any](ctx context.Context, ci *cacheInfo, get func(ctx context.Context, cursor string) ([]T, string, mcp.Cacheable, error)) ([]T, error) {
	var out []T
	cursor := ""
	for range 10000 {
		items, next, c, err := get(ctx, cursor)
		if err != nil {
			return out, err
		}
		out = append(out, items...)
		if ci != nil {
			ci.add(c)
		}
		if next == "" || next == cursor {
			return out, nil
		}
		cursor = next
	}
	return out, fmt.Errorf("more than 10000 pages")
}

// sleeping reports whether s sleeps: on demand, neither disabled nor
// stopped by the user, not running, and with lists to serve.
func (s *server) sleeping() bool {
	if s.sup == nil {
		return false
	}
	st := s.sup.Status().State
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	return asleep(st, s.cfg.OnDemand, s.cfg.Disabled, s.userStopped, s.slept != nil)
}

// wake starts a sleeping server for a call and reports whether it slept.
func (s *server) wake() bool {
	if !s.sleeping() {
		return false
	}
	s.reg.log.Info("waking an on-demand server for a call", "server", s.name())
	s.sup.Start()
	return true
}

// busy counts a request to s from its start (before any wait) to its end:
// a server with a request in flight is never stopped idle. The returned
// function ends it; it may be called more than once.
func (s *server) busy() func() {
	s.cacheMu.Lock()
	s.inflight++
	if s.idle != nil {
		s.idle.Stop()
	}
	s.cacheMu.Unlock()
	var done bool
	return func() {
		s.cacheMu.Lock()
		if done {
			s.cacheMu.Unlock()
			return
		}
		done = true
		s.inflight--
		s.cacheMu.Unlock()
		s.armIdle(0)
	}
}

// armIdle (re)starts the idle timer of an on-demand server that runs with
// no request in flight: after d (0: its idleStop) it is stopped and
// sleeps. It does nothing for an "always" server.
func (s *server) armIdle(d time.Duration) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if s.idle != nil {
		s.idle.Stop()
	}
	if !s.cfg.OnDemand || s.inflight > 0 {
		return
	}
	if d <= 0 {
		d = s.cfg.IdleStop
	}
	if d <= 0 {
		d = 10 * time.Minute
	}
	s.idle = time.AfterFunc(d, s.idleStop)
}

// idleStop stops an on-demand server that is still idle.
func (s *server) idleStop() {
	m := s.reg
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closing || m.servers[s.name()] != s || s.sup == nil {
		return
	}
	switch s.sup.Status().State {
	case supervisor.Running, supervisor.Starting, supervisor.Backoff:
	default:
		return
	}
	// The check and the stop are one step for busy, which counts a
	// request under the same lock: a request that comes after it finds
	// the server idling (live ignores its session) and waits to wake it
	// once it has stopped. (Stop only cancels the run: it calls back
	// nothing under this lock.)
	s.cacheMu.Lock()
	ok := s.cfg.OnDemand && s.inflight == 0 && !s.userStopped && !s.cfg.Disabled && s.slept != nil
	if ok {
		s.idling = true
		s.sup.Stop()
	}
	name := s.cfg.Name
	s.cacheMu.Unlock()
	if !ok {
		return
	}
	m.log.Info("stopped an idle on-demand server; it sleeps until its next call", "server", name)
	s.publishState()
}

// live is the session a new request of s goes to: sup's live session,
// unless s's idle stop has begun (the request then waits, and wakes it).
func live(s *server, sup *supervisor.Supervisor) *mcp.ClientSession {
	s.cacheMu.Lock()
	idling := s.idling
	s.cacheMu.Unlock()
	if idling {
		return nil
	}
	return liveSession(sup)
}

// startTimeout bounds a wake: the probe and handshake timeouts of the
// entry (the engine's defaults filled in).
func startTimeout(s *server) time.Duration {
	c, _ := s.config()
	spec := c.Spec
	_ = spec.Check()
	return spec.ProbeTimeout + spec.HandshakeTimeout
}

// holdTime is how long a request waits for s to have a session: an
// on-demand server's start timeout (its requests wait for a wake), else
// holdFor (a restart).
func holdTime(s *server) time.Duration {
	h := time.Duration(holdFor.Load())
	if c, _ := s.config(); c.OnDemand {
		h = max(h, startTimeout(s))
	}
	return h
}

// mustStart reports whether a server that is to run starts now: an
// "always" one does; an on-demand one only to learn its lists (it has none
// under this entry, or the server's ttlMs has passed), and it sleeps
// once they are saved.
func (s *server) mustStart(c ServerConfig) bool {
	if !c.OnDemand {
		return true
	}
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if s.slept != nil && !s.slept.stale(time.Now()) {
		return false
	}
	s.learning = true
	return true
}

// startModeChanged applies a change of start or idleStop alone (the
// entry's fingerprint is the same): nothing restarts. A server made
// "always" that sleeps is started; one made on-demand that runs keeps
// running until it is idle (its lists become its cache), and a new
// idleStop counts from now.
func (s *server) startModeChanged(c ServerConfig, userStopped bool) {
	if !c.OnDemand {
		s.cacheMu.Lock()
		if s.idle != nil {
			s.idle.Stop()
		}
		s.cacheMu.Unlock()
		if !userStopped && !c.Disabled && s.sup.Status().State == supervisor.Stopped {
			s.sup.Start()
		}
		return
	}
	s.cacheMu.Lock()
	lc := s.slept
	s.cacheMu.Unlock()
	if lc != nil {
		s.saveCache(c.Name, lc)
	}
	switch s.sup.Status().State {
	case supervisor.Running, supervisor.Starting, supervisor.Backoff:
		s.armIdle(0)
	}
}

// listsDir is the folder of the list caches under the host's state
// directory, "" without one.
func listsDir(stateDir string) string {
	if stateDir == "" {
		return ""
	}
	return filepath.Join(stateDir, ListsDir)
}
