package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/switchboard-mcp/switchboard/internal/english"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// A facade is the go-sdk server one client talks to: its tools, prompts,
// resources and resource templates mirror the gateway's current view,
// narrowed by the client's filter. Every socket client gets its own, so
// that a bridge's filter is simply what its server holds; the HTTP endpoint
// shares one.
//
// tools/call is answered by the facade's middleware, not by the go-sdk's
// tool lookup, so that a call to a tool whose server is down gets a tool
// error naming the server and its state rather than "unknown tool"; it is
// the same function that the lean path of a socket calls.
// completion/complete is the facade's CompletionHandler, which finds the
// prompt's or the template's server in the current view.
type facade struct {
	g   *Gateway
	srv *mcp.Server
	// req is the client's own filter (a bridge's preamble); sel what it
	// sees, resolved from req and the config on every sync (profile.go).
	req  Filter
	sel  atomic.Pointer[selection]
	meta bool // find_tools and call_tool are listed (search mode; f.mu)

	mu        sync.Mutex // serializes sync
	tools     map[string]*mcp.Tool
	prompts   map[string]*mcp.Prompt
	resources map[string]*mcp.Resource
	templates map[string]*mcp.ResourceTemplate
	// found are the tools that find_tools found, oldest first, at most
	// maxFound (search mode, addsFound): the client's tools/list holds
	// them beside the meta-tools.
	found []string
	// addsFound: the facade serves one connection (a socket client), so
	// that what find_tools found may be added to its tools/list.
	addsFound bool
	// searches are its recent find_tools answers, to learn from (search.go).
	searches recentSearches

	listedMu sync.Mutex
	listed   map[mcp.Session]bool // sessions whose first list has waited

	// conn names the facade's connection ("bridge pid 1234"), connID
	// tells it apart (relay.Caller); the HTTP endpoint's facade serves
	// many sessions: conn "http", and an ID per session (sessionIDs).
	conn       string
	connID     uint64
	sessionIDs sync.Map // *mcp.ServerSession -> uint64, the HTTP facade's
}

// cur is what the facade's client sees, as of the last sync.
func (f *facade) cur() *selection { return f.sel.Load() }

// callerOf is who makes a call on the go-sdk's path, in session ss (nil
// if unknown): the facade's connection and the app's name from ss's
// handshake.
func (f *facade) callerOf(ss *mcp.ServerSession) relay.Caller {
	cl := relay.Caller{Conn: f.conn, ID: f.connID}
	if ss == nil {
		return cl
	}
	if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
		cl.App = cleanClientName(p.ClientInfo.Name)
	}
	// A 2026-07-28 session makes no handshake (or the go-sdk makes one
	// up from the request's _meta).
	cl.Modern = ss.InitializeParams() == nil || ss.InitializeParams().ProtocolVersion >= "2026-07-28"
	if cl.ID == 0 {
		id, ok := f.sessionIDs.Load(ss)
		if !ok {
			var loaded bool
			if id, loaded = f.sessionIDs.LoadOrStore(ss, f.g.connSeq.Add(1)); !loaded {
				go func() { // forgotten when the session ends
					_ = ss.Wait()
					f.sessionIDs.Delete(ss)
				}()
			}
		}
		cl.ID = id.(uint64)
	}
	return cl
}

// instructions tell a model how the gateway names things.
const instructions = "Switchboard gateway: the tools and prompts of several MCP servers, each named SERVER__NAME " +
	"(the server's name, two underscores, the server's own name for it; a name over 64 characters ends in a hash)."

