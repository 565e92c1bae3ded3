package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/app/trust"
	"github.com/switchboard-mcp/switchboard/engine/stdio"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// The host's side of the gateway (app/gateway): the manager as its
// Backend, the wiring into Run, and the gateway.tools method.

// GatewayBackend returns the manager as the gateway's backend: a
// [gateway.RawBackend], so that the gateway's lean path relays tools/call
// to a server's connection as JSON (with ids of its own, which the go-sdk
// never uses, through the connection's tap) instead of through the
// go-sdk's client.
func (m *Manager) GatewayBackend() gateway.RawBackend {
	return m.gw
}

type gatewayBackend struct {
	m *Manager

	mu sync.Mutex
	// relays are the relays of the servers' connections: a local
	// server's *stdio.Conn, a remote one's *sessionConn (sessionconn.go).
	relays map[relay.Conn]*relay.Relay
	// sessions are the remote servers' connections, by session.
	sessions map[*mcp.ClientSession]*sessionConn

	profiles atomic.Pointer[map[string]*config.Profile] // the config's profiles (profiles.go)
}

// Servers implements [gateway.Backend].
func (b *gatewayBackend) Servers() []gateway.Server {
	m := b.m
	type pair struct {
		s   *server
		sup *supervisor.Supervisor
	}
	m.mu.Lock()
	list := make([]pair, 0, len(m.servers))
	for _, s := range m.servers {
		list = append(list, pair{s, s.sup})
	}
	m.mu.Unlock()
	out := make([]gateway.Server, 0, len(list))
	for _, p := range list {
		c, userStopped := p.s.config()
		spec := c.Spec
		_ = spec.Check() // fills in the default timeouts
		gs := gateway.Server{Name: c.Name, UserStopped: userStopped, Disabled: c.Disabled, Filter: c.Tools, Trust: trust.Mode(c.Trust),
			StartTimeout: spec.ProbeTimeout + spec.HandshakeTimeout}
		if p.sup == nil {
			gs.State, _ = PublicState(p.s.facts(nil))
			out = append(out, gs)
			continue
		}
		st := p.sup.Status()
		var why string
		gs.State, why = PublicState(p.s.facts(&st))
		gs.LastError = p.s.shownError(st.LastError, why) // as the status says it, redacted
		if gs.State == hostapi.StateSleeping {
			// Asleep (sleep.go): its lists from the cache; a call wakes it.
			p.s.cacheMu.Lock()
			if lc := p.s.slept; lc != nil {
				gs.Cached = true
				gs.Tools, gs.Prompts, gs.Resources, gs.Templates = lc.Tools, lc.Prompts, lc.Resources, lc.Templates
				gs.Completions = lc.Completions
			}
			p.s.cacheMu.Unlock()
			out = append(out, gs)
			continue
		}
		cs := p.sup.Session()
		p.s.cacheMu.Lock()
		if cs != nil && p.s.session == cs {
			gs.Cached = true
			gs.Tools, gs.Prompts, gs.Resources, gs.Templates = p.s.tools, p.s.prompts, p.s.resources, p.s.templates
			gs.ListedAt, gs.TTLMs, gs.CacheScope = p.s.listedAt, p.s.ttl, p.s.scope
		}
		p.s.cacheMu.Unlock()
		if gs.Cached {
			if ir := cs.InitializeResult(); ir != nil && ir.Capabilities != nil {
				gs.Completions = ir.Capabilities.Completions != nil
				gs.Subscribe = ir.Capabilities.Resources != nil && ir.Capabilities.Resources.Subscribe
			}
		}
		out = append(out, gs)
	}
	return out
}

