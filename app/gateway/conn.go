package gateway

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/engine/stdio"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// The socket's wire format (the bridge's preamble, then MCP's stdio
// transport) is described in package app/bridge, whose types these are.

// HelloVersion is the version of the bridge's preamble.
const HelloVersion = bridge.HelloVersion

type (
	// Hello is a bridge's preamble.
	Hello = bridge.Hello
	// Welcome is the gateway's answer to a [Hello], or the last line of a
	// session whose descriptors were handed over.
	Welcome = bridge.Welcome
)

type helloLine struct {
	Switchboard *Hello `json:"switchboard"`
}

type welcomeLine struct {
	Switchboard *Welcome `json:"switchboard"`
}

// Handshake is [bridge.Handshake]: a bridge's side of the preamble.
func Handshake(nc net.Conn, h Hello) (*bufio.Reader, *Welcome, error) { return bridge.Handshake(nc, h) }

// ErrHostGone is [bridge.ErrHostGone].
var ErrHostGone = bridge.ErrHostGone

// WaitEnd is [bridge.WaitEnd].
func WaitEnd(br *bufio.Reader) error { return bridge.WaitEnd(br) }

// serveConn runs one socket client: the peer check, the preamble, then an
// MCP session of its own facade until the client goes away.
func (g *Gateway) serveConn(nc net.Conn) {
	pid, err := api.CheckPeer(nc, g.opts.PeerGuard)
	if err != nil {
		g.log.Warn("refused a gateway client", "pid", pid, "error", err)
		_ = nc.Close()
		return
	}
	rr := newRightsReader(nc)
	br := bufio.NewReaderSize(rr, 64<<10)
	first, err := readLine(br, g.opts.MaxMessageSize)
	inline := rr.take()         // descriptors sent with the preamble, if any
	var firstBig *tooLargeError // a first message over the limit: answered once the session runs
	if errors.As(err, &firstBig) {
		first, err = nil, nil
	}
	if err != nil {
		closeFDs(inline)
		_ = nc.Close()
		return
	}
	var filter Filter
	var handOff bool
	helloSeen := false // a bridge's preamble came
	var in, out *os.File
	client := fmt.Sprintf("pid %d", pid)
	if hello, ok := parseHello(first); ok {
		first = nil
		helloSeen = true
		w := Welcome{Version: HelloVersion}
		if hello.Version != HelloVersion {
			w.Error = fmt.Sprintf("this Switchboard host speaks bridge preamble version %d, the bridge %d: use the switchboard binary of the running host (stop it with 'switchboard stop' after an upgrade)", HelloVersion, hello.Version)
		} else if err := hello.Filter.Check(); err != nil {
			w.Error = err.Error()
		} else {
			filter = hello.Filter
			_, w.Warnings = g.effective(filter) // the facade resolves it again on every sync
			w.FDs = hello.FDs && handOffHere && br.Buffered() == 0
			handOff = w.FDs
			if handOff && hello.Inline && len(inline) > 0 {
				in, out, err = filesOf(inline)
				inline = nil
				if err != nil {
					g.log.Warn("a bridge's stdin and stdout did not come with its preamble", "client", client, "error", err)
					w.FDs, handOff = false, false
				}
				w.Inline = w.FDs
			}
		}
		if hello.Client != "" {
			client += " (" + hello.Client + ")"
		}
		b, _ := json.Marshal(welcomeLine{Switchboard: &w})
		_ = nc.SetWriteDeadline(time.Now().Add(5 * time.Second))
		if _, err := nc.Write(append(b, '\n')); err != nil || w.Error != "" {
			closeFiles(in, out)
			closeFDs(inline)
			_ = nc.Close()
			return
		}
		_ = nc.SetWriteDeadline(time.Time{})
	}

	closeFDs(inline) // not taken: a client that sent descriptors unasked
	var c *sockConn
	f := g.newFacade(filter)
	f.addsFound = true // a facade of its own
	f.conn, f.connID = fmt.Sprintf("socket pid %d", pid), g.connSeq.Add(1)
	if helloSeen {
		f.conn = fmt.Sprintf("bridge pid %d", pid)
	}
	if handOff && in == nil {
		// An older bridge: the descriptors come after the Welcome.
		_ = nc.SetReadDeadline(time.Now().Add(10 * time.Second))
		in, out, err = receiveFDs(nc)
		_ = nc.SetReadDeadline(time.Time{})
		if err != nil {
			g.log.Warn("a bridge did not hand its stdin and stdout over", "client", client, "error", err)
			_ = nc.Close()
			return
		}
	}
	if handOff {
		client += " (stdin and stdout handed over)"
		// Raw reads of the app's stdin pipe (stdio.NewReadNow): no
		// system-call bookkeeping of the scheduler per line.
		c = newSockConn(g, f, nc, in, out, bufio.NewReaderSize(stdio.NewReadNow(in), 64<<10), nil)
	} else {
		c = newSockConn(g, f, nc, nc, nc, br, nil)
		c.first = first
		c.firstBig = firstBig
	}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		c.endWith("the Switchboard host is stopping")
		_ = c.Close()
		<-c.writeDone
		return
	}
	g.facades[f] = struct{}{}
	g.conns[c] = struct{}{}
	g.notifyClients()
	g.mu.Unlock()
	f.sync() // a view built since newFacade
	g.log.Info("gateway client connected", "client", client, "servers", filter.Servers, "tools", filter.Tools, "profile", filter.Profile, "toolMode", filter.ToolMode)
	defer func() {
		g.mu.Lock()
		delete(g.facades, f)
		delete(g.conns, c)
		g.notifyClients()
		g.mu.Unlock()
		g.dropConn(f.connID, c.rb)
		g.log.Info("gateway client disconnected", "client", client)
	}()

	ss, err := f.srv.Connect(c.ctx, c, nil)
	if err != nil {
		g.log.Warn("a gateway client's session did not start", "client", client, "error", err)
		_ = c.Close()
		<-c.writeDone
		return
	}
	c.ss.Store(ss)
	go c.readLoop()
	_ = ss.Wait()
	_ = c.Close()
	<-c.readDone
	<-c.writeDone
}