func (g *Gateway) newFacade(filter Filter) *facade {
	f := &facade{g: g, req: filter,
		tools: map[string]*mcp.Tool{}, prompts: map[string]*mcp.Prompt{}, resources: map[string]*mcp.Resource{},
		templates: map[string]*mcp.ResourceTemplate{}, listed: map[mcp.Session]bool{}}
	f.srv = mcp.NewServer(g.impl, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       g.sdkLog,
		// Advertised whether or not anything is listed yet: servers that
		// are still starting add theirs later, with list_changed.
		// The completions capability comes with the handler.
		// Subscriptions and log messages fan in (subscribe.go).
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{ListChanged: true},
			Prompts:   &mcp.PromptCapabilities{ListChanged: true},
			Resources: &mcp.ResourceCapabilities{ListChanged: true, Subscribe: true},
			//lint:ignore SA1019 logging is deprecated (SEP-2577) and still functional: the servers' log messages fan in (subscribe.go)
			Logging: &mcp.LoggingCapabilities{},
		},
		CompletionHandler:  f.complete,
		SubscribeHandler:   f.subscribe,
		UnsubscribeHandler: f.unsubscribe,
		SetCacheable:       f.cacheable,
	})
	f.srv.AddReceivingMiddleware(f.middleware)
	f.sync()
	return f
}

// sync makes the facade's server hold what the current view lists for its
// client. The go-sdk sends list_changed to the connected sessions (once
// for a burst of changes).
func (f *facade) sync() {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := f.g.current()
	sel := everything
	if !f.req.IsZero() || f.req.ToolMode != "" {
		sel, _ = f.g.effective(f.req)
	}
	f.sel.Store(sel)
	if sel.Search() {
		f.g.searchIndex(v, sel) // built now, not on the first find_tools
	}
	// The meta-tools follow the mode, which a profile's edit can change.
	f.metaTools(sel.Search())
	byServer := func(_ string, e *entry) bool { return sel.SeesServer(e.server) }

	mirror(f, "tool", f.tools, v.tools, func(e *entry) *mcp.Tool { return e.tool },
		func(name string, e *entry) bool { return listsTool(sel, name, e) && f.listsFound(sel, name) },
		f.srv.RemoveTools,
		func(_ string, e *entry) { f.srv.AddTool(e.tool, f.toolHandler) })

	mirror(f, "prompt", f.prompts, v.prompts, func(e *entry) *mcp.Prompt { return e.prompt },
		func(_ string, e *entry) bool { return listsPrompt(sel, e) }, f.srv.RemovePrompts,
		func(_ string, e *entry) {
			server, own := e.server, e.name
			f.srv.AddPrompt(e.prompt, func(ctx context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return f.getPrompt(relay.WithCaller(ctx, f.callerOf(r.Session)), server, own, r.Params)
			})
		})

	mirror(f, "resource", f.resources, v.resources, func(e *entry) *mcp.Resource { return e.resource },
		byServer, f.srv.RemoveResources,
		func(_ string, e *entry) {
			server := e.server
			f.srv.AddResource(e.resource, func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return f.readResource(relay.WithCaller(ctx, f.callerOf(r.Session)), server, r.Params)
			})
		})

	mirror(f, "resource template", f.templates, v.templates, func(e *entry) *mcp.ResourceTemplate { return e.template },
		byServer, f.srv.RemoveResourceTemplates,
		func(tmpl string, e *entry) {
			server := e.server
			f.srv.AddResourceTemplate(e.template, func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				return f.readTemplated(relay.WithCaller(ctx, f.callerOf(r.Session)), server, tmpl, r.Params)
			})
		})
}

// listsTool reports whether a facade with filter lists the view's tool e
// under its exposed name; listsPrompt the same of a prompt. Gateway.Cost
// prices what they let through.
func listsTool(filter seer, exposed string, e *entry) bool {
	return filter.SeesTool(e.server, e.name, exposed)
}

func listsPrompt(filter seer, e *entry) bool { return filter.SeesServer(e.server) }

// seer decides what a client sees: a [Filter] as a bridge gave it, or a
// client's [selection] (the filter and its profile, resolved).
type seer interface {
	SeesServer(name string) bool
	SeesTool(server, name, exposed string) bool
}

