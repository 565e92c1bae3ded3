package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	segjson "github.com/segmentio/encoding/json"
)

// The lean path answers a socket client's tools/call without the go-sdk's
// server: it decodes the request's envelope, name, arguments (kept raw) and
// _meta, forwards the call through the same facade.call as the go-sdk's
// path, and writes the response line itself. Everything else, and every
// tools/call that is not plainly well formed for an initialized session
// (no id, an unsupported or incomplete per-request protocol _meta, a
// multi-round-trip retry), goes to the go-sdk, whose verdict stands. The
// conformance tests run the same cases through both paths.

var (
	markCall   = []byte(`tools/call`)
	markCancel = []byte(`notifications/cancelled`)
)

// errClientCancelled is the cause of a lean call's context when the client
// cancelled it: no response is sent then, as the protocol asks.
var errClientCancelled = errors.New("cancelled by the client")

type leanRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type leanCallParams struct {
	Name           string                     `json:"name"`
	Arguments      json.RawMessage            `json:"arguments"`
	Meta           map[string]json.RawMessage `json:"_meta"`
	InputResponses json.RawMessage            `json:"inputResponses"`
	RequestState   json.RawMessage            `json:"requestState"`
}

type leanCancelParams struct {
	RequestID json.RawMessage `json:"requestId"`
}

// segFlags parse as the go-sdk does (case-sensitive field names); the
// raw values alias the line, which readLine made for this message alone.
const segFlags = segjson.DontMatchCaseInsensitiveStructFields | segjson.DontCopyRawMessage

// supportedVersions are the go-sdk's protocol versions.
var supportedVersions = mcp.SupportedProtocolVersions()

// tryLean handles line on the lean path and reports whether it did.
func (c *sockConn) tryLean(line []byte) bool {
	if c.g.opts.SDKOnly {
		return false
	}
	call := bytes.Contains(line, markCall)
	if !call && !bytes.Contains(line, markCancel) {
		return false
	}
	var req leanRequest
	if rest, err := segjson.Parse(line, &req, segFlags); err != nil || len(bytes.TrimSpace(rest)) != 0 || req.JSONRPC != "2.0" {
		return false
	}
	switch req.Method {
	case "tools/call":
		return c.leanCall(&req)
	case "notifications/cancelled":
		return c.leanCancel(&req)
	}
	return false
}

// rawID returns a request's id, if it is a valid one (a string or a
// number; not null).
func rawID(raw json.RawMessage) (jsonrpc.ID, bool) {
	if len(raw) == 0 {
		return jsonrpc.ID{}, false
	}
	var v any
	if err := segjson.Unmarshal(raw, &v); err != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil || !id.IsValid() {
		return jsonrpc.ID{}, false
	}
	return id, true
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
	var p leanCallParams
	if len(req.Params) == 0 {
		return false
	}
	if rest, err := segjson.Parse(req.Params, &p, segFlags); err != nil || len(bytes.TrimSpace(rest)) != 0 || p.Name == "" {
		return false
	}
	if isSet(p.InputResponses) || isSet(p.RequestState) {
		return false // a multi-round-trip retry
	}
	modern, ok := leanEra(p.Meta)
	if !ok {
		return false
	}
	var meta map[string]json.RawMessage
	var progressToken json.RawMessage
	for k, v := range p.Meta {
		switch {
		case k == "progressToken":
			if isSet(v) {
				progressToken = v
			}
		case strings.HasPrefix(k, protocolMetaPrefix):
		default:
			if meta == nil {
				meta = map[string]json.RawMessage{}
			}
			meta[k] = v
		}
	}

	e := &leanEntry{}
	c.leanMu.Lock()
	if _, dup := c.lean[id]; dup || c.leanClosed {
		c.leanMu.Unlock()
		return false // let the go-sdk judge a duplicate id
	}
	c.lean[id] = e
	c.leanMu.Unlock()

	if rb, ok := c.g.backend.(RawBackend); ok {
		call := &rawLean{c: c, rb: rb, e: e, id: id, rawID: req.ID, p: &p, meta: meta, progressToken: progressToken, modern: modern}
		if c.f.needsWait(p.Name) {
			// A server starting for the first time: wait for it, but not
			// on the reader.
			go call.start()
		} else {
			call.start()
		}
		return true
	}
	ctx, cancel := context.WithCancelCause(c.ctx)
	e.cancel = cancel
	go func() {
		defer cancel(nil)
		var deliver func(*mcp.ProgressNotificationParams)
		if progressToken != nil {
			deliver = func(n *mcp.ProgressNotificationParams) { c.leanProgress(progressToken, n) }
		}
		var m mcp.Meta
		for k, v := range meta {
			if m == nil {
				m = mcp.Meta{}
			}
			m[k] = v
		}
		res, err := c.f.call(ctx, p.Name, p.Arguments, m, deliver)
		if !c.leanDone(id, e) || ctx.Err() != nil {
			return // cancelled by the client (no response), or the client is gone
		}
		var out []byte
		if err == nil {
			out = c.resultLine(req.ID, res, modern)
		}
		if out == nil {
			out = errorLine(req.ID, err)
		}
		_ = c.send(out)
	}()
	return true
}

