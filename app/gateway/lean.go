package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// The lean path answers a socket client's tools/call without the go-sdk's
// server: it walks the request's envelope, name, arguments and _meta once
// (app/relay's scanner: the values stay bytes of the line), hands the call
// to the backend's relay (app/relay, which every tools/call goes through),
// and writes the response line itself, spliced from the client's id and
// the server's result. Everything else, and every tools/call that is not
// plainly well formed for an initialized session (no id, an unsupported
// or incomplete per-request protocol _meta, a multi-round-trip retry, a
// key written with escapes), goes to the go-sdk, whose verdict stands; so
// does every call when the backend cannot relay (a test's fake). The
// conformance tests run the same cases through both paths.

var (
	markCall   = []byte(`tools/call`)
	markCancel = []byte(`notifications/cancelled`)
	markTasks  = []byte(`"tasks/`)
)

// leanRequest is a request's envelope: its members' values as written.
type leanRequest struct {
	ID     []byte
	Method []byte
	Params []byte
}

// leanCallParams are a tools/call's params: the name (unescaped), the
// arguments as written, and what the _meta holds, sorted out.
type leanCallParams struct {
	Name          string
	Arguments     []byte
	Meta          []byte // the client's own entries, as members without braces
	Task          []byte // the task member (a task-augmented call: tasks.go)
	ProgressToken []byte
	era           leanMeta
	retry         bool // inputResponses or requestState: a multi-round-trip retry
}

// leanMeta is what the protocol's keys of a request's _meta say.
type leanMeta struct {
	version, caps, info []byte
	hasVersion          bool
}

// supportedVersions are the go-sdk's protocol versions.
var supportedVersions = mcp.SupportedProtocolVersions()

// tryLean handles line on the lean path and reports whether it did.
func (c *sockConn) tryLean(line []byte) bool {
	if c.rb == nil {
		return false
	}
	call := bytes.Contains(line, markCall)
	if !call && !bytes.Contains(line, markCancel) && !bytes.Contains(line, markTasks) {
		return false
	}
	var req leanRequest
	version, plain := false, true
	if err := relay.Members(line, func(key, val []byte) bool {
		switch string(key) {
		case `"jsonrpc"`:
			version = string(val) == `"2.0"`
		case `"id"`:
			req.ID = val
		case `"method"`:
			req.Method = val
		case `"params"`:
			req.Params = val
		default:
			plain = bytes.IndexByte(key, '\\') < 0
		}
		return plain
	}); err != nil || !version {
		return false
	}
	switch string(req.Method) {
	case `"tools/call"`:
		return c.leanCall(&req)
	case `"notifications/cancelled"`:
		return c.leanCancel(&req)
	case `"tasks/get"`, `"tasks/result"`, `"tasks/cancel"`, `"tasks/list"`:
		return c.leanTask(&req, string(req.Method[1:len(req.Method)-1]))
	}
	return false
}

// rawID returns a request's id, if it is one the lean path takes: a
// string or a number that the go-sdk's jsonrpc.ID holds exactly
// (canonicalID). Any other id (1.5, 1e3, a 30-digit number, a string with
// escapes) goes to the go-sdk's path, where the connection gives it a
// stand-in (ids.go): as a key of the lean calls in flight, 1.5 and 1 would
// be one id, and a cancellation of one would withdraw the other.
func rawID(raw []byte) (jsonrpc.ID, bool) {
	if !canonicalID(raw) {
		return jsonrpc.ID{}, false
	}
	var v any
	if raw[0] == '"' {
		v = string(raw[1 : len(raw)-1])
	} else {
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return jsonrpc.ID{}, false
		}
		v = float64(n) // exact: at most 15 digits
	}
	id, err := jsonrpc.MakeID(v)
	return id, err == nil
}