// mirror brings held, the facade's items of one kind (by exposed name,
// URI or URI template), up to listed, the view's entries of that kind: it
// removes from the server those the view no longer lists, lists changed or
// the client may not see (visible), and adds the others that the server
// does not hold yet; item is an entry's item of the kind. An item the
// go-sdk refuses is logged under what and its key (see protect), and left
// out.
func mirror[T comparable](f *facade, what string, held map[string]T, listed map[string]*entry, item func(*entry) T,
	visible func(key string, e *entry) bool, remove func(keys ...string), add func(key string, e *entry)) {
	var gone []string
	for key, it := range held {
		if e := listed[key]; e == nil || item(e) != it || !visible(key, e) {
			gone = append(gone, key)
			delete(held, key)
		}
	}
	if len(gone) > 0 {
		remove(gone...)
	}
	for key, e := range listed {
		if held[key] == item(e) || !visible(key, e) {
			continue
		}
		if f.g.protect(what+" "+key, func() { add(key, e) }) {
			held[key] = item(e)
		}
	}
}

// middleware makes the first list of a session wait for the servers that
// are still starting, and answers tools/call.
func (f *facade) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/list", "prompts/list", "resources/list", "resources/templates/list":
			f.firstList(ctx, req.GetSession())
			f.freshen(ctx) // lists past their ttlMs (lists.go)
		case "logging/setLevel":
			res, err := next(ctx, method, req)
			//lint:ignore SA1019 logging is deprecated (SEP-2577) and still functional
			if r, ok := req.(*mcp.ServerRequest[*mcp.SetLoggingLevelParams]); err == nil && ok && r.Params != nil && r.Session != nil {
				f.setLevel(r.Session, r.Params.Level) // subscribe.go
			}
			return res, err
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				res, err := f.sdkCall(ctx, r)
				if err != nil {
					return nil, err // an untyped nil: never a nil *CallToolResult
				}
				return res, nil
			}
		}
		return next(ctx, method, req)
	}
}

// toolHandler is registered with every tool; the middleware answers
// tools/call before it, so it only runs if the middleware is bypassed.
func (f *facade) toolHandler(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	res, err := f.sdkCall(ctx, r)
	if err != nil {
		return nil, err
	}
	return decodeResult(res)
}

// firstList waits, on a session's first list request, for the servers it
// sees that are still starting (each up to its start timeout), and brings
// the facade up to date.
func (f *facade) firstList(ctx context.Context, s mcp.Session) {
	f.listedMu.Lock()
	done := f.listed[s]
	if !done {
		if len(f.listed) >= 4096 { // the shared HTTP facade: forget old sessions
			clear(f.listed)
		}
		f.listed[s] = true
	}
	f.listedMu.Unlock()
	if done {
		return
	}
	f.g.waitStarted(ctx, f.cur())
	f.sync()
}

// sdkCall is tools/call on the go-sdk's path.
func (f *facade) sdkCall(ctx context.Context, r *mcp.CallToolRequest) (mcp.Result, error) {
	p := r.Params
	var deliver func(*mcp.ProgressNotificationParams)
	if tok := p.GetProgressToken(); tok != nil && r.Session != nil {
		ss := r.Session
		deliver = func(n *mcp.ProgressNotificationParams) {
			_ = ss.NotifyProgress(context.WithoutCancel(ctx), &mcp.ProgressNotificationParams{
				Meta: userMeta(n.Meta), ProgressToken: tok, Progress: n.Progress, Total: n.Total, Message: n.Message})
		}
	}
	if len(p.InputResponses) > 0 || p.RequestState != "" {
		// A 2026-07-28 app's retry of an input_required round: its
		// answers and the server's state go back to the server as sent.
		extra, err := json.Marshal(struct {
			InputResponses mcp.InputResponseMap `json:"inputResponses,omitempty"`
			RequestState   string               `json:"requestState,omitempty"`
		}{p.InputResponses, p.RequestState})
		if err == nil && len(extra) > 2 {
			ctx = context.WithValue(ctx, retryKey{}, extra[1:len(extra)-1])
		}
	}
	return f.call(ctx, f.callerOf(r.Session), p.Name, p.Arguments, userMeta(p.Meta), deliver)
}

