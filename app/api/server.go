package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/accept"
)

// Handler answers the requests of the host's clients. Handle runs on its own
// goroutine for each request, concurrently with the connection's other
// requests; ctx ends when the connection closes or the server stops. A
// returned [*Error] reaches the client with its code, a [CodedError] with
// its code and data; any other error becomes code "internal" with the
// error's text, so write it for a person.
type Handler interface {
	Handle(ctx context.Context, conn *ConnInfo, method string, params json.RawMessage) (any, error)
}

// HandlerFunc is a function that is a [Handler].
type HandlerFunc func(ctx context.Context, conn *ConnInfo, method string, params json.RawMessage) (any, error)

// Handle calls f.
func (f HandlerFunc) Handle(ctx context.Context, conn *ConnInfo, method string, params json.RawMessage) (any, error) {
	return f(ctx, conn, method, params)
}

// Method answers one method; see [Handler].
type Method func(ctx context.Context, conn *ConnInfo, params json.RawMessage) (any, error)

// Methods is a [Handler] that dispatches on the method's name; a name it
// lacks is an "unknown_method" error that lists the names it has.
type Methods map[string]Method

// Handle calls the method named method.
func (m Methods) Handle(ctx context.Context, conn *ConnInfo, method string, params json.RawMessage) (any, error) {
	f, ok := m[method]
	if !ok {
		names := slices.Sorted(func(yield func(string) bool) {
			for k := range m {
				if !yield(k) {
					return
				}
			}
		})
		return nil, Errorf(CodeUnknownMethod, "method %q does not exist: this Switchboard host knows %s (and subscribe); a newer client may need a newer host", method, strings.Join(names, ", "))
	}
	return f(ctx, conn, params)
}

// DecodeParams unmarshals a request's params into v and returns a
// "bad_request" [*Error] naming the method if they do not fit. Absent params
// leave v as it is. Unknown fields are ignored, as json.Unmarshal does, so
// that a newer client may add optional ones.
func DecodeParams(method string, params json.RawMessage, v any) error {
	if len(bytes.TrimSpace(params)) == 0 {
		return nil
	}
	if err := json.Unmarshal(params, v); err != nil {
		return Errorf(CodeBadRequest, "the params of %s do not fit: %v", method, err)
	}
	return nil
}

// ConnInfo describes one client connection to a handler.
type ConnInfo struct {
	ID  uint64 // unique within the server, from 1
	PID int    // the peer's process id, 0 when unknown
	UID int    // the peer's user id, -1 when unknown (Windows: the pipe's ACL admits only the user)
}

// Options tune a [Server]; the zero value means the defaults.
type Options struct {
	// MaxMessageSize bounds every message either way, newline included
	// (default DefaultMaxMessageSize).
	MaxMessageSize int
	// QueueMessages and QueueBytes bound each connection's outgoing queue
	// (default 1024 messages, 2×MaxMessageSize bytes). A client whose queue
	// would overflow is dropped.
	QueueMessages int
	QueueBytes    int
	// MaxInFlight bounds the requests that one connection runs at once
	// (default 64); past it the host stops reading that connection until
	// one finishes.
	MaxInFlight int
	// CloseGrace is how long a closing connection may take to flush its
	// last messages (default 1 s).
	CloseGrace time.Duration
	// Logger receives refused peers, dropped clients and failed handlers
	// (default: discarded).
	Logger *slog.Logger
	// PeerGuard, if set, is asked about every peer the uid check admits
	// (pid from SO_PEERCRED, 0 when the OS does not tell): an error refuses
	// it. The host refuses its own sandboxed servers and their descendants
	// (docs/sandbox.md, "Defence in depth at the host").
	PeerGuard func(pid int) error
	// APIVersion is the version of the methods that the handler answers
	// (app/hostapi.APIVersion), which the greeting states as "api" for
	// clients to check; "" states none.
	APIVersion string
}

// ErrServerClosed is what [Server.Serve] returns after [Server.Close].
var ErrServerClosed = errors.New("api: server closed")

// Server serves the LOCAL API on any number of listeners.
type Server struct {
	h    Handler
	opts Options
	log  *slog.Logger

	mu        sync.Mutex
	listeners map[net.Listener]struct{}
	conns     map[*conn]struct{}
	seq       uint64 // of the last published event
	nextID    uint64
	closed    bool
	changed   chan struct{} // capacity 1

	wg sync.WaitGroup // Serve loops and connections
}