// caller is who makes the lean calls of c: the connection its facade
// names, and the app's name from its handshake or, in the 2026-07-28 era
// (no handshake), from the request's own clientInfo (info, or nil). The
// name, once known, is kept.
func (c *sockConn) caller(info json.RawMessage) relay.Caller {
	cl := relay.Caller{Conn: c.f.conn, ID: c.f.connID}
	if app := c.app.Load(); app != nil {
		cl.App = *app
		return cl
	}
	if ss := c.ss.Load(); ss != nil {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			cl.App = cleanClientName(p.ClientInfo.Name)
		}
	}
	if cl.App == "" && len(info) > 0 {
		var ci struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(info, &ci) == nil {
			cl.App = cleanClientName(ci.Name)
		}
	}
	if cl.App != "" {
		c.app.Store(&cl.App)
	}
	return cl
}

// ClientNames returns the names that the apps on the socket clients gave
// in their MCP handshake (clientInfo.name, e.g. "claude-ai",
// "cursor-vscode"), each once, sorted. A client whose session has not
// begun yet (no initialize, or in the 2026-07-28 era no request but
// server/discover) or whose app sent no name adds none. A name is
// cleaned for display: control characters dropped, spaces trimmed, at
// most [maxClientName] bytes.
func (g *Gateway) ClientNames() []string {
	g.mu.Lock()
	sss := make([]*mcp.ServerSession, 0, len(g.conns))
	for c := range g.conns {
		if ss := c.ss.Load(); ss != nil {
			sss = append(sss, ss)
		}
	}
	g.mu.Unlock()
	var names []string
	for _, ss := range sss {
		p := ss.InitializeParams()
		if p == nil || p.ClientInfo == nil {
			continue
		}
		if n := cleanClientName(p.ClientInfo.Name); n != "" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// maxClientName bounds a name that ClientNames returns.
const maxClientName = 64

// cleanClientName makes an app's self-given name fit for a dialog.
func cleanClientName(s string) string {
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == unicode.ReplacementChar {
			return -1
		}
		return r
	}, s))
	if len(s) <= maxClientName {
		return s
	}
	cut := maxClientName
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut])
}

// filterWarnings names the servers of a filter that the config lacks.
func (g *Gateway) filterWarnings(f Filter) []string {
	v := g.current()
	var out []string
	for _, s := range f.Servers {
		if v.servers[s] == nil {
			if near := english.Nearest(s, slices.Collect(maps.Keys(v.servers))); near != "" {
				out = append(out, fmt.Sprintf("no server is named %q: did you mean %q? 'switchboard status' lists them", s, near))
				continue
			}
			out = append(out, fmt.Sprintf("no server is named %q (yet): 'switchboard status' lists them", s))
		}
	}
	return out
}

func closeFiles(fs ...*os.File) {
	for _, f := range fs {
		if f != nil {
			_ = f.Close()
		}
	}
}