// retryKey carries a retried round's params (JSON object members) from
// sdkCall to callRaw.
type retryKey struct{}

// call is tools/call, on both paths: it resolves the exposed name, forwards
// the call, and turns every failure of a server into a tool error. The
// error is a *jsonrpc.Error (an unknown tool, or the server's own error
// answer) or the context's.
func (f *facade) call(ctx context.Context, caller relay.Caller, exposed string, args json.RawMessage, meta mcp.Meta, deliver func(*mcp.ProgressNotificationParams)) (mcp.Result, error) {
	switch kind, target, targetArgs, bad := f.metaCall(exposed, args); kind {
	case metaFind:
		res, err := f.findTools(ctx, args)
		if err != nil {
			return nil, err
		}
		return res, nil
	case metaCall:
		if bad != nil {
			return bad, nil
		}
		exposed, args = target, targetArgs
	}
	t0 := time.Now()
	defer func() {
		// As the lean path's timing: a long call is never silent.
		if d := time.Since(t0); d > f.g.slowServer {
			f.g.log.Info("a tool call through the gateway took long", "tool", exposed, "took", d)
		}
	}()
	e, down := f.resolveTool(ctx, exposed)
	if down != nil {
		return toolError(down.text()), nil
	}
	if e == nil {
		return nil, unknownTool(exposed)
	}
	if rb, ok := f.g.backend.(RawBackend); ok {
		return f.callRaw(ctx, rb, caller, e, args, meta, deliver)
	}
	params := &mcp.CallToolParams{Name: e.name}
	if len(meta) > 0 {
		params.Meta = meta
	}
	if len(args) > 0 {
		params.Arguments = args
	}
	var progress func(*mcp.ProgressNotificationParams)
	if deliver != nil {
		var finish func()
		progress, finish = pump(deliver)
		// The go-sdk's client may handle a progress notification after the
		// response: the pump delivers late ones for a while.
		defer time.AfterFunc(time.Second, finish)
	}
	res, err := f.g.backend.CallTool(ctx, e.server, params, progress)
	if err == nil {
		return normalize(e.server, res), nil
	}
	return f.failed(ctx, err)
}

// failed is callError as an mcp.Result: an untyped nil with an error.
func (f *facade) failed(ctx context.Context, err error) (mcp.Result, error) {
	res, err := f.callError(ctx, err)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// callRaw forwards a call through a RawBackend (app/relay), waiting for
// it: the go-sdk server's call (the HTTP endpoint's, a socket request that
// the lean path leaves to the go-sdk) relayed like a lean one, so that its
// progress notifications come in order before the result. The result is
// passed on as the server wrote it (a rawToolResult), never decoded.
func (f *facade) callRaw(ctx context.Context, rb RawBackend, caller relay.Caller, e *entry, args json.RawMessage, meta mcp.Meta, deliver func(*mcp.ProgressNotificationParams)) (mcp.Result, error) {
	rc := &relay.Call{Tool: e.name, Caller: caller, Arguments: args}
	if extra, ok := ctx.Value(retryKey{}).([]byte); ok {
		rc.Params = extra
	}
	for k, v := range meta {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if len(rc.Meta) > 0 {
			rc.Meta = append(rc.Meta, ',')
		}
		rc.Meta = relay.AppendString(rc.Meta, k)
		rc.Meta = append(rc.Meta, ':')
		rc.Meta = append(rc.Meta, b...)
	}
	var finish func()
	if deliver != nil {
		var progress func(*mcp.ProgressNotificationParams)
		progress, finish = pump(deliver)
		rc.Progress = func(raw json.RawMessage) {
			var n mcp.ProgressNotificationParams
			if json.Unmarshal(raw, &n) == nil {
				progress(&n)
			}
		}
	}
	_, res, err := relay.Do(ctx, rb, e.server, rc)
	if finish != nil {
		finish() // every progress notification goes out before the response
	}
	if err != nil {
		return f.failed(ctx, err)
	}
	return newRawToolResult(res, e.server), nil
}

// decodeResult is a result of call as a go-sdk type (the tool handler's,
// which only runs if the middleware is bypassed).
func decodeResult(r mcp.Result) (*mcp.CallToolResult, error) {
	switch r := r.(type) {
	case *mcp.CallToolResult:
		return r, nil
	case *rawToolResult:
		var res mcp.CallToolResult
		if err := json.Unmarshal(r.res.Raw, &res); err != nil {
			return toolError(fmt.Sprintf("a tool's result does not decode: %v", err)), nil
		}
		return normalize(r.server, &res), nil
	}
	return nil, fmt.Errorf("a tool call's result is a %T", r)
}

// callError turns a failed call into what the client gets: a tool error
// naming the server, or the server's JSON-RPC error, or the context's.
func (f *facade) callError(ctx context.Context, err error) (*mcp.CallToolResult, error) {
	var nr *NotRunningError
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &nr):
		return toolError(f.g.downText(nr)), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.As(err, &rpc):
		return nil, rpc
	}
	return toolError(err.Error()), nil
}

