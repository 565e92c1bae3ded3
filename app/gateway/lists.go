package gateway

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The cache fields of the 2026-07-28 era's lists (ttlMs, cacheScope). The
// host lists each server once per session and again on its list_changed
// (app/host); a server that gave its lists a ttlMs is listed again once
// that time has passed, on the next list request of an app that sees it,
// which waits for it up to relistWait; a failed listing leaves the last
// lists served (stale). The gateway's own list results tell an app of that
// era how long they hold (lists.go: cacheable).

// Relister is a [Backend] that lists a server again on request; the
// host's does. Relist returns once the server's lists are read again (or
// that failed: the last lists stay).
type Relister interface {
	Relist(ctx context.Context, server string) error
}

// relistWait bounds how long an app's list request waits for a server's
// lists whose ttlMs passed: past it the app gets the last lists, and
// list_changed once the new ones are in.
const relistWait = 5 * time.Second

// relists runs one listing per server at a time.
type relists struct {
	mu      sync.Mutex
	running map[string]chan struct{}
}

// expired reports whether st's lists passed their ttlMs at now.
func expired(st *serverState, now time.Time) bool {
	return st.TTLMs != nil && st.State == hostapi.StateRunning && st.Cached &&
		!now.Before(st.ListedAt.Add(time.Duration(*st.TTLMs)*time.Millisecond))
}

// freshen lists again the servers f sees whose lists expired, waiting up
// to relistWait, and brings every facade up to date.
func (f *facade) freshen(ctx context.Context) {
	rl, ok := f.g.backend.(Relister)
	if !ok {
		return
	}
	now := time.Now()
	var dones []chan struct{}
	for name, st := range f.g.current().servers {
		if expired(st, now) && f.cur().SeesServer(name) {
			dones = append(dones, f.g.relist(rl, name))
		}
	}
	if len(dones) == 0 {
		return
	}
	t := time.NewTimer(relistWait)
	defer t.Stop()
	for _, d := range dones {
		select {
		case <-d:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
	f.g.rebuild()
}

// relist starts a listing of server unless one runs; the channel closes
// when it ends.
func (g *Gateway) relist(rl Relister, server string) chan struct{} {
	g.relists.mu.Lock()
	defer g.relists.mu.Unlock()
	if d := g.relists.running[server]; d != nil {
		return d
	}
	if g.relists.running == nil {
		g.relists.running = map[string]chan struct{}{}
	}
	d := make(chan struct{})
	g.relists.running[server] = d
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := rl.Relist(ctx, server); err != nil {
			g.log.Warn("listing a server again after its ttlMs failed; its last lists are served", "server", server, "error", err)
		}
		g.relists.mu.Lock()
		delete(g.relists.running, server)
		g.relists.mu.Unlock()
		close(d)
		g.Notify()
	}()
	return d
}

// cacheable sets the cache fields of the facade's list results: ttlMs is
// what is left of the shortest ttlMs of the servers the client sees that
// gave one (0, as before, when none did: the gateway's lists change when a
// server starts or stops, and list_changed says so); cacheScope is
// "private" when a server it sees said "private", "public" otherwise (as
// before, and as tools.cost counts it: cost.go's wireCache).
func (f *facade) cacheable(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
	switch req.(type) {
	case *mcp.ListToolsRequest, *mcp.ListPromptsRequest, *mcp.ListResourcesRequest, *mcp.ListResourceTemplatesRequest:
	default:
		return
	}
	ttl := -1
	private := false
	for name, st := range f.g.current().servers {
		if !f.cur().SeesServer(name) || !st.listed {
			continue
		}
		if st.CacheScope == "private" {
			private = true
		}
		if st.TTLMs != nil {
			left := max(int(time.Until(st.ListedAt.Add(time.Duration(*st.TTLMs)*time.Millisecond))/time.Millisecond), 0)
			if ttl < 0 || left < ttl {
				ttl = left
			}
		}
	}
	c.TTLMs = max(ttl, 0)
	c.CacheScope = "public"
	if private {
		c.CacheScope = "private"
	}
}