// parseCallParams sorts out a tools/call's params; ok is false for params
// the go-sdk must judge.
func parseCallParams(raw []byte) (p leanCallParams, ok bool) {
	if len(raw) == 0 || raw[0] != '{' {
		return p, false
	}
	var name, meta []byte
	plain := true
	if relay.Members(raw, func(key, val []byte) bool {
		switch string(key) {
		case `"name"`:
			name = val
		case `"arguments"`:
			p.Arguments = val
		case `"_meta"`:
			meta = val
		case `"inputResponses"`, `"requestState"`:
			p.retry = p.retry || isSet(val)
		case `"task"`:
			if isSet(val) {
				p.Task = val
			}
		default:
			plain = bytes.IndexByte(key, '\\') < 0
		}
		return plain
	}) != nil || p.retry || len(name) < 3 || name[0] != '"' {
		return p, false
	}
	if bytes.IndexByte(name, '\\') < 0 {
		p.Name = string(name[1 : len(name)-1])
	} else if json.Unmarshal(name, &p.Name) != nil {
		return p, false
	}
	if p.Name == "" {
		return p, false
	}
	if isSet(meta) {
		if meta[0] != '{' {
			return p, false
		}
		var own []byte
		if relay.Members(meta, func(key, val []byte) bool {
			if bytes.IndexByte(key, '\\') >= 0 {
				plain = false
				return false
			}
			k := key[1 : len(key)-1]
			switch {
			case string(k) == "progressToken":
				if isSet(val) {
					p.ProgressToken = val
				}
			case bytes.HasPrefix(k, []byte(protocolMetaPrefix)):
				switch string(k) {
				case mcp.MetaKeyProtocolVersion:
					p.era.version, p.era.hasVersion = val, true
				case mcp.MetaKeyClientCapabilities:
					p.era.caps = val
				case mcp.MetaKeyClientInfo:
					p.era.info = val
				}
			default:
				if len(own) > 0 {
					own = append(own, ',')
				}
				own = append(own, key...)
				own = append(own, ':')
				own = append(own, val...)
			}
			return true
		}) != nil {
			return p, false
		}
		p.Meta = own
	}
	return p, true
}

func (c *sockConn) leanCall(req *leanRequest) bool {
	ss := c.ss.Load()
	if ss == nil || ss.InitializeParams() == nil {
		return false // the go-sdk checks the session's state
	}
	id, ok := rawID(req.ID)
	if !ok {
		return false
	}
	p, ok := parseCallParams(req.Params)
	if !ok {
		return false
	}
	modern, ok := leanEra(p.era)
	if !ok {
		return false
	}
	switch kind, target, args, bad := c.f.metaCall(p.Name, p.Arguments); kind {
	case metaFind:
		return false // answered by the gateway itself, on the go-sdk's path
	case metaCall:
		if bad != nil {
			return false // the go-sdk's path answers it, with the same verdict
		}
		// The call of the tool call_tool names, as if it came directly.
		p.Name, p.Arguments = target, args
	}
	if p.Task != nil && !modern {
		return c.leanTaskCall(req.ID, p)
	}

	// One allocation for the call's state: its entry, its params and
	// the relay's Call live in it.
	call := &rawLean{c: c, rb: c.rb, id: id, rawID: req.ID, params: p, modern: modern}
	call.e = &call.entry
	call.p = &call.params
	c.leanMu.Lock()
	if _, dup := c.lean[id]; dup || c.leanClosed {
		c.leanMu.Unlock()
		return false // let the go-sdk judge a duplicate id
	}
	c.lean[id] = call.e
	c.leanMu.Unlock()

	if c.f.needsWait(p.Name) {
		// A server starting for the first time: wait for it, but not on
		// the reader.
		go call.start()
	} else {
		call.start()
	}
	return true
}

// leanEntry is a lean call in flight: how to withdraw it.
type leanEntry struct {
	stop      func() // the relay's withdrawal, once it started
	withdrawn bool   // the client cancelled it, or went away
}

// leanDone removes a call that finished and reports whether it was still
// in flight (its response is due).
func (c *sockConn) leanDone(id jsonrpc.ID, e *leanEntry) bool {
	c.leanMu.Lock()
	defer c.leanMu.Unlock()
	if c.lean[id] != e {
		return false
	}
	delete(c.lean, id) // before the response: the client may reuse the id
	return true
}