// downServer is why a tool cannot be called: its server is not up, or
// (held) the pin store holds the tool back.
type downServer struct {
	st   *serverState
	held *heldTool
}

func (d *downServer) text() string {
	if d.held != nil {
		return fmt.Sprintf("Switchboard holds back tool %q of server %q: %s. It cannot be called until the user accepts it.",
			d.held.name, d.held.server, d.held.reason)
	}
	return notRunningText(d.st.Name, d.st.State, d.st.LastError, d.st.UserStopped, d.st.Disabled)
}

// resolveTool finds what an exposed name calls, waiting first (up to its
// start timeout) if it names a server that is starting for the first
// time. A server that runs but whose lists are not read yet gets the call
// under the name's SERVER__TOOL split.
func (f *facade) resolveTool(ctx context.Context, exposed string) (*entry, *downServer) {
	e, down := f.lookupTool(f.g.current(), exposed)
	if down == nil || !down.st.pending {
		return e, down
	}
	f.g.waitStarted(ctx, Filter{Servers: []string{down.st.Name}})
	v := f.g.current()
	e, down = f.lookupTool(v, exposed)
	if down != nil && down.st.State == hostapi.StateRunning {
		if server, name, ok := SplitName(exposed); ok && server == down.st.Name {
			return &entry{server: server, name: name}, nil
		}
	}
	return e, down
}

// needsWait reports whether resolveTool may wait for exposed.
func (f *facade) needsWait(exposed string) bool {
	_, down := f.lookupTool(f.g.current(), exposed)
	return down != nil && down.st.pending
}

// lookupTool finds what an exposed name calls in a view: a listed tool
// this client sees, or a server that is down (a tool it listed before, or
// a name SERVER__TOOL of a configured server it sees); nil, nil means
// unknown.
func (f *facade) lookupTool(v *view, exposed string) (*entry, *downServer) {
	if e := v.tools[exposed]; e != nil && f.cur().SeesTool(e.server, e.name, exposed) {
		return e, nil
	}
	if h := v.held[exposed]; h != nil && f.cur().SeesTool(h.server, h.name, exposed) {
		if st := v.servers[h.server]; st != nil {
			return nil, &downServer{st: st, held: h}
		}
	}
	if e := v.knownTools[exposed]; e != nil && f.cur().SeesTool(e.server, e.name, exposed) {
		if st := v.servers[e.server]; st != nil && !st.listed {
			return nil, &downServer{st: st}
		}
	}
	if server, name, ok := SplitName(exposed); ok {
		if st := v.servers[server]; st != nil && !st.listed && st.Filter.Allows(name) && f.cur().SeesTool(server, name, exposed) {
			return nil, &downServer{st: st}
		}
	}
	return nil, nil
}