// leanEntry is a lean call in flight: how to withdraw it.
type leanEntry struct {
	stop      func()                  // the RawBackend's withdrawal, once it started
	cancel    context.CancelCauseFunc // the goroutine's context, on the Backend path
	withdrawn bool                    // the client cancelled it, or went away
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
	stop, cancel := e.stop, e.cancel
	c.leanMu.Unlock()
	if stop != nil {
		stop()
	}
	if cancel != nil {
		cancel(errClientCancelled)
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
	var p leanCancelParams
	if len(req.Params) == 0 {
		return false
	}
	if _, err := segjson.Parse(req.Params, &p, segFlags); err != nil {
		return false
	}
	id, ok := rawID(p.RequestID)
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
func leanEra(meta map[string]json.RawMessage) (modern, ok bool) {
	raw, has := meta[mcp.MetaKeyProtocolVersion]
	if !has {
		return false, true
	}
	var v string
	if _, err := segjson.Parse(raw, &v, segFlags); err != nil || v < "2026-07-28" {
		return false, true // the go-sdk treats it as a legacy request too
	}
	if !slices.Contains(supportedVersions, v) {
		return false, false // the go-sdk answers "unsupported protocol version"
	}
	if !isObject(meta[mcp.MetaKeyClientCapabilities]) {
		return false, false
	}
	if info, has := meta[mcp.MetaKeyClientInfo]; has && !isObject(info) {
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
	c             *sockConn
	rb            RawBackend
	e             *leanEntry
	id            jsonrpc.ID
	rawID         json.RawMessage
	p             *leanCallParams
	meta          map[string]json.RawMessage
	progressToken json.RawMessage
	modern        bool

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
	attrs := []any{"server", r.server, "tool", r.p.Name, "waited_for_start", wait, "server_answered_in", server, "to_client", deliver}
	switch {
	case deliver > stallAfter:
		r.c.g.log.Warn("the gateway stalled on a tool call: handing the answer to the client took over "+stallAfter.String(), attrs...)
	case wait > stallAfter || server > r.c.g.slowServer:
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
		r.finish(errorLine(r.rawID, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("unknown tool %q", r.p.Name)}))
		return
	}
	call := &RawCall{Tool: e.name, Arguments: r.p.Arguments, Meta: r.meta}
	if r.progressToken != nil {
		call.Progress = func(params json.RawMessage) { c.rawProgress(r.progressToken, params) }
	}
	r.server = e.server
	call.Done = func(result json.RawMessage, err error) {
		tAnswer := time.Now()
		defer r.timing(tAnswer)
		if err != nil {
			r.finish(c.failedLine(r.rawID, err, r.modern))
			return
		}
		line := c.rawResultLine(r.rawID, result, r.modern)
		if line == nil {
			line = errorLine(r.rawID, fmt.Errorf("Switchboard server %q answered tool %q with a result that is not a JSON object", e.server, e.name))
		}
		r.finish(line)
	}
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
// in _meta). nil if the result is not a JSON object.
func (c *sockConn) rawResultLine(id json.RawMessage, result json.RawMessage, modern bool) []byte {
	var top struct {
		Meta              json.RawMessage `json:"_meta"`
		Content           json.RawMessage `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		IsError           json.RawMessage `json:"isError"`
	}
	t := bytes.TrimSpace(result)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	if _, err := segjson.Parse(t, &top, segFlags); err != nil {
		return nil
	}
	out := make([]byte, 0, len(result)+len(id)+128)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":{`...)
	var keys []string
	var meta map[string]json.RawMessage
	if isSet(top.Meta) {
		if _, err := segjson.Parse(top.Meta, &meta, segFlags); err == nil {
			for k := range meta {
				if strings.HasPrefix(k, protocolMetaPrefix) || k == "progressToken" {
					delete(meta, k)
				} else {
					keys = append(keys, k)
				}
			}
		}
	}
	if modern {
		if meta == nil {
			meta = map[string]json.RawMessage{}
		}
		meta[mcp.MetaKeyServerInfo] = c.g.implJSON
		keys = append(keys, mcp.MetaKeyServerInfo)
	}
	if len(keys) > 0 {
		slices.Sort(keys) // as the go-sdk writes a map
		out = append(out, `"_meta":{`...)
		for i, k := range keys {
			if i > 0 {
				out = append(out, ',')
			}
			out = appendString(out, k)
			out = append(out, ':')
			out = append(out, bytes.TrimSpace(meta[k])...)
		}
		out = append(out, "},"...)
	}
	out = append(out, `"content":`...)
	if isSet(top.Content) {
		out = append(out, bytes.TrimSpace(top.Content)...)
	} else {
		out = append(out, "[]"...)
	}
	if isSet(top.StructuredContent) {
		out = append(out, `,"structuredContent":`...)
		out = append(out, bytes.TrimSpace(top.StructuredContent)...)
	}
	if bytes.Equal(bytes.TrimSpace(top.IsError), []byte("true")) {
		out = append(out, `,"isError":true`...)
	}
	return append(out, "}}\n"...)
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	plain := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			plain = false
			break
		}
	}
	if plain {
		b = append(b, '"')
		b = append(b, s...)
		return append(b, '"')
	}
	q, _ := json.Marshal(s)
	return append(b, q...)
}

// rawProgress passes a server's progress notification (its params as
// JSON) on under the client's own token.
func (c *sockConn) rawProgress(token json.RawMessage, params json.RawMessage) {
	var n mcp.ProgressNotificationParams
	if _, err := segjson.Parse(params, &n, segjson.DontMatchCaseInsensitiveStructFields); err != nil {
		return
	}
	c.leanProgress(token, &n)
}
