//lint:file-ignore SA1019 the servers' log messages (logging, deprecated by SEP-2577 and still functional) are what this file carries to the apps and the Logs

package gateway

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Resource subscriptions and log messages fan in from every server to the
// apps (issue 30 §4). An app's resources/subscribe (or, in the 2026-07-28
// era, the resourceSubscriptions of its subscriptions/listen, which the
// go-sdk's server turns into the same handler) goes to the server that owns
// the URI, once per server and URI however many apps subscribe: the
// gateway counts the apps' sessions and unsubscribes when the last one
// unsubscribes or goes away. A server's notifications/resources/updated
// reaches each session that subscribed to that URI, under the URI the app
// sees (ui://SERVER/REST for a server's ui://REST). A server's
// notifications/message reaches every session that sees the server, at the
// level the session set with logging/setLevel, with logger naming the
// server; the host's client of the server asks it for the lowest level any
// of those sessions asked (SetLogLevel).

// Subscriber is a [Backend] that carries resource subscriptions and log
// levels to the servers; the host's does. Every method is safe for
// concurrent use.
type Subscriber interface {
	// Subscribe asks server for notifications/resources/updated of uri
	// (the server's own URI); the gateway calls it once per server and
	// URI, and Unsubscribe when no app wants it any more.
	Subscribe(ctx context.Context, server, uri string) error
	Unsubscribe(ctx context.Context, server, uri string) error
	// SetLogLevel tells which level the apps that see server asked for
	// ("": none asked).
	SetLogLevel(server string, level mcp.LoggingLevel)
}

// subKey is one subscription at a server: its name and its own URI.
type subKey struct{ server, uri string }

// fanIn holds the sessions' subscriptions and log levels.
type fanIn struct {
	op sync.Mutex // serializes the backend's Subscribe and Unsubscribe with the counts

	mu sync.Mutex
	// sessions are the subscriptions of each session, by the URI it
	// subscribed to (as the app sees it).
	sessions map[*mcp.ServerSession]map[string]subKey
	count    map[subKey]int
	// levels are the log levels the sessions set, with their facade.
	levels map[*mcp.ServerSession]sessionLevel
	// asked is the level last told to the backend, by server.
	asked map[string]mcp.LoggingLevel
	// watched are the sessions whose end is awaited.
	watched map[*mcp.ServerSession]bool

	logs chan serverLog // the log messages to deliver, in order
}

type sessionLevel struct {
	f     *facade
	level mcp.LoggingLevel
}

type serverLog struct {
	server string
	p      *mcp.LoggingMessageParams
}

func newFanIn() *fanIn {
	return &fanIn{sessions: map[*mcp.ServerSession]map[string]subKey{}, count: map[subKey]int{},
		levels: map[*mcp.ServerSession]sessionLevel{}, asked: map[string]mcp.LoggingLevel{},
		watched: map[*mcp.ServerSession]bool{}, logs: make(chan serverLog, 1024)}
}

// logLevels are MCP's levels, lowest first.
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// levelRank is a level's place in logLevels (-1: unknown).
func levelRank(l mcp.LoggingLevel) int { return slices.Index(logLevels, l) }

// ownerOf finds the server that owns uri, as a client of f names it: a
// listed resource, else a resource template that matches it (one server's
// only). uri is the server's own URI.
func (f *facade) ownerOf(uri string) (server, own string, err error) {
	v := f.g.current()
	if e := v.resources[uri]; e != nil && f.cur().SeesServer(e.server) {
		return e.server, e.name, nil
	}
	var owners []string
	for _, e := range v.allTemplates {
		if e.match != nil && f.cur().SeesServer(e.server) && e.match.MatchString(uri) && !slices.Contains(owners, e.server) {
			owners = append(owners, e.server)
		}
	}
	switch len(owners) {
	case 1:
		return owners[0], ownURI(owners[0], uri), nil
	case 0:
		return "", "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource %q: no server this client sees lists it or a template it matches", uri)}
	}
	return "", "", &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
		"resource %q matches the resource templates of Switchboard servers %q: the gateway subscribes to neither", uri, owners)}
}

// subscribe is the facade's SubscribeHandler.
func (f *facade) subscribe(ctx context.Context, r *mcp.SubscribeRequest) error {
	sb, ok := f.g.backend.(Subscriber)
	if !ok {
		return &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "this gateway carries no resource subscriptions"}
	}
	server, own, err := f.ownerOf(r.Params.URI)
	if err != nil {
		// A server still starting for the first time may list it: as
		// a first list does, wait for those the client sees.
		f.g.waitStarted(ctx, f.cur())
		if server, own, err = f.ownerOf(r.Params.URI); err != nil {
			return err
		}
	}
	if st := f.g.current().servers[server]; st != nil && st.State == hostapi.StateRunning && st.Cached && !st.Subscribe {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"Switchboard server %q does not offer resource subscriptions (it does not advertise resources.subscribe)", server)}
	}
	fi := f.g.fan
	fi.op.Lock()
	defer fi.op.Unlock()
	key := subKey{server, own}
	fi.mu.Lock()
	held := fi.sessions[r.Session]
	if _, dup := held[r.Params.URI]; dup {
		fi.mu.Unlock()
		return nil
	}
	first := fi.count[key] == 0
	fi.mu.Unlock()
	if first {
		if err := sb.Subscribe(ctx, server, own); err != nil {
			return f.g.rpcError(ctx, err)
		}
	}
	fi.mu.Lock()
	if fi.sessions[r.Session] == nil {
		fi.sessions[r.Session] = map[string]subKey{}
	}
	fi.sessions[r.Session][r.Params.URI] = key
	fi.count[key]++
	fi.mu.Unlock()
	f.g.watch(r.Session)
	return nil
}