func (f *facade) getPrompt(ctx context.Context, server, name string, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	fp := &mcp.GetPromptParams{Name: name, Arguments: p.Arguments, Meta: userMeta(p.Meta)}
	res, err := f.g.backend.GetPrompt(ctx, server, fp)
	if err != nil {
		return nil, f.g.rpcError(ctx, err)
	}
	out := *res
	out.Meta = userMeta(res.Meta)
	return &out, nil
}

// readResource reads p.URI, as the client names it, from server: a ui://
// resource under the server's own URI, its contents' URIs exposed again
// (uiapps.go).
func (f *facade) readResource(ctx context.Context, server string, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	fp := &mcp.ReadResourceParams{URI: ownURI(server, p.URI), Meta: userMeta(p.Meta)}
	res, err := f.g.backend.ReadResource(ctx, server, fp)
	if err != nil {
		return nil, f.g.rpcError(ctx, err)
	}
	out := *exposeContents(server, res)
	out.Meta = userMeta(res.Meta)
	return &out, nil
}

// readTemplated reads a URI that matches the template tmpl of server (the
// go-sdk's server found it, after the listed resources). A URI that also
// matches a template of another server that the client sees is read from
// neither. The server's own error answer names the server: the client
// cannot tell from the URI which server it asked.
func (f *facade) readTemplated(ctx context.Context, server, tmpl string, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	var others []string
	for _, e := range f.g.current().allTemplates {
		if e.server != server && e.match != nil && f.cur().SeesServer(e.server) && e.match.MatchString(p.URI) {
			others = append(others, fmt.Sprintf("%q (%s)", e.server, e.name))
		}
	}
	if len(others) > 0 {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
			"resource %q matches the resource templates of Switchboard server %q (%s) and of %s: the gateway reads it from neither",
			p.URI, server, tmpl, strings.Join(others, ", "))}
	}
	res, err := f.readResource(ctx, server, p)
	var rpc *jsonrpc.Error
	if err != nil && errors.As(err, &rpc) && !strings.Contains(rpc.Message, fmt.Sprintf("%q", server)) {
		named := *rpc
		named.Message = fmt.Sprintf("Switchboard server %q (resource template %s): %s", server, tmpl, rpc.Message)
		return nil, &named
	}
	return res, err
}

// complete is the facade's completion/complete: a prompt's argument
// (ref/prompt with the exposed name SERVER__PROMPT) goes to the prompt's
// server under its own name; a resource template's argument (ref/resource
// with the URI template, or a listed resource's URI) to the template's
// server. A server that does not advertise completions gets no request:
// the answer is no values.
func (f *facade) complete(ctx context.Context, r *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ctx = relay.WithCaller(ctx, f.callerOf(r.Session))
	p := r.Params
	if p == nil || p.Ref == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "completion/complete without a ref"}
	}
	v := f.g.current()
	var server string
	ref := &mcp.CompleteReference{Type: p.Ref.Type}
	switch p.Ref.Type {
	case "ref/prompt":
		e := v.prompts[p.Ref.Name]
		if e == nil || !f.cur().SeesServer(e.server) {
			if k := v.knownPrompts[p.Ref.Name]; k != nil && f.cur().SeesServer(k.server) {
				if st := v.servers[k.server]; st != nil && !st.listed {
					return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
						Message: notRunningText(st.Name, st.State, st.LastError, st.UserStopped, st.Disabled)}
				}
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown prompt %q", p.Ref.Name)}
		}
		server, ref.Name = e.server, e.name
	case "ref/resource":
		e := v.templates[p.Ref.URI]
		if e == nil {
			e = v.resources[p.Ref.URI]
		}
		if e == nil || !f.cur().SeesServer(e.server) {
			var owners []string
			for _, t := range v.allTemplates {
				if t.template.URITemplate == p.Ref.URI {
					owners = append(owners, t.server)
				}
			}
			if len(owners) > 1 {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
					"resource template %q is listed by Switchboard servers %s: the gateway serves it from none of them", p.Ref.URI, english.List(owners))}
			}
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown resource template %q", p.Ref.URI)}
		}
		server, ref.URI = e.server, e.name
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown reference type %q", p.Ref.Type)}
	}
	if st := v.servers[server]; st != nil && st.State == hostapi.StateRunning && st.Cached && !st.Completions {
		return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}, nil
	}
	fp := &mcp.CompleteParams{Meta: userMeta(p.Meta), Argument: p.Argument, Context: p.Context, Ref: ref}
	res, err := f.g.backend.Complete(ctx, server, fp)
	if err != nil {
		return nil, f.g.rpcError(ctx, err)
	}
	out := &mcp.CompleteResult{Meta: userMeta(res.Meta), Completion: res.Completion}
	if out.Completion.Values == nil {
		out.Completion.Values = []string{}
	}
	return out, nil
}