// NewServer returns a server that answers requests with h.
func NewServer(h Handler, opts Options) *Server {
	if opts.MaxMessageSize <= 0 {
		opts.MaxMessageSize = DefaultMaxMessageSize
	}
	if opts.QueueMessages <= 0 {
		opts.QueueMessages = 1024
	}
	if opts.QueueBytes <= 0 {
		opts.QueueBytes = 2 * opts.MaxMessageSize
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = 64
	}
	if opts.CloseGrace <= 0 {
		opts.CloseGrace = time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{
		h: h, opts: opts, log: log,
		listeners: make(map[net.Listener]struct{}),
		conns:     make(map[*conn]struct{}),
		changed:   make(chan struct{}, 1),
	}
}

// Serve accepts connections on l until [Server.Close], which closes l, and
// then returns [ErrServerClosed]. Each peer is checked first: on Linux and
// macOS one that runs as another user is told so and closed.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = l.Close()
		return ErrServerClosed
	}
	s.listeners[l] = struct{}{}
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()

	err := accept.Loop(l, s.log, s.isClosed, func(nc net.Conn) error {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.closed {
			_ = nc.Close()
			return ErrServerClosed
		}
		s.wg.Add(1)
		go s.serveConn(nc)
		return nil
	})
	if s.isClosed() {
		return ErrServerClosed
	}
	s.mu.Lock()
	delete(s.listeners, l)
	s.mu.Unlock()
	return err
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// Clients returns the number of connected (admitted) clients.
func (s *Server) Clients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Subscribers returns the number of connections subscribed to topic by
// its name ("*" does not count): the host's approvals count their
// approvers with it.
func (s *Server) Subscribers(topic string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if c.topics[topic] {
			n++
		}
	}
	return n
}

// ClientsChanged returns a channel that receives a value after the number of
// clients changed. It holds at most one value, so a burst of changes costs
// one wake-up; read [Server.Clients] after each.
func (s *Server) ClientsChanged() <-chan struct{} { return s.changed }

// notify signals ClientsChanged; s.mu is held.
func (s *Server) notify() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// Publish sends an event to every connection subscribed to topic, in the
// order of the calls, with the next sequence number. It never blocks on a
// client: a client whose queue is full is dropped (its connection closed).
// It fails only if data does not encode or is too large.
func (s *Server) Publish(topic string, data any) error {
	if topic == "" || topic == "*" {
		return fmt.Errorf("event topic %q is not a topic: name the topic, e.g. \"server.state\"", topic)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("event %q: cannot encode its data: %w", topic, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return ErrServerClosed
	}
	msg := eventLine(topic, raw, s.seq+1)
	if len(msg) > s.opts.MaxMessageSize {
		return fmt.Errorf("event %q is %d bytes, over the %s message limit: publish less data", topic, len(msg), sizeText(s.opts.MaxMessageSize))
	}
	s.seq++
	for c := range s.conns {
		if c.wants(topic) && c.out.push(msg) == overflow {
			c.drop()
		}
	}
	return nil
}

// Close stops accepting, tells every client that the host is shutting down,
// closes every connection (each may take Options.CloseGrace to flush) and
// cancels the contexts of running handlers. It waits for the server's own
// goroutines, not for handlers.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return nil
	}
	s.closed = true
	ls := make([]net.Listener, 0, len(s.listeners))
	for l := range s.listeners {
		ls = append(ls, l)
	}
	cs := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		cs = append(cs, c)
	}
	s.mu.Unlock()

	var errs []error
	for _, l := range ls {
		if err := l.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	bye := Errorf(CodeShuttingDown, "the Switchboard host is shutting down: start it again with 'switchboard serve'")
	for _, c := range cs {
		c.closeWith(bye)
	}
	s.wg.Wait()
	return errors.Join(errs...)
}

// conn is one admitted client connection.
type conn struct {
	s    *Server
	nc   net.Conn
	info ConnInfo
	out  *queue
	sem  chan struct{} // requests in flight

	ctx    context.Context // of its handlers
	cancel context.CancelFunc

	topics map[string]bool // guarded by s.mu; "*" is every topic

	deadlineMu sync.Mutex
	dropped    bool // deadlines are in the past for good
}

