package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/internal/accept"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// DefaultMaxMessageSize bounds a message from a socket client (the
// newline included), like the engine's default for a server's messages.
// It is the bridge's, which warns the app's log when a relayed message
// passes it.
const DefaultMaxMessageSize = bridge.MaxMessageSize

// Options configure a [Gateway].
type Options struct {
	Backend Backend
	// Version is the gateway's version in its serverInfo.
	Version string
	Logger  *slog.Logger
	// Secrets keeps the HTTP endpoint's bearer token (nil: the HTTP
	// endpoint cannot be turned on).
	Secrets *secrets.Store
	// PeerGuard, if set, refuses socket peers the uid check admits (the
	// host's sandboxed servers: api.Options.PeerGuard).
	PeerGuard func(pid int) error
	// MaxMessageSize bounds a socket client's message (default
	// DefaultMaxMessageSize).
	MaxMessageSize int
	// QueueBytes bounds the bytes waiting to be written to one socket
	// client (default 4×MaxMessageSize); a client that lets more pile up
	// is disconnected.
	QueueBytes int
	// Observe, if set, pins tool definitions (docs/trust.md): the tools
	// it does not show are hidden from every client, and a call to one
	// gets a tool error that says why.
	Observe Observer
}

// Gateway is the host's MCP endpoint: it aggregates the servers of a
// [Backend] and serves them to MCP clients over the local socket (the
// bridge) and, if turned on, Streamable HTTP on 127.0.0.1.
type Gateway struct {
	opts    Options
	backend Backend
	log     *slog.Logger
	sdkLog  *slog.Logger
	impl    *mcp.Implementation
	// implJSON is impl as JSON, for the lean path's responses.
	implJSON json.RawMessage

	view atomic.Pointer[view]

	memoMu sync.Mutex // guards memos, and serializes rebuilds
	memos  map[string]*memo

	mu        sync.Mutex
	facades   map[*facade]struct{}
	conns     map[*sockConn]struct{}
	listeners map[net.Listener]struct{}
	closed    bool
	changed   chan struct{} // capacity 1: the number of clients changed
	http      *httpEndpoint

	slowServer time.Duration // slowServerAfter when the gateway was made

	connSeq atomic.Uint64 // numbers the connections (relay.Caller.ID)

	search searchCache // search mode's indexes (search.go)
	tasks  taskTable   // the apps' tasks (tasks.go)

	fan     *fanIn  // subscriptions and log levels (subscribe.go)
	relists relists // listings after a ttlMs (lists.go)

	kick chan struct{} // capacity 1: rebuild the view
	// costs are the token counts of the listed tools and prompts,
	// counted in the background (cost.go).
	costs *costs
	stop  chan struct{}
	done  chan struct{} // the rebuild loop ended
	wg    sync.WaitGroup
}

// New returns a gateway over o.Backend with a first view of its servers.
// Call Notify whenever a server changes (its state or its lists).
func New(o Options) *Gateway {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.MaxMessageSize <= 0 {
		o.MaxMessageSize = DefaultMaxMessageSize
	}
	if o.QueueBytes <= 0 {
		o.QueueBytes = 4 * o.MaxMessageSize
	}
	g := &Gateway{
		opts: o, backend: o.Backend, log: o.Logger.With("part", "gateway"),
		impl:       &mcp.Implementation{Name: "switchboard", Title: "Switchboard", Version: o.Version},
		memos:      map[string]*memo{},
		facades:    map[*facade]struct{}{},
		conns:      map[*sockConn]struct{}{},
		listeners:  map[net.Listener]struct{}{},
		changed:    make(chan struct{}, 1),
		slowServer: slowServerAfter,
		kick:       make(chan struct{}, 1),
		costs:      newCosts(),
		fan:        newFanIn(),
		stop:       make(chan struct{}),
		done:       make(chan struct{}),
	}
	g.implJSON, _ = json.Marshal(g.impl)
	// The go-sdk logs every session at Info; only its warnings matter here.
	g.sdkLog = slog.New(minLevel{h: g.log.Handler(), min: slog.LevelWarn})
	g.rebuild()
	go g.loop()
	go g.countLoop()
	go g.logLoop()
	return g
}