// withdraw cancels a lean call: the client cancelled it, or went away.
func (c *sockConn) withdraw(e *leanEntry) {
	c.leanMu.Lock()
	e.withdrawn = true
	stop := e.stop
	c.leanMu.Unlock()
	if stop != nil {
		stop()
	}
}

// withdrawAll cancels every lean call of a connection that ends.
func (c *sockConn) withdrawAll() {
	c.leanMu.Lock()
	c.leanClosed = true
	all := c.lean
	c.lean = map[jsonrpc.ID]*leanEntry{}
	c.leanMu.Unlock()
	for _, e := range all {
		c.withdraw(e)
	}
}

func (c *sockConn) leanCancel(req *leanRequest) bool {
	var reqID []byte
	if len(req.Params) == 0 || req.Params[0] != '{' || relay.Members(req.Params, func(key, val []byte) bool {
		if string(key) == `"requestId"` {
			reqID = val
		}
		return true
	}) != nil {
		return false
	}
	id, ok := rawID(reqID)
	if !ok {
		return false
	}
	c.leanMu.Lock()
	e := c.lean[id]
	delete(c.lean, id)
	c.leanMu.Unlock()
	if e == nil {
		return false // one of the go-sdk's requests
	}
	c.withdraw(e)
	return true
}

// leanEra tells a legacy request from one of the 2026-07-28 era (whose
// _meta carries the protocol version and the client's capabilities), as
// the go-sdk does; ok is false for a request the go-sdk must judge.
func leanEra(m leanMeta) (modern, ok bool) {
	if !m.hasVersion {
		return false, true
	}
	var v string
	if json.Unmarshal(m.version, &v) != nil || v < "2026-07-28" {
		return false, true // the go-sdk treats it as a legacy request too
	}
	if !slices.Contains(supportedVersions, v) {
		return false, false // the go-sdk answers "unsupported protocol version"
	}
	if !isObject(m.caps) {
		return false, false
	}
	if m.info != nil && !isObject(m.info) {
		return false, false
	}
	return true, true
}

// isObject reports whether a value (already checked to be JSON) is an
// object.
func isObject(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && t[0] == '{'
}

func isSet(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// resultLine is the response to a lean call: the result as the go-sdk's
// server would write it (for a 2026-07-28 request with the gateway's
// serverInfo in _meta), or nil if it does not encode.
func (c *sockConn) resultLine(id json.RawMessage, res *mcp.CallToolResult, modern bool) []byte {
	if modern {
		m := make(mcp.Meta, len(res.Meta)+1)
		maps.Copy(m, res.Meta)
		if _, ok := m[mcp.MetaKeyServerInfo]; !ok {
			m[mcp.MetaKeyServerInfo] = c.g.impl
		}
		res.Meta = m
	}
	body, err := json.Marshal(res)
	if err != nil || len(body) < 2 || body[len(body)-1] != '}' {
		return nil
	}
	out := make([]byte, 0, len(body)+len(id)+64)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, body...)
	return append(out, "}\n"...)
}