// serveConn checks the peer, then runs the connection until it ends.
func (s *Server) serveConn(nc net.Conn) {
	defer s.wg.Done()
	pid, uid, err := checkPeer(nc)
	if err == nil && s.opts.PeerGuard != nil {
		err = s.opts.PeerGuard(pid)
	}
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			e = Errorf(CodeForbidden, "connection refused: %v", err)
		}
		s.log.Warn("refused a client", "pid", pid, "uid", uid, "err", e.Message)
		_ = nc.SetWriteDeadline(time.Now().Add(s.opts.CloseGrace))
		_, _ = nc.Write(mustLine(map[string]*Error{"error": e}))
		_ = nc.Close()
		return
	}

	ctx, cancel := context.WithCancel(context.Background())
	c := &conn{
		s: s, nc: nc,
		info: ConnInfo{PID: pid, UID: uid},
		out:  newQueue(s.opts.QueueMessages, s.opts.QueueBytes),
		sem:  make(chan struct{}, s.opts.MaxInFlight),
		ctx:  ctx, cancel: cancel,
		topics: make(map[string]bool),
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		cancel()
		_ = nc.Close()
		return
	}
	s.nextID++
	c.info.ID = s.nextID
	s.conns[c] = struct{}{}
	s.notify()
	s.mu.Unlock()
	s.log.Debug("client connected", "conn", c.info.ID, "pid", pid)

	c.out.push(mustLine(map[string]hello{"hello": {Protocol: ProtocolVersion, PID: os.Getpid(), API: s.opts.APIVersion}}))
	writerDone := make(chan struct{})
	go func() {
		defer close(writerDone)
		c.writeLoop()
	}()
	c.readLoop()

	// The peer went away or broke the protocol: flush what is queued, for
	// at most the grace, and close.
	cancel()
	c.out.close()
	c.graceDeadline()
	<-writerDone

	s.mu.Lock()
	delete(s.conns, c)
	s.notify()
	s.mu.Unlock()
	s.log.Debug("client disconnected", "conn", c.info.ID)
}

// writeLoop writes the queue to the connection until the queue is closed and
// drained or a write fails; then it closes the connection.
func (c *conn) writeLoop() {
	defer c.nc.Close()
	for {
		batch, isClosed := c.out.take()
		if len(batch) > 0 {
			n, size := len(batch), 0
			for _, m := range batch {
				size += len(m)
			}
			bufs := net.Buffers(batch)
			_, err := bufs.WriteTo(c.nc)
			c.out.done(n, size)
			if err != nil {
				c.out.close()
				return
			}
			continue
		}
		if isClosed {
			return
		}
		<-c.out.wake
	}
}

// readLoop reads requests until the peer goes away or breaks the protocol.
func (c *conn) readLoop() {
	max := c.s.opts.MaxMessageSize
	br := bufio.NewReaderSize(c.nc, 64<<10)
	for {
		b, err := readLine(br, max)
		if errors.Is(err, errTooLarge) {
			c.closeWith(Errorf(CodeTooLarge, "a message from this client is larger than %s, the limit: send less in one request", sizeText(max)))
			return
		}
		if err != nil {
			return
		}
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			continue
		}
		var req request
		if err := json.Unmarshal(b, &req); err != nil || req.ID == nil || *req.ID == 0 {
			why := "it has no positive integer id"
			if err != nil {
				why = err.Error()
			}
			c.closeWith(Errorf(CodeBadRequest, `a message from this client is not a request (one line of {"id": N, "method": "...", "params": {...}} with N > 0): %s`, why))
			return
		}
		id := *req.ID
		switch req.Method {
		case "":
			c.respond(id, "", nil, Errorf(CodeBadRequest, "request %d has no method: name one, e.g. \"servers.list\"", id))
			continue
		case "subscribe":
			c.subscribe(id, req.Params)
			continue
		}
		select {
		case c.sem <- struct{}{}:
		case <-c.ctx.Done():
			return
		}
		go c.handle(id, req.Method, req.Params)
	}
}