func parseHello(line []byte) (*Hello, bool) {
	t := bytes.TrimLeft(line, " \t\r")
	if !bytes.HasPrefix(t, []byte(`{"switchboard"`)) {
		return nil, false
	}
	var h helloLine
	if err := json.Unmarshal(line, &h); err != nil || h.Switchboard == nil {
		return nil, false
	}
	return h.Switchboard, true
}

// sockConn is the [mcp.Connection] (and [mcp.Transport]) of one socket
// client. A reader goroutine takes each line: a tools/call (or the
// cancellation of one) goes down the lean path; anything else is decoded
// for the go-sdk's session, which Read hands it to. Everything written goes
// through a bounded queue to a writer goroutine, so that nothing waits on
// a slow client: one that lets the queue overflow is disconnected.
type sockConn struct {
	g     *Gateway
	f     *facade
	nc    net.Conn // the socket
	in    stream   // the client's messages: the socket, or the bridge's stdin
	out   sink     // where the responses go: the socket, or the bridge's stdout
	br    *bufio.Reader
	first []byte
	// firstBig: the client's first line was over the limit (a client
	// with no preamble); readLoop answers it first.
	firstBig *tooLargeError
	// handedOff: in and out are the bridge's stdin and stdout; the socket
	// only carries the end of the session.
	handedOff bool
	endReason atomic.Pointer[string]
	ctlMu     sync.Mutex // the socket's lines once handed off: notices, then the end

	ctx    context.Context
	cancel context.CancelFunc

	msgs      chan jsonrpc.Message
	readDone  chan struct{}
	readErr   error // set before readDone closes
	writeDone chan struct{}
	q         outQueue
	direct    func([]byte) (int, bool) // a write that never waits; nil: always queue
	closeOnce sync.Once

	ss  atomic.Pointer[mcp.ServerSession]
	app atomic.Pointer[string] // the app's name, once known (caller)
	// initID is the id of the client's initialize request, whose answer
	// gets the tasks capability (tasks.go).
	initID atomic.Pointer[jsonrpc.ID]
	// rb relays the lean path's calls; nil turns the lean path off (a
	// backend that cannot relay: only tests' doubles).
	rb RawBackend

	// ids are the stand-ins of the ids the go-sdk would not give back as
	// written (ids.go).
	ids idMap

	leanMu     sync.Mutex
	lean       map[jsonrpc.ID]*leanEntry // lean calls in flight
	leanClosed bool                      // the connection ended: no new ones
}

// stream and sink are a net.Conn or an *os.File.
type stream interface {
	io.ReadCloser
	SetReadDeadline(time.Time) error
}

type sink interface {
	io.WriteCloser
	SetWriteDeadline(time.Time) error
}

func newSockConn(g *Gateway, f *facade, nc net.Conn, in stream, out sink, br *bufio.Reader, first []byte) *sockConn {
	ctx, cancel := context.WithCancel(context.Background())
	c := &sockConn{g: g, f: f, nc: nc, in: in, out: out, br: br, first: first, ctx: ctx, cancel: cancel,
		handedOff: in != stream(nc),
		msgs:      make(chan jsonrpc.Message), readDone: make(chan struct{}), writeDone: make(chan struct{}),
		lean: map[jsonrpc.ID]*leanEntry{}}
	c.q.init(g.opts.QueueBytes)
	if rb, ok := g.backend.(RawBackend); ok {
		c.rb = rb
	}
	c.direct = directWriter(out)
	go c.writeLoop()
	if c.handedOff {
		// The bridge going away ends the session.
		go func() {
			var b [1]byte
			_, _ = nc.Read(b[:])
			_ = c.Close()
		}()
	}
	return c
}

// endWith sets why the session ends, for a bridge that handed its
// descriptors over.
func (c *sockConn) endWith(reason string) { c.endReason.CompareAndSwap(nil, &reason) }

// Connect implements [mcp.Transport]: the connection is already there.
func (c *sockConn) Connect(context.Context) (mcp.Connection, error) { return c, nil }

// SessionID implements [mcp.Connection].
func (c *sockConn) SessionID() string { return "" }

// Read implements [mcp.Connection].
func (c *sockConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.msgs:
		return m, nil
	case <-c.readDone:
		return nil, c.readErr
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write implements [mcp.Connection].
func (c *sockConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		if id := c.initID.Load(); id != nil && resp.Error == nil && resp.ID == *id && c.rb != nil {
			// The gateway's tasks capability (tasks.go): the go-sdk's
			// ServerCapabilities has no member for it.
			r := *resp
			r.Result = withTasksCapability(resp.Result)
			if nb, err := jsonrpc.EncodeMessage(&r); err == nil {
				b = nb
			}
		}
		b = c.ids.restore(b, resp) // the client's id, as it wrote it
	}
	return c.send(append(b, '\n'))
}