// unsubscribe is the facade's UnsubscribeHandler.
func (f *facade) unsubscribe(ctx context.Context, r *mcp.UnsubscribeRequest) error {
	f.g.release(ctx, r.Session, r.Params.URI)
	return nil
}

// release drops session ss's subscription to uri ("": all of them),
// unsubscribing at a server that no session wants any more.
func (g *Gateway) release(ctx context.Context, ss *mcp.ServerSession, uri string) {
	fi := g.fan
	fi.op.Lock()
	defer fi.op.Unlock()
	var last []subKey
	fi.mu.Lock()
	for u, key := range fi.sessions[ss] {
		if uri != "" && u != uri {
			continue
		}
		delete(fi.sessions[ss], u)
		if fi.count[key]--; fi.count[key] <= 0 {
			delete(fi.count, key)
			last = append(last, key)
		}
	}
	if len(fi.sessions[ss]) == 0 {
		delete(fi.sessions, ss)
	}
	fi.mu.Unlock()
	sb, ok := g.backend.(Subscriber)
	if !ok {
		return
	}
	for _, key := range last {
		if err := sb.Unsubscribe(ctx, key.server, key.uri); err != nil {
			g.log.Debug("unsubscribing from a resource failed", "server", key.server, "uri", key.uri, "error", err)
		}
	}
}

// watch forgets a session's subscriptions and log level when it ends.
func (g *Gateway) watch(ss *mcp.ServerSession) {
	fi := g.fan
	fi.mu.Lock()
	if fi.watched[ss] {
		fi.mu.Unlock()
		return
	}
	fi.watched[ss] = true
	fi.mu.Unlock()
	go func() {
		_ = ss.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		g.release(ctx, ss, "")
		fi.mu.Lock()
		delete(fi.watched, ss)
		_, had := fi.levels[ss]
		delete(fi.levels, ss)
		fi.mu.Unlock()
		if had {
			g.askLevels()
		}
	}()
}

// ResourceUpdated delivers a server's notifications/resources/updated of
// its own uri to the sessions that subscribed to it, under the URI they
// see. The host calls it from the server's session.
func (g *Gateway) ResourceUpdated(server, uri string) {
	exposed := exposedURI(server, uri)
	key := subKey{server, uri}
	fi := g.fan
	fi.mu.Lock()
	var fs []*facade
	for f := range g.facadesNow() {
		for ss := range f.srv.Sessions() {
			if fi.sessions[ss][exposed] == key {
				fs = append(fs, f)
				break
			}
		}
	}
	fi.mu.Unlock()
	for _, f := range fs {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = f.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: exposed})
		cancel()
	}
}

// facadesNow returns the facades at this moment.
func (g *Gateway) facadesNow() map[*facade]struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make(map[*facade]struct{}, len(g.facades))
	for f := range g.facades {
		out[f] = struct{}{}
	}
	return out
}

// ServerLog delivers a server's notifications/message to the sessions
// that see the server, each at the level it set (none: nothing), with
// logger naming the server (SERVER, or SERVER/LOGGER when the server
// named one). It never blocks: the messages wait in a queue of their own
// (1,024; more are dropped, as a slow app must not hold up the server).
func (g *Gateway) ServerLog(server string, p *mcp.LoggingMessageParams) {
	select {
	case g.fan.logs <- serverLog{server, p}:
	default:
	}
}

// logLoop delivers the queued log messages until the gateway stops.
func (g *Gateway) logLoop() {
	for {
		select {
		case m := <-g.fan.logs:
			g.deliverLog(m)
		case <-g.stop:
			return
		}
	}
}

func (g *Gateway) deliverLog(m serverLog) {
	logger := m.server
	if m.p.Logger != "" {
		logger += "/" + m.p.Logger
	}
	out := &mcp.LoggingMessageParams{Meta: userMeta(m.p.Meta), Level: m.p.Level, Logger: logger, Data: m.p.Data}
	for f := range g.facadesNow() {
		if !f.cur().SeesServer(m.server) {
			continue
		}
		for ss := range f.srv.Sessions() {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = ss.Log(ctx, out) // the go-sdk drops what is below the session's level
			cancel()
		}
	}
}

// setLevel records the level session ss of f asked for (logging/setLevel).
func (f *facade) setLevel(ss *mcp.ServerSession, level mcp.LoggingLevel) {
	fi := f.g.fan
	fi.mu.Lock()
	fi.levels[ss] = sessionLevel{f: f, level: level}
	fi.mu.Unlock()
	f.g.watch(ss)
	f.g.askLevels()
}

// askLevels tells the backend, for every server whose wanted level
// changed, the lowest level that a session seeing it asked for.
func (g *Gateway) askLevels() {
	sb, ok := g.backend.(Subscriber)
	if !ok {
		return
	}
	fi := g.fan
	fi.mu.Lock()
	if len(fi.levels) == 0 && len(fi.asked) == 0 {
		fi.mu.Unlock()
		return
	}
	want := map[string]mcp.LoggingLevel{}
	for name := range g.current().servers {
		for _, sl := range fi.levels {
			if !sl.f.cur().SeesServer(name) {
				continue
			}
			if w, ok := want[name]; !ok || levelRank(sl.level) < levelRank(w) {
				want[name] = sl.level
			}
		}
	}
	type ask struct {
		server string
		level  mcp.LoggingLevel
	}
	var asks []ask
	for name, l := range want {
		if fi.asked[name] != l {
			fi.asked[name] = l
			asks = append(asks, ask{name, l})
		}
	}
	for name := range fi.asked {
		if _, ok := want[name]; !ok {
			delete(fi.asked, name)
			asks = append(asks, ask{name, ""})
		}
	}
	fi.mu.Unlock()
	for _, a := range asks {
		sb.SetLogLevel(a.server, a.level)
	}
}