// lookup returns a server and its supervisor, or a NotRunningError: the
// server was removed, or its entry is invalid (no supervisor).
func (b *gatewayBackend) lookup(name string) (*server, *supervisor.Supervisor, error) {
	m := b.m
	m.mu.Lock()
	s, ok := m.servers[name]
	var sup *supervisor.Supervisor
	if ok {
		sup = s.sup
	}
	m.mu.Unlock()
	if !ok {
		return nil, nil, &gateway.NotRunningError{Server: name, State: hostapi.StateRemoved}
	}
	if sup == nil {
		state, _ := PublicState(s.facts(nil)) // invalid, or disabled
		return nil, nil, &gateway.NotRunningError{Server: name, State: state}
	}
	return s, sup, nil
}

// holdFor bounds how long a request waits for a server that is on its way
// back (a restart, a change of its entry, a start) instead of failing at
// once: a restart takes its stop ladder and a handshake, usually well
// under a second.
// Atomic: tests shorten it.
var holdFor = func() *atomic.Int64 {
	var d atomic.Int64
	d.Store(int64(5 * time.Second))
	return &d
}()

// comingBack reports whether a server with no session comes back by
// itself: it is between the two runs of a restart, starting, or waiting to
// try again after a crash; not stopped by the user, disabled, failed or
// waiting for a secret.
func comingBack(s *server, sup *supervisor.Supervisor) bool {
	c, userStopped := s.config()
	if c.Disabled || userStopped {
		return false
	}
	switch sup.Status().State {
	case supervisor.Starting, supervisor.Stopping, supervisor.Stopped, supervisor.Running, supervisor.Backoff:
		return true
	}
	return false
}

// liveSession is sup's session, unless it is being stopped (a restart's
// first half): a request sent to it would only hear that it stopped.
func liveSession(sup *supervisor.Supervisor) *mcp.ClientSession {
	cs := sup.Session()
	if cs != nil && sup.Status().State == supervisor.Stopping {
		return nil
	}
	return cs
}