// errClientGone is the error of a write to a client that is gone.
var errClientGone = errors.New("the gateway client disconnected")

// send writes one line to the client without ever waiting: what the
// socket takes at once is written by the caller (no hand-off to another
// goroutine), the rest is queued for the writer goroutine. Lines go out
// whole and in order. A client that lets the queue overflow is
// disconnected.
func (c *sockConn) send(line []byte) error { return c.sendPooled(line, nil) }

// sendPooled is send of a line built in buf, a buffer of lineBufs: it goes
// back to the pool once the line is written (or dropped).
func (c *sockConn) sendPooled(line []byte, buf *[]byte) error {
	q := &c.q
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return errClientGone
	}
	if !q.writing && len(q.bufs) == 0 && c.direct != nil {
		n, ok := c.direct(line)
		if !ok {
			q.mu.Unlock()
			c.writeFailed()
			return errClientGone
		}
		if n == len(line) {
			q.mu.Unlock()
			if buf != nil {
				putLineBuf(buf)
			}
			return nil
		}
		line = line[n:]
	}
	if q.bytes+len(line) > q.limit {
		q.mu.Unlock()
		c.g.log.Warn("a gateway client does not read its messages; disconnecting it", "queued_bytes", q.bytes)
		c.endWith("the app did not read the gateway's messages (more than " + strconv.Itoa(q.limit>>20) + " MiB waited)")
		_ = c.Close()
		return errClientGone
	}
	q.bufs = append(q.bufs, line)
	if buf != nil {
		q.pooled = append(q.pooled, buf)
	}
	q.bytes += len(line)
	q.mu.Unlock()
	q.signal()
	return nil
}

// writeFailed ends the connection after a failed write.
func (c *sockConn) writeFailed() {
	c.q.close()
	c.cancel()
	_ = c.in.SetReadDeadline(time.Now())
}

// Close implements [mcp.Connection]: it cancels the lean calls, stops
// reading, and lets the writer flush for at most a second.
func (c *sockConn) Close() error {
	c.closeOnce.Do(func() {
		c.cancel()
		c.withdrawAll()
		c.q.close()
		_ = c.in.SetReadDeadline(time.Now())
		_ = c.out.SetWriteDeadline(time.Now().Add(time.Second))
	})
	return nil
}

func (c *sockConn) writeLoop() {
	defer close(c.writeDone)
	defer c.finish()
	for {
		batch, pooled, closed := c.q.take()
		if len(batch) > 0 {
			n := 0
			for _, b := range batch {
				n += len(b)
			}
			bufs := net.Buffers(batch)
			_, err := bufs.WriteTo(c.out)
			c.q.done(n)
			if err != nil {
				c.writeFailed()
				return
			}
			for _, b := range pooled { // written: free for the next line
				putLineBuf(b)
			}
			continue
		}
		if closed {
			return
		}
		<-c.q.wake
	}
}

// finish closes the connection's streams once everything is written; a
// bridge that handed its descriptors over gets the last line first.
func (c *sockConn) finish() {
	_ = c.out.Close()
	if !c.handedOff {
		return
	}
	_ = c.in.Close()
	w := Welcome{Version: HelloVersion, End: true}
	if r := c.endReason.Load(); r != nil {
		w.Error = *r
	}
	b, _ := json.Marshal(welcomeLine{Switchboard: &w})
	c.ctlMu.Lock()
	defer c.ctlMu.Unlock()
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.nc.Write(append(b, '\n'))
	_ = c.nc.Close()
}