// handle runs one request through the handler and queues the answer.
func (c *conn) handle(id uint64, method string, params json.RawMessage) {
	defer func() { <-c.sem }()
	res, err := c.call(method, params)
	if c.ctx.Err() != nil {
		return // no one to answer
	}
	c.respond(id, method, res, err)
}

// call runs the handler, turning a panic into an internal error: one bad
// request must not take the host down.
func (c *conn) call(method string, params json.RawMessage) (res any, err error) {
	defer func() {
		if p := recover(); p != nil {
			c.s.log.Error("handler panicked", "method", method, "panic", p)
			res, err = nil, Errorf(CodeInternal, "the Switchboard host failed while answering %s (%v): this is a bug; please report it", method, p)
		}
	}()
	return c.s.h.Handle(c.ctx, &c.info, method, params)
}

// respond queues the answer to request id.
func (c *conn) respond(id uint64, method string, res any, err error) {
	var msg []byte
	if err == nil {
		raw, merr := json.Marshal(res)
		if merr != nil {
			err = Errorf(CodeInternal, "the result of %s cannot be encoded: %v", method, merr)
		} else {
			msg = resultLine(id, raw)
			if len(msg) > c.s.opts.MaxMessageSize {
				err = Errorf(CodeTooLarge, "the result of %s is %d bytes, over the %s message limit: ask for less at once", method, len(msg), sizeText(c.s.opts.MaxMessageSize))
			}
		}
	}
	if err != nil {
		e, ok := wireError(err)
		if !ok {
			c.s.log.Warn("request failed", "method", method, "conn", c.info.ID, "err", err)
		}
		msg = mustLine(response{ID: id, Error: e})
	}
	if c.out.push(msg) == overflow {
		c.drop()
	}
}

// resultLine encodes a result without re-encoding it.
func resultLine(id uint64, raw json.RawMessage) []byte {
	b := make([]byte, 0, len(raw)+32)
	b = append(b, `{"id":`...)
	b = strconv.AppendUint(b, id, 10)
	b = append(b, `,"result":`...)
	b = append(b, raw...)
	return append(b, "}\n"...)
}

// subscribe adds topics to the connection. Its answer is queued under the
// same lock as Publish, so it precedes every event of the subscription.
func (c *conn) subscribe(id uint64, params json.RawMessage) {
	var p subscribeParams
	if err := DecodeParams("subscribe", params, &p); err != nil {
		c.respond(id, "subscribe", nil, err)
		return
	}
	if len(p.Topics) == 0 || slices.Contains(p.Topics, "") {
		c.respond(id, "subscribe", nil, Errorf(CodeBadRequest, `subscribe needs non-empty topics: {"topics": ["server.state"]}, or ["*"] for every topic`))
		return
	}
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range p.Topics {
		c.topics[t] = true
	}
	raw, _ := json.Marshal(subscribeResult{Seq: s.seq})
	if c.out.push(resultLine(id, raw)) == overflow {
		c.drop()
	}
}

// wants tells whether the connection subscribed to topic; s.mu is held.
func (c *conn) wants(topic string) bool { return c.topics[topic] || c.topics["*"] }

// drop closes a connection that does not read its messages, without
// blocking: the deadlines wake its reader and writer, which close it.
func (c *conn) drop() {
	c.deadlineMu.Lock()
	defer c.deadlineMu.Unlock()
	if c.dropped {
		return
	}
	c.dropped = true
	c.s.log.Warn("dropped a client that does not read its messages", "conn", c.info.ID, "pid", c.info.PID,
		"queue_messages", c.s.opts.QueueMessages, "queue_bytes", c.s.opts.QueueBytes)
	c.cancel()
	c.out.close()
	_ = c.nc.SetDeadline(time.Unix(1, 0))
}

// graceDeadline gives the writer CloseGrace to flush, unless the connection
// was dropped.
func (c *conn) graceDeadline() {
	c.deadlineMu.Lock()
	defer c.deadlineMu.Unlock()
	if !c.dropped {
		_ = c.nc.SetWriteDeadline(time.Now().Add(c.s.opts.CloseGrace))
	}
}

// closeWith sends the client a last message, a connection error that says
// why, and closes the connection once it is written (or after the grace).
func (c *conn) closeWith(e *Error) {
	c.cancel()
	if c.out.pushLast(mustLine(map[string]*Error{"error": e})) {
		c.graceDeadline()
	}
}