// Notify tells the gateway that a server changed; it never blocks. The
// view is rebuilt (once for a burst of calls) and every client whose
// lists changed gets list_changed.
func (g *Gateway) Notify() {
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// Refresh rebuilds the view now, before it returns: the host calls it
// once its servers are applied and before it accepts clients, so that the
// first list of the first client waits for the servers still starting
// (with only Notify, that client could see the view of before they were
// added).
func (g *Gateway) Refresh() { g.rebuild() }

func (g *Gateway) loop() {
	defer close(g.done)
	for {
		select {
		case <-g.kick:
			g.rebuild()
		case <-g.stop:
			return
		}
	}
}

// rebuild makes a new view from the backend and brings every facade up
// to date.
func (g *Gateway) rebuild() {
	g.memoMu.Lock()
	v := build(g.backend.Servers(), g.memos, time.Now(), g.opts.Observe)
	old := g.view.Swap(v)
	g.memoMu.Unlock()
	if old != nil {
		close(old.next)
	}
	g.costs.kickCount()
	g.mu.Lock()
	fs := make([]*facade, 0, len(g.facades))
	for f := range g.facades {
		fs = append(fs, f)
	}
	g.mu.Unlock()
	for _, f := range fs {
		f.sync()
	}
}

// Retrust drops the pin store's verdicts on server's tools ("": every
// server's) and rebuilds the view before it returns: the host calls it
// after the user accepted or rejected a tool, so that the tools are
// observed again and every client whose list changed gets list_changed.
func (g *Gateway) Retrust(server string) {
	g.memoMu.Lock()
	for name, m := range g.memos {
		if server == "" || name == server {
			m.trust = nil
		}
	}
	g.memoMu.Unlock()
	g.rebuild()
}

// current returns the current view.
func (g *Gateway) current() *view { return g.view.Load() }

// Mapping returns how the gateway names every tool, prompt and resource it
// has seen, with what it hides and why.
func (g *Gateway) Mapping() Mapping {
	m := g.current().mapping
	return m
}

// waitStarted waits until no server that filter sees is still starting
// for the first time, each for at most its start timeout, or ctx ends.
func (g *Gateway) waitStarted(ctx context.Context, filter interface{ SeesServer(string) bool }) {
	for {
		v := g.current()
		now := time.Now()
		var wake time.Time
		for _, st := range v.servers {
			if st.pending && filter.SeesServer(st.Name) && now.Before(st.deadline) {
				if wake.IsZero() || st.deadline.Before(wake) {
					wake = st.deadline
				}
			}
		}
		if wake.IsZero() {
			return
		}
		t := time.NewTimer(time.Until(wake))
		select {
		case <-v.next:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		if ctx.Err() != nil {
			return
		}
	}
}

// protect runs an addition to a facade's go-sdk server, which panics on
// what it cannot serve (a malformed URI, schema or annotation): that item
// is left out and logged, and the rest go on.
func (g *Gateway) protect(what string, add func()) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			g.log.Warn("a server's item cannot be served through the gateway; it is left out", "item", what, "error", fmt.Sprint(r))
			ok = false
		}
	}()
	add()
	return true
}

// Clients returns the number of connected socket clients (bridges).
func (g *Gateway) Clients() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns)
}

// ClientsChanged receives a value after the number of socket clients
// changed (at most one waits); read Clients then.
func (g *Gateway) ClientsChanged() <-chan struct{} { return g.changed }

func (g *Gateway) notifyClients() {
	select {
	case g.changed <- struct{}{}:
	default:
	}
}

// ErrClosed is what Serve returns after Close.
var ErrClosed = errors.New("gateway: closed")

// Serve accepts socket clients on l until Close. Each peer is checked as
// the host's API checks its own (same user only).
func (g *Gateway) Serve(l net.Listener) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		_ = l.Close()
		return ErrClosed
	}
	g.listeners[l] = struct{}{}
	g.mu.Unlock()
	err := accept.Loop(l, g.log, g.isClosed, func(nc net.Conn) error {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.closed {
			_ = nc.Close()
			return ErrClosed
		}
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			g.serveConn(nc)
		}()
		return nil
	})
	if g.isClosed() {
		return ErrClosed
	}
	g.mu.Lock()
	delete(g.listeners, l)
	g.mu.Unlock()
	return err
}

func (g *Gateway) isClosed() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.closed
}

// Close stops the listeners and the HTTP endpoint, closes every client
// (their calls are cancelled) and waits for their goroutines.
func (g *Gateway) Close() {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return
	}
	g.closed = true
	for l := range g.listeners {
		_ = l.Close()
	}
	conns := make([]*sockConn, 0, len(g.conns))
	for c := range g.conns {
		conns = append(conns, c)
	}
	h := g.http
	g.http = nil
	g.mu.Unlock()
	if h != nil {
		h.close()
	}
	for _, c := range conns {
		c.endWith("the Switchboard host is stopping")
		_ = c.Close()
	}
	g.wg.Wait()
	close(g.stop)
	close(g.costs.stop)
	<-g.done
	<-g.costs.quit
}

func (g *Gateway) dropFacade(f *facade) {
	g.mu.Lock()
	delete(g.facades, f)
	g.mu.Unlock()
}

// minLevel drops records below min.
type minLevel struct {
	h   slog.Handler
	min slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.h.Enabled(ctx, l)
}
func (m minLevel) Handle(ctx context.Context, r slog.Record) error { return m.h.Handle(ctx, r) }
func (m minLevel) WithAttrs(as []slog.Attr) slog.Handler {
	return minLevel{h: m.h.WithAttrs(as), min: m.min}
}
func (m minLevel) WithGroup(name string) slog.Handler {
	return minLevel{h: m.h.WithGroup(name), min: m.min}
}