// errorLine is an error response: a JSON-RPC error keeps its code, message
// and data; any other error is an internal error, as the go-sdk writes it.
func errorLine(id json.RawMessage, err error) []byte {
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		msg := "the response does not encode"
		if err != nil {
			msg = err.Error()
		}
		we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
	}
	body, _ := json.Marshal(we)
	out := make([]byte, 0, len(body)+len(id)+48)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"error":`...)
	out = append(out, body...)
	return append(out, "}\n"...)
}

type leanProgress struct {
	JSONRPC string             `json:"jsonrpc"`
	Method  string             `json:"method"`
	Params  leanProgressParams `json:"params"`
}

type leanProgressParams struct {
	Meta          mcp.Meta        `json:"_meta,omitempty"`
	ProgressToken json.RawMessage `json:"progressToken"`
	Message       string          `json:"message,omitempty"`
	Progress      float64         `json:"progress"`
	Total         float64         `json:"total,omitempty"`
}

// leanProgress passes a server's progress notification on under the
// client's own token.
func (c *sockConn) leanProgress(token json.RawMessage, n *mcp.ProgressNotificationParams) {
	b, err := json.Marshal(leanProgress{JSONRPC: "2.0", Method: "notifications/progress", Params: leanProgressParams{
		Meta: userMeta(n.Meta), ProgressToken: token, Message: n.Message, Progress: n.Progress, Total: n.Total}})
	if err != nil {
		return
	}
	_ = c.send(append(b, '\n'))
}

// rawLean is a lean tools/call relayed through a RawBackend: nothing
// waits on it; the server's answer becomes the client's response on the
// goroutine that reads the server.
type rawLean struct {
	c      *sockConn
	rb     RawBackend
	e      *leanEntry
	id     jsonrpc.ID
	rawID  json.RawMessage
	p      *leanCallParams
	modern bool

	entry  leanEntry      // e points here
	params leanCallParams // p points here
	call   relay.Call     // the relay's

	// When the call reached each step (see timing).
	t0, tResolved, tSent time.Time
	server               string
}

// finish sends the response, unless the call was withdrawn.
func (r *rawLean) finish(line []byte) {
	if r.c.leanDone(r.id, r.e) && line != nil {
		_ = r.c.send(line)
	}
}

// Thresholds of the lean path's timing log (variables for tests; a
// Gateway copies slowServerAfter when it is made).
var (
	// stallAfter: a step of the gateway's own (from the request to the
	// server's stdin, from the server's answer to the client's socket)
	// that takes longer is a stall, logged as a warning: those steps take
	// microseconds.
	stallAfter = time.Second
	// slowServerAfter: a server that takes longer to answer is logged at
	// Info, with the steps' times, so that a long call is never silent.
	slowServerAfter = 10 * time.Second
)

// timing logs a call whose steps took long: a stall of the gateway's own
// (Warn), a long wait for a server's first start or a slow server (Info).
// tAnswer is when the server's answer (or the call's error) came; the
// response has been handed to the client's socket when it runs.
func (r *rawLean) timing(tAnswer time.Time) {
	wait := r.tResolved.Sub(r.t0) // resolveTool waits only for a first start
	server := tAnswer.Sub(r.tSent)
	deliver := time.Since(tAnswer)
	stalled, slow := deliver > stallAfter, wait > stallAfter || server > r.c.g.slowServer
	if !stalled && !slow {
		return // the usual case: nothing to say, nothing allocated
	}
	attrs := []any{"server", r.server, "tool", r.p.Name, "waited_for_start", wait, "server_answered_in", server, "to_client", deliver}
	if stalled {
		r.c.g.log.Warn("the gateway stalled on a tool call: handing the answer to the client took over "+stallAfter.String(), attrs...)
	} else {
		r.c.g.log.Info("a tool call through the gateway took long", attrs...)
	}
}

func (r *rawLean) start() {
	c := r.c
	r.t0 = time.Now()
	e, down := c.f.resolveTool(c.ctx, r.p.Name)
	r.tResolved = time.Now()
	if c.ctx.Err() != nil {
		return
	}
	if down != nil {
		r.finish(c.resultLine(r.rawID, toolError(down.text()), r.modern))
		return
	}
	if e == nil {
		r.finish(errorLine(r.rawID, unknownTool(r.p.Name)))
		return
	}
	call := &r.call
	*call = relay.Call{Tool: e.name, Caller: c.caller(r.p.era.info), Arguments: r.p.Arguments, Meta: r.p.Meta, Done: r.done}
	call.Caller.Modern = r.modern
	if tok := r.p.ProgressToken; tok != nil {
		call.Progress = func(params json.RawMessage) { c.rawProgress(tok, params) }
	}
	r.server = e.server
	c.leanMu.Lock()
	withdrawn := r.e.withdrawn
	c.leanMu.Unlock()
	if withdrawn {
		return // cancelled while it waited for its server
	}
	r.tSent = time.Now() // set before the write: Done may run before StartToolCall returns
	stop, err := r.rb.StartToolCall(e.server, call)
	if d := time.Since(r.tSent); d > stallAfter {
		c.g.log.Warn("the gateway stalled on a tool call: sending it to the server took over "+stallAfter.String(), "server", e.server, "tool", r.p.Name, "took", d)
	}
	if err != nil {
		r.finish(c.failedLine(r.rawID, err, r.modern))
		return
	}
	// The client may have withdrawn it meanwhile: then it is stopped now.
	c.leanMu.Lock()
	withdrawn = r.e.withdrawn
	r.e.stop = stop
	c.leanMu.Unlock()
	if withdrawn {
		stop()
	}
}

// done is the relay's Done: the response goes to the client.
func (r *rawLean) done(res *relay.Result, err error) {
	tAnswer := time.Now()
	if err != nil {
		r.finish(r.c.failedLine(r.rawID, err, r.modern))
	} else {
		line, buf := r.c.rawResultLine(r.rawID, res, r.server, r.modern)
		if r.c.leanDone(r.id, r.e) {
			_ = r.c.sendPooled(line, buf)
		} else if buf != nil {
			putLineBuf(buf)
		}
	}
	r.timing(tAnswer)
}

// failedLine is the response to a call that failed: a tool error naming
// the server, or the server's own JSON-RPC error, as facade.call makes
// them on the go-sdk's path.
func (c *sockConn) failedLine(id json.RawMessage, err error, modern bool) []byte {
	var nr *NotRunningError
	var rpc *jsonrpc.Error
	switch {
	case errors.As(err, &nr):
		return c.resultLine(id, toolError(c.g.downText(nr)), modern)
	case errors.As(err, &rpc):
		return errorLine(id, rpc)
	}
	return c.resultLine(id, toolError(err.Error()), modern)
}

// rawResultLine is the response to a relayed call: the server's result
// with what normalize keeps (its own _meta entries, content, structured
// content and error flag; content items as the server wrote them), plus
// what the go-sdk's server adds to a 2026-07-28 response (its serverInfo
// in _meta). It is spliced from the spans the relay found in the answer:
// nothing here parses the content again.
//
// A large line is built in a pooled buffer (buf, nil for a small line),
// which goes back to the pool once the line is written (sendPooled): a
// fresh megabyte per large answer was zeroed, copied into and collected,
// a collection every few such answers.
func (c *sockConn) rawResultLine(id json.RawMessage, res *relay.Result, server string, modern bool) (line []byte, buf *[]byte) {
	size := len(res.Raw) + len(id) + len(c.g.implJSON) + 128
	var out []byte
	if size >= pooledLine {
		buf = getLineBuf(size)
		out = (*buf)[:0]
	} else {
		out = make([]byte, 0, size)
	}
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	meta := serverMeta(nil, res.Meta, server)
	if modern {
		meta = append(meta, member{serverInfoKey, c.g.implJSON})
	}
	out = appendResult(out, res, meta, roundMembers(res))
	out = append(out, "}\n"...)
	if buf != nil {
		*buf = out // grown, if it did
	}
	return out, buf
}

// pooledLine is the size from which a response line is built in a pooled
// buffer.
const pooledLine = 64 << 10

// lineBufs holds buffers of large response lines between two answers
// (the pool drops what stays unused over two collections).
var lineBufs sync.Pool

func getLineBuf(size int) *[]byte {
	if b, ok := lineBufs.Get().(*[]byte); ok {
		if cap(*b) >= size {
			return b
		}
	}
	b := make([]byte, 0, size)
	return &b
}

func putLineBuf(b *[]byte) {
	*b = (*b)[:0]
	lineBufs.Put(b)
}

// serverInfoKey is the _meta key of the gateway's serverInfo, quoted.
var serverInfoKey = []byte(`"` + mcp.MetaKeyServerInfo + `"`)

// rawProgress passes a server's progress notification (its params as
// JSON) on under the client's own token.
func (c *sockConn) rawProgress(token json.RawMessage, params json.RawMessage) {
	var n mcp.ProgressNotificationParams
	if _, err := segjson.Parse(params, &n, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return
	}
	c.leanProgress(token, &n)
}