// rpcError turns a failed prompts/get, resources/read or
// completion/complete into the error the client gets: the server's own
// JSON-RPC error, or one that names the server's state.
func (g *Gateway) rpcError(ctx context.Context, err error) error {
	var nr *NotRunningError
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &nr):
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: g.downText(nr)}
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.As(err, &rpc):
		return rpc
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// downText names a server's state as the current view knows it (it may be
// newer than the error's).
func (g *Gateway) downText(nr *NotRunningError) string {
	if st := g.current().servers[nr.Server]; st != nil && st.State != hostapi.StateRunning {
		return notRunningText(nr.Server, st.State, st.LastError, st.UserStopped, st.Disabled)
	}
	return nr.Error()
}

// toolError is a tool result that reports an error to the model.
func toolError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// protocolMetaPrefix marks the _meta keys of the protocol itself (the
// protocol version, client and server info, ...): they belong to one hop
// and are never forwarded.
const protocolMetaPrefix = "io.modelcontextprotocol/"

// userMeta returns m without the keys of the protocol and without the
// progress token (each hop has its own), or nil if nothing is left.
func userMeta(m mcp.Meta) mcp.Meta {
	n := 0
	for k := range m {
		if !strings.HasPrefix(k, protocolMetaPrefix) && k != "progressToken" {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make(mcp.Meta, n)
	for k, v := range m {
		if !strings.HasPrefix(k, protocolMetaPrefix) && k != "progressToken" {
			out[k] = v
		}
	}
	return out
}

// normalize is a server's tool result as the gateway passes it on: its
// content, structured content, error flag and own _meta, without what
// belongs to the hop from the server (protocol _meta, the result type and
// multi-round-trip fields), with its _meta.ui.resourceUri exposed for its
// server (uiapps.go). Both paths send exactly this.
func normalize(server string, res *mcp.CallToolResult) *mcp.CallToolResult {
	out := &mcp.CallToolResult{Meta: exposeUIMeta(server, userMeta(res.Meta)), Content: res.Content, StructuredContent: res.StructuredContent, IsError: res.IsError}
	if out.Content == nil {
		out.Content = []mcp.Content{}
	}
	return out
}

// pump delivers progress notifications in order on a goroutine of its own,
// so that a slow client never holds up the server's session (whose
// notifications are handled in its read loop). Up to 256 wait; more are
// dropped, as progress may be. finish waits until the queue is empty.
func pump(deliver func(*mcp.ProgressNotificationParams)) (progress func(*mcp.ProgressNotificationParams), finish func()) {
	ch := make(chan *mcp.ProgressNotificationParams, 256)
	done := make(chan struct{})
	var mu sync.Mutex
	closed := false
	go func() {
		defer close(done)
		for n := range ch {
			deliver(n)
		}
	}()
	progress = func(n *mcp.ProgressNotificationParams) {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			return
		}
		select {
		case ch <- n:
		default:
		}
	}
	finish = func() {
		mu.Lock()
		if !closed {
			closed = true
			close(ch)
		}
		mu.Unlock()
		<-done
	}
	return progress, finish
}