func (c *sockConn) readLoop() {
	defer close(c.readDone)
	max := c.g.opts.MaxMessageSize
	if c.firstBig != nil {
		c.tooLarge(c.firstBig, max)
		c.firstBig = nil
	}
	for {
		var line []byte
		var err error
		if c.first != nil {
			line, c.first = c.first, nil
		} else {
			line, err = readLine(c.br, max)
		}
		var big *tooLargeError
		if errors.As(err, &big) {
			c.tooLarge(big, max)
			continue
		}
		if err != nil {
			c.readErr = io.EOF
			c.cancel()
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if c.tryLean(line) {
			continue
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			// The go-sdk would end the session; a stray line should not.
			why := "not a JSON-RPC message: " + err.Error()
			if strings.Contains(err.Error(), "depth") {
				why = "the message is nested too deeply to be decoded (" + err.Error() + "), so it was not delivered: send flatter arguments"
			}
			e, _ := json.Marshal(why)
			resp := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n",
				recoverID(line), jsonrpc.CodeParseError, e)
			_ = c.send([]byte(resp))
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok {
			c.ids.swap(line, req)
			if req.Method == "initialize" && req.ID.IsValid() {
				id := req.ID
				c.initID.Store(&id)
			}
		}
		select {
		case c.msgs <- msg:
		case <-c.ctx.Done():
			c.readErr = io.EOF
			return
		}
	}
}

// tooLarge answers a message over the size limit, which readLine skipped:
// a JSON-RPC error with its id if the start of the line holds one (else a
// null id), and, to a bridge that handed its descriptors over, a notice
// for its stderr. The session goes on.
func (c *sockConn) tooLarge(big *tooLargeError, max int) {
	id := recoverID(big.prefix)
	msg := fmt.Sprintf("the request is larger than the gateway's limit of %d MiB (%d bytes), so it was not delivered: send less in one message (for example a file's path instead of its content)", max>>20, max)
	c.g.log.Warn("a gateway client sent a message over the size limit; answered it with an error", "limit", max, "id", string(id))
	e, _ := json.Marshal(msg)
	_ = c.send([]byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%s}}`+"\n", id, jsonrpc.CodeInvalidRequest, e)))
	if !c.handedOff {
		return
	}
	what := "a request"
	if string(id) != "null" {
		what = "request " + string(id)
	}
	b, _ := json.Marshal(welcomeLine{Switchboard: &Welcome{Version: HelloVersion, Notice: what + " from the app was refused: " + msg}})
	c.ctlMu.Lock()
	_ = c.nc.SetWriteDeadline(time.Now().Add(time.Second))
	_, _ = c.nc.Write(append(b, '\n'))
	_ = c.nc.SetWriteDeadline(time.Time{})
	c.ctlMu.Unlock()
}

// recoverID returns the id of the JSON-RPC message that prefix begins, as
// JSON, if a top-level "id" member (a number or a string) comes whole
// before prefix ends; else null.
func recoverID(prefix []byte) json.RawMessage {
	null := json.RawMessage("null")
	dec := json.NewDecoder(bytes.NewReader(prefix))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return null
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return null
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return null // the rest (params, likely) is past the prefix
		}
		if k == "id" {
			if len(v) > 0 && (v[0] == '"' || v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) {
				return v
			}
			return null
		}
	}
	return null
}

// tooLargeError is readLine's error for a line over the limit, which it
// skipped to its end; prefix is its first bytes (up to idPrefix).
type tooLargeError struct{ prefix []byte }

func (e *tooLargeError) Error() string { return "message too large" }

// idPrefix is how much of a line over the limit is kept to find its id.
const idPrefix = 64 << 10

// readLine reads one line of at most max bytes (newline included) into a
// fresh slice, without the newline. A last line without a newline counts.
// A longer line is read to its end and dropped, and the error is a
// *tooLargeError with its first bytes.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(buf)+len(chunk) > max {
			prefix := append(buf, chunk...)
			if len(prefix) > idPrefix {
				prefix = prefix[:idPrefix:idPrefix]
			}
			prefix = bytes.Clone(prefix)
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, &tooLargeError{prefix: prefix}
		}
		switch {
		case err == nil:
			if buf == nil {
				return bytes.Clone(chunk[:len(chunk)-1]), nil
			}
			return append(buf, chunk[:len(chunk)-1]...), nil
		case errors.Is(err, bufio.ErrBufferFull):
			buf = append(buf, chunk...)
		case errors.Is(err, io.EOF) && len(buf)+len(chunk) > 0:
			return append(buf, chunk...), nil
		default:
			return nil, err
		}
	}
}

// outQueue is a socket client's queue of lines to write, bounded in bytes.
// writing is set while the writer goroutine writes a batch, so that a
// sender does not write past it.
type outQueue struct {
	mu      sync.Mutex
	bufs    [][]byte
	pooled  []*[]byte // lineBufs buffers of lines in bufs, returned once they are written
	bytes   int       // queued
	limit   int
	writing bool
	closed  bool
	wake    chan struct{}
}

func (q *outQueue) init(limit int) {
	q.limit = limit
	q.wake = make(chan struct{}, 1)
}

func (q *outQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take returns the queued lines (and the pooled buffers they are in) and
// marks the queue as being written.
func (q *outQueue) take() ([][]byte, []*[]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	b, p := q.bufs, q.pooled
	q.bufs, q.pooled = nil, nil
	if len(b) > 0 {
		q.writing = true
	}
	return b, p, q.closed
}

// done ends a write of n bytes that take handed out.
func (q *outQueue) done(n int) {
	q.mu.Lock()
	q.bytes -= n
	q.writing = false
	q.mu.Unlock()
}

func (q *outQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}