// waitSession waits, up to holdTime (holdFor, or an on-demand server's
// start timeout) and while ctx lasts, for a server that is coming back to
// have a session; nil if it has none by then. A server that falls asleep
// meanwhile (its idle stop crossed the request) is woken.
func waitSession(ctx context.Context, m *Manager, s *server, sup *supervisor.Supervisor) *mcp.ClientSession {
	deadline := time.Now().Add(holdTime(s))
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	for {
		if cs := live(s, sup); cs != nil {
			return cs
		}
		s.wake()
		if !comingBack(s, sup) || !time.Now().Before(deadline) {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// notRunning is the error of a request to a server without a session.
func (b *gatewayBackend) notRunning(name string, s *server, sup *supervisor.Supervisor) error {
	_, userStopped := s.config()
	st := sup.Status()
	state, why := PublicState(s.facts(&st))
	return &gateway.NotRunningError{Server: name, State: state, LastError: s.shownError(st.LastError, why), UserStopped: userStopped}
}

// The gateway's requests to a server: every one goes through the relay
// (pipeline.go), a tools/call as any other. CallTool is the go-sdk path's
// (a backend without the lean path: only tests' doubles); ReadResource,
// GetPrompt and Complete are every path's.

// CallTool implements [gateway.Backend]: the call through the relay.
func (b *gatewayBackend) CallTool(ctx context.Context, name string, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	c := &relay.Call{Tool: p.Name, Caller: relay.CallerFrom(ctx)}
	if p.Arguments != nil {
		args, err := json.Marshal(p.Arguments)
		if err != nil {
			return nil, relay.ArgumentsError(name, p.Name, err)
		}
		c.Arguments = args
	}
	c.Meta = metaMembers(p.Meta)
	if progress != nil {
		c.Progress = func(raw json.RawMessage) {
			var pp mcp.ProgressNotificationParams
			if json.Unmarshal(raw, &pp) == nil {
				if tok, ok := p.Meta["progressToken"]; ok {
					pp.ProgressToken = tok // the caller's, not the relay's
				}
				progress(&pp)
			}
		}
	}
	return request[mcp.CallToolResult](ctx, b, name, c)
}

// GetPrompt implements [gateway.Backend].
func (b *gatewayBackend) GetPrompt(ctx context.Context, name string, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	c := &relay.Call{Method: relay.KindPromptGet, Tool: p.Name, Caller: relay.CallerFrom(ctx), Meta: metaMembers(p.Meta)}
	if len(p.Arguments) > 0 {
		c.Arguments, _ = json.Marshal(p.Arguments)
	}
	c.Params = paramsMembers(&mcp.GetPromptParams{Name: p.Name, Arguments: p.Arguments})
	return request[mcp.GetPromptResult](ctx, b, name, c)
}

// ReadResource implements [gateway.Backend].
func (b *gatewayBackend) ReadResource(ctx context.Context, name string, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	c := &relay.Call{Method: relay.KindResourceRead, Tool: p.URI, Caller: relay.CallerFrom(ctx), Meta: metaMembers(p.Meta)}
	c.Params = paramsMembers(&mcp.ReadResourceParams{URI: p.URI})
	return request[mcp.ReadResourceResult](ctx, b, name, c)
}

// Complete implements [gateway.Backend].
func (b *gatewayBackend) Complete(ctx context.Context, name string, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	c := &relay.Call{Method: relay.KindComplete, Caller: relay.CallerFrom(ctx), Meta: metaMembers(p.Meta)}
	if p.Ref != nil {
		c.Tool = p.Ref.Name + p.Ref.URI
	}
	c.Arguments, _ = json.Marshal(p.Argument)
	q := *p
	q.Meta = nil
	c.Params = paramsMembers(&q)
	return request[mcp.CompleteResult](ctx, b, name, c)
}

// request makes c through the relay, waiting for its answer (relay.Do),
// and decodes the server's result.
func request[R any](ctx context.Context, b *gatewayBackend, name string, c *relay.Call) (*R, error) {
	raw, _, err := relay.Do(ctx, b, name, c)
	if err != nil {
		return nil, err
	}
	res := new(R)
	if err := json.Unmarshal(raw, res); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf(
			"Switchboard server %q answered %s with a result that does not decode: %v", name, relay.What(c.Method, c.Tool), err)}
	}
	return res, nil
}

// metaMembers is a request's _meta as the relay carries it: JSON object
// members without the braces, never a progress token (the relay sets its
// own); nil for none.
func metaMembers(m mcp.Meta) []byte {
	if len(m) == 0 {
		return nil
	}
	if _, ok := m["progressToken"]; ok {
		m = maps.Clone(m)
		delete(m, "progressToken")
		if len(m) == 0 {
			return nil
		}
	}
	b, err := json.Marshal(m)
	if err != nil || len(b) < 2 {
		return nil
	}
	return b[1 : len(b)-1]
}

// paramsMembers is a request's params (without _meta) as JSON object
// members without the braces.
func paramsMembers(p any) []byte {
	b, err := json.Marshal(p)
	if err != nil || len(b) < 2 {
		return nil
	}
	return b[1 : len(b)-1]
}

// startGateway makes the gateway and its socket; the caller serves it.
func (h *Host) startGateway() error {
	path := h.opts.GatewayPath
	if path == "" {
		path = api.GatewayPathFor(h.opts.SocketPath)
	}
	h.gwPath = path
	l, err := h.lock.ListenGateway(path)
	if err != nil {
		return fmt.Errorf("the MCP gateway cannot listen on %s: %w", path, err)
	}
	go func() {
		if err := h.gw.Serve(l); err != nil && !errors.Is(err, gateway.ErrClosed) {
			h.log.Error("the MCP gateway stopped accepting clients", "error", err)
		}
	}()
	return nil
}

// configureGateway applies the file's gateway settings (the HTTP
// endpoint).
func (h *Host) configureGateway(f *config.File) {
	if h.gw == nil {
		return
	}
	gs, err := f.Gateway()
	if err != nil {
		h.log.Error("the gateway settings cannot be used; the HTTP endpoint keeps its state", "error", err)
		return
	}
	port := gs.HTTPPort
	if h.opts.GatewayHTTPPort != 0 {
		port = h.opts.GatewayHTTPPort
	}
	if err := h.gw.SetHTTP(port); err != nil {
		h.log.Error("gateway", "error", err)
	}
}

// tokenChanged reloads the HTTP endpoint's token when a secret change
// through the host (secret set, secret delete) is the token's.
func (h *Host) tokenChanged(name string) {
	if name != gateway.TokenName || h.gw == nil {
		return
	}
	if err := h.gw.ReloadHTTPToken(); err != nil {
		h.log.Error("gateway", "error", err)
	}
}

// The relay of tools/call (app/relay): one relay.Relay per server
// connection, made on its first call. StartToolCall finds the running
// session's connection, or holds the call while its server comes back.

// callTimeout is how long a call to s may take: its entry's callTimeout,
// whose one default is the option table's (relay.DefaultTimeout, read
// from it once rather than per call).
func callTimeout(s *server) time.Duration {
	c, _ := s.config()
	if c.CallTimeout <= 0 {
		return relay.DefaultTimeout
	}
	return c.CallTimeout
}

// StartToolCall implements [gateway.RawBackend] and [relay.Starter]. The
// call counts as in flight (an on-demand server is not stopped idle under
// it) from here until its Done, or its withdrawal.
func (b *gatewayBackend) StartToolCall(name string, c *relay.Call) (func(), error) {
	s, _, err := b.lookup(name)
	if err != nil {
		return nil, err
	}
	release := s.busy()
	if done := c.Done; done != nil {
		c.Done = func(res *relay.Result, err error) {
			release()
			done(res, err)
		}
	}
	asked := time.Now()
	start := func(c *relay.Call) (func(), error) { return b.startToolCall(name, c, asked) }
	var stop func()
	if in := b.m.inputs; in != nil && !c.Caller.Modern && (c.Method == "" || c.Method == relay.KindToolCall) {
		stop, err = in.roundsCall(name, c, start) // rounds.go
	} else {
		stop, err = start(c)
	}
	if err != nil {
		release()
		return nil, err
	}
	return func() {
		stop()
		release()
	}, nil
}

// startToolCall starts c, or holds it while its server wakes or comes
// back; asked is when the call came, for its Waited.
func (b *gatewayBackend) startToolCall(name string, c *relay.Call, asked time.Time) (func(), error) {
	s, sup, err := b.lookup(name)
	if err != nil {
		return nil, err
	}
	// The connection of the running session: a session is set only after
	// its connection, and cleared before the next one exists.
	// A local server's relay runs over its stdio connection; a remote
	// one's over its go-sdk session (sessionconn.go).
	cs := live(s, sup)
	var r *relay.Relay
	if cfg, _ := s.config(); s.overSession(cfg) {
		if cs != nil && sup.Session() == cs {
			r = b.remoteRelay(name, s, cs)
		}
	} else if conn := sup.Conn(); cs != nil && conn != nil && sup.Session() == cs {
		r = b.relayFor(name, s, conn, cs)
	}
	if r == nil {
		s.wake()
		if !comingBack(s, sup) {
			return nil, b.notRunning(name, s, sup)
		}
		return b.holdToolCall(name, s, sup, c, asked), nil
	}
	stop, err := r.Start(c, callTimeout(s))
	var rpc *jsonrpc.Error
	switch {
	case err == nil:
		return stop, nil
	case errors.As(err, &rpc):
		return nil, err // the arguments, or a hook's refusal as an error answer
	case errors.Is(err, relay.ErrClosed):
		return nil, &gateway.NotRunningError{Server: name, State: hostapi.StateStopping}
	}
	var ce *stdio.CloseError
	if errors.As(err, &ce) {
		return nil, &gateway.NotRunningError{Server: name, State: hostapi.StateStopping, LastError: err.Error()}
	}
	return nil, err
}

// holdToolCall starts c once the server that is coming back has a
// session, up to holdTime (for a wake, the server's start timeout),
// without making the caller wait (the gateway calls StartToolCall on the
// goroutine that reads the client): c.Done gets the server's answer, or
// why the server is not back. c.Waited is the time since asked.
func (b *gatewayBackend) holdToolCall(name string, s *server, sup *supervisor.Supervisor, c *relay.Call, asked time.Time) func() {
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var stop func() // the started call's, once it is started
	go func() {
		defer cancel()
		var err error
		if waitSession(ctx, b.m, s, sup) != nil {
			var st func()
			c.Waited = time.Since(asked)
			if st, err = b.startToolCall(name, c, asked); err == nil {
				mu.Lock()
				stop = st
				cancelled := ctx.Err() != nil
				mu.Unlock()
				if cancelled {
					st()
				}
				return
			}
		} else {
			err = b.notRunning(name, s, sup)
		}
		if ctx.Err() == nil {
			c.Done(nil, err)
		}
	}()
	return func() {
		mu.Lock()
		cancel()
		st := stop
		mu.Unlock()
		if st != nil {
			st()
		}
	}
}

// protoMeta is the per-request _meta of a 2026-07-28 session (without its
// braces), as the go-sdk's client adds it to every request; nil for an
// older session.
func protoMeta(cs *mcp.ClientSession, impl *mcp.Implementation, declares bool) []byte {
	ir := cs.InitializeResult()
	if ir == nil || ir.ProtocolVersion < "2026-07-28" {
		return nil
	}
	// What the host's client honours (inputs.go): input requests then
	// come in rounds (rounds.go). A Manager without a Host declares none.
	caps := any(json.RawMessage(`{}`))
	if declares {
		caps = clientCapabilities()
	}
	b, _ := json.Marshal(map[string]any{
		mcp.MetaKeyProtocolVersion:    ir.ProtocolVersion,
		mcp.MetaKeyClientInfo:         impl,
		mcp.MetaKeyClientCapabilities: caps,
	})
	return b[1 : len(b)-1]
}

// relayFor returns the relay of a connection of session cs (a local
// server's *stdio.Conn, a remote one's *sessionConn), making it on the
// first call: the per-call path allocates nothing here.
func (b *gatewayBackend) relayFor(name string, s *server, conn relay.Conn, cs *mcp.ClientSession) *relay.Relay {
	b.mu.Lock()
	defer b.mu.Unlock()
	if r := b.relays[conn]; r != nil {
		return r
	}
	// gone reports that the server no longer runs on conn (for the state
	// the calls that its close cut are told).
	gone := func() bool { return s.sup.Session() != cs }
	var proto []byte
	if sc, ok := conn.(*stdio.Conn); ok {
		gone = func() bool { return s.sup.Conn() != sc }
		proto = protoMeta(cs, b.m.impl, b.m.inputs != nil)
	} // a remote server's session adds the per-request _meta itself
	r := relay.New(name, conn, relay.Options{ProtoMeta: proto, Hook: b.m.relayHook,
		StateAfterClose: func() string { return stateAfterClose(s, gone) }})
	b.relays[conn] = r
	go func() {
		<-conn.Done()
		b.mu.Lock()
		delete(b.relays, conn)
		b.mu.Unlock()
	}()
	return r
}

// stateAfterClose is the state of a server whose connection closed under
// calls (gone: it no longer runs on it): it waits (briefly) for the
// supervisor to say so, so that the calls' error names the state the
// server is in.
func stateAfterClose(s *server, gone func() bool) string {
	state := "restarting"
	deadline := time.Now().Add(500 * time.Millisecond)
	for time.Now().Before(deadline) {
		if sup := s.sup; sup != nil && gone() {
			st := sup.Status()
			if st.State != supervisor.Running {
				ps, _ := PublicState(s.facts(&st))
				state = string(ps)
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return state
}
