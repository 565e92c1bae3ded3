package stdio

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/switchboard-mcp/switchboard/engine"
)

// Defaults of the flood limit: requests and notifications a server may send
// per second (responses are not limited), and how long it may exceed that
// rate before the connection closes with [ReasonFlood]. While over the rate
// the server is slowed down: its stdout is not read.
const (
	DefaultFloodRate   = 2000
	DefaultFloodWindow = 10 * time.Second
)

// CodeProbeTimeout is the JSON-RPC error code of the answer that [Conn]
// makes up when a server/discover probe is not answered in time.
const CodeProbeTimeout = -32001

const methodDiscover = "server/discover"

// ConnOptions configure a [Conn]. Zero values mean the defaults of
// [engine.Spec] and of this package.
type ConnOptions struct {
	Server          string        // the server's name, for errors and logs
	MaxMessageBytes int           // longest line accepted
	MaxJunkLines    int           // non-JSON-RPC lines tolerated in a row; -1 means 0
	WriteQueueBytes int           // unwritten bytes held before closing
	ProbeTimeout    time.Duration // wait for a server/discover answer
	FloodRate       int           // server-initiated messages per second
	FloodWindow     time.Duration // time over the rate before closing
	Logger          *slog.Logger
	// Stderr, if set, returns the server's last stderr lines for the
	// CloseError.
	Stderr func() []string
}

func (o *ConnOptions) fill() {
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = engine.DefaultMaxMessageBytes
	}
	switch {
	case o.MaxJunkLines == 0:
		o.MaxJunkLines = engine.DefaultMaxJunkLines
	case o.MaxJunkLines < 0:
		o.MaxJunkLines = 0
	}
	if o.WriteQueueBytes <= 0 {
		o.WriteQueueBytes = engine.DefaultWriteQueueBytes
	}
	if o.ProbeTimeout <= 0 {
		o.ProbeTimeout = engine.DefaultProbeTimeout
	}
	if o.FloodRate <= 0 {
		o.FloodRate = DefaultFloodRate
	}
	if o.FloodWindow <= 0 {
		o.FloodWindow = DefaultFloodWindow
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Conn is an [mcp.Connection] over a server's stdout (read) and stdin
// (write). Read and Write never block on the server: reads are framed and
// decoded by a reader goroutine with bounded memory, and writes are queued
// for a writer goroutine (or written at once when the pipe has room).
type Conn struct {
	opts ConnOptions
	log  *slog.Logger
	r    io.Reader
	w    io.Writer
	proc *engine.Process // nil for a Conn over plain streams

	in     chan jsonrpc.Message // decoded messages, handed to Read
	synth  chan jsonrpc.Message // answers made up for timed-out probes
	closed chan struct{}
	err    error // the CloseError; set before closed is closed
	once   sync.Once

	// writing
	wmu     sync.Mutex
	queue   [][]byte
	queued  int // bytes queued or being written
	wake    chan struct{}
	direct  func([]byte) (int, bool) // non-blocking write, if the platform has one
	wclosed bool

	// the server/discover probe
	pmu    sync.Mutex
	probes map[jsonrpc.ID]*time.Timer // pending, with their timers
	late   map[jsonrpc.ID]bool        // timed out: a real answer is dropped
	lateN  atomic.Int64

	junkDropped atomic.Int64

	tap     atomic.Pointer[func(jsonrpc.Message) bool]
	lineTap atomic.Pointer[func([]byte) bool]
}

// NewConn returns a Conn that reads messages from r and writes them to w,
// closing both (if they are [io.Closer]s) when it closes. [Transport] uses
// it over a process's pipes; it serves tests and benchmarks over any
// stream.
func NewConn(r io.Reader, w io.Writer, opts ConnOptions) *Conn {
	opts.fill()
	c := &Conn{}
	c.init(r, w, opts)
	return c
}

func (c *Conn) init(r io.Reader, w io.Writer, opts ConnOptions) {
	c.opts = opts
	c.log = opts.Logger.With("server", opts.Server)
	c.r, c.w = r, w
	c.in = make(chan jsonrpc.Message)
	c.synth = make(chan jsonrpc.Message, 4)
	c.closed = make(chan struct{})
	c.wake = make(chan struct{}, 1)
	c.probes = map[jsonrpc.ID]*time.Timer{}
	c.late = map[jsonrpc.ID]bool{}
	c.direct = directWriter(w)
	go c.readLoop()
	go c.writeLoop()
}

// SessionID implements [mcp.Connection]; stdio has no session id.
func (c *Conn) SessionID() string { return "" }

// Process returns the server process, or nil for a Conn over plain streams.
func (c *Conn) Process() *engine.Process { return c.proc }

// Done is closed when the connection has closed.
func (c *Conn) Done() <-chan struct{} { return c.closed }

// Err returns the [*CloseError] once the connection has closed, else nil.
func (c *Conn) Err() error {
	select {
	case <-c.closed:
		return c.err
	default:
		return nil
	}
}

// SetTap sets a function that sees every message from the server before the
// go-sdk does, on the reader goroutine; a message it reports as handled is
// not passed on. It must not block. The host's gateway uses it to relay
// its own requests' responses (with ids the go-sdk never uses) without the
// go-sdk decoding them. nil removes it.
func (c *Conn) SetTap(tap func(jsonrpc.Message) bool) {
	if tap == nil {
		c.tap.Store(nil)
		return
	}
	c.tap.Store(&tap)
}

// SetLineTap sets a function that sees each line from the server before it
// is decoded, on the reader goroutine; a line it reports as handled is not
// decoded nor passed on (nor seen by the tap of [Conn.SetTap]). The line
// (without its newline) is valid only during the call: a tap that keeps
// any of it copies it. It must not block, and it should claim only
// responses: a line it claims skips the flood limit and the probe's
// bookkeeping, which apply to the server's requests and to
// server/discover answers. The host's relay of tools/call uses it to take
// the answers to its own ids in one pass over their bytes, without
// decoding them into messages. nil removes it.
func (c *Conn) SetLineTap(tap func(line []byte) bool) {
	if tap == nil {
		c.lineTap.Store(nil)
		return
	}
	c.lineTap.Store(&tap)
}

// LateProbeAnswers counts server/discover answers that came after the
// probe timed out and were dropped before the SDK saw them.
func (c *Conn) LateProbeAnswers() int64 { return c.lateN.Load() }

// junkLines counts the non-JSON-RPC lines dropped so far.
func (c *Conn) junkLines() int64 { return c.junkDropped.Load() }

// Read returns the next message from the server, or the [*CloseError] once
// the connection has closed.
func (c *Conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m := <-c.synth:
		return m, nil
	default:
	}
	select {
	case m := <-c.in:
		return m, nil
	case m := <-c.synth:
		return m, nil
	case <-c.closed:
		return nil, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Write queues msg for the server's stdin and returns without waiting for
// the server to read it. If the queue would pass WriteQueueBytes the
// connection closes with [ReasonWriteQueueFull].
func (c *Conn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding message: %w", err)
	}
	data = append(data, '\n')
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == methodDiscover && req.ID.IsValid() {
		c.startProbe(req.ID)
	}
	return c.write(data)
}

// WriteLine queues one message that the caller encoded itself: line is a
// whole JSON-RPC message (one valid JSON object, never a server/discover
// request) followed by a newline, and it is written as it is, without
// being decoded or encoded again. The connection keeps line: the caller
// must not change it afterwards. Otherwise as [Conn.Write].
func (c *Conn) WriteLine(line []byte) error {
	if len(line) == 0 || line[len(line)-1] != '\n' {
		return errors.New("stdio: WriteLine needs a line that ends in a newline")
	}
	return c.write(line)
}

// write queues data, an encoded message and its newline.
func (c *Conn) write(data []byte) error {
	c.wmu.Lock()
	if c.wclosed {
		c.wmu.Unlock()
		<-c.closed
		return c.err
	}
	if c.queued+len(data) > c.opts.WriteQueueBytes {
		held := c.queued
		c.wmu.Unlock()
		c.fail(ReasonWriteQueueFull, fmt.Sprintf("%d bytes were waiting for the server to read its stdin (limit %d)", held, c.opts.WriteQueueBytes), nil)
		return c.err
	}
	if c.queued == 0 && c.direct != nil {
		n, ok := c.direct(data)
		if !ok {
			c.wmu.Unlock()
			c.failWrite("writing to the server's stdin failed")
			return c.err
		}
		data = data[n:]
	}
	if len(data) > 0 {
		c.queue = append(c.queue, data)
		c.queued += len(data)
		select {
		case c.wake <- struct{}{}:
		default:
		}
	}
	c.wmu.Unlock()
	return nil
}

func (c *Conn) writeLoop() {
	for {
		select {
		case <-c.wake:
		case <-c.closed:
			return
		}
		for {
			c.wmu.Lock()
			batch := c.queue
			c.queue = nil
			c.wmu.Unlock()
			if len(batch) == 0 {
				break
			}
			for _, b := range batch {
				if _, err := c.w.Write(b); err != nil {
					c.failWrite("writing to the server's stdin: " + err.Error())
					return
				}
				c.wmu.Lock()
				c.queued -= len(b)
				c.wmu.Unlock()
			}
		}
	}
}

// Close closes the connection with [ReasonStopped] and starts the server's
// stop ladder without waiting for it (see [engine.Process.Stop]). It is
// safe to call more than once and concurrently with Read and Write.
func (c *Conn) Close() error {
	c.fail(ReasonStopped, "", nil)
	return nil
}

// CloseWith closes the connection with the given reason, if it is not
// closed yet.
func (c *Conn) CloseWith(reason Reason, detail string) {
	c.fail(reason, detail, nil)
}

// fail closes the connection once, with the first reason given.
func (c *Conn) fail(reason Reason, detail string, exit *engine.ExitStatus) {
	c.once.Do(func() {
		ce := &CloseError{Server: c.opts.Server, Reason: reason, Detail: detail, Exit: exit}
		if c.opts.Stderr != nil {
			ce.Stderr = c.opts.Stderr()
		}
		c.err = ce
		c.wmu.Lock()
		c.wclosed = true
		c.queue = nil
		c.wmu.Unlock()
		close(c.closed)
		c.pmu.Lock()
		for _, t := range c.probes {
			t.Stop()
		}
		c.pmu.Unlock()
		if reason != ReasonStopped && reason != ReasonExited {
			c.log.Warn("closing the connection to the server", "reason", string(reason), "detail", detail)
		}
		if c.proc != nil {
			c.proc.Stop() // closes stdin first: step 1 of the ladder
		} else {
			if wc, ok := c.w.(io.Closer); ok {
				wc.Close()
			}
			if rc, ok := c.r.(io.Closer); ok {
				rc.Close()
			}
		}
	})
}

// startProbe arms the probe timeout for a server/discover request.
func (c *Conn) startProbe(id jsonrpc.ID) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	c.probes[id] = time.AfterFunc(c.opts.ProbeTimeout, func() {
		c.pmu.Lock()
		if _, ok := c.probes[id]; !ok {
			c.pmu.Unlock()
			return
		}
		delete(c.probes, id)
		c.late[id] = true
		c.pmu.Unlock()
		c.log.Debug("server/discover was not answered in time; treating the server as legacy", "timeout", c.opts.ProbeTimeout)
		resp := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: CodeProbeTimeout,
			Message: fmt.Sprintf("%s was not answered within %v", methodDiscover, c.opts.ProbeTimeout)}}
		select {
		case c.synth <- resp:
		case <-c.closed:
		}
	})
}

// filterResponse reports whether a response from the server is to be
// passed on: an answer to a probe that already timed out is dropped.
func (c *Conn) filterResponse(id jsonrpc.ID) bool {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if t, ok := c.probes[id]; ok {
		t.Stop()
		delete(c.probes, id)
		return true
	}
	if c.late[id] {
		delete(c.late, id)
		c.lateN.Add(1)
		c.log.Debug("dropped a server/discover answer that came after the probe timeout")
		return false
	}
	return true
}

func (c *Conn) readLoop() {
	fr := newFramer(readerOf(c.r), c.opts.MaxMessageBytes)
	lim := newLimiter(c.opts.FloodRate, c.opts.FloodWindow)
	junk := 0
	for {
		line, err := fr.next()
		if err == nil {
			if tap := c.lineTap.Load(); tap != nil && (*tap)(line) {
				junk = 0
				continue
			}
		}
		if err != nil {
			switch {
			case errors.Is(err, errTooLarge):
				c.fail(ReasonMessageTooLarge, fmt.Sprintf("the server wrote a line longer than %d bytes (maxMessageBytes)", c.opts.MaxMessageBytes), nil)
			case c.proc != nil:
				c.onEOF(err)
			case errors.Is(err, io.EOF):
				c.fail(ReasonExited, "the server closed its stdout", nil)
			default:
				c.fail(ReasonIOError, "reading the server's stdout: "+err.Error(), nil)
			}
			return
		}
		msgs, derr := decode(line)
		if derr != nil {
			junk++
			c.junkDropped.Add(1)
			c.log.Debug("dropped a line that is not a JSON-RPC message", "error", derr, "line", truncate(line, 200))
			if junk > c.opts.MaxJunkLines {
				c.fail(ReasonJunkOutput, fmt.Sprintf("%d lines in a row were not JSON-RPC messages (maxJunkLines %d); the last: %q",
					junk, c.opts.MaxJunkLines, truncate(line, 120)), nil)
				return
			}
			continue
		}
		junk = 0
		for _, m := range msgs {
			switch m := m.(type) {
			case *jsonrpc.Response:
				if !c.filterResponse(m.ID) {
					continue
				}
			case *jsonrpc.Request:
				if !lim.take(c.closed) {
					if isClosed(c.closed) {
						return
					}
					c.fail(ReasonFlood, fmt.Sprintf("the server sent requests and notifications faster than %d per second for %v",
						c.opts.FloodRate, c.opts.FloodWindow), nil)
					return
				}
			}
			if tap := c.tap.Load(); tap != nil && (*tap)(m) {
				continue
			}
			select {
			case c.in <- m:
			case <-c.closed:
				return
			}
		}
	}
}

// onEOF closes a process connection when its stdout ends: with the exit
// status if the process exited (waiting briefly for it), else as an I/O
// error.
func (c *Conn) onEOF(err error) {
	t := time.NewTimer(2 * time.Second)
	defer t.Stop()
	select {
	case <-c.proc.Exited():
		st := c.proc.ExitStatus()
		c.fail(ReasonExited, "", &st)
	case <-t.C:
		c.fail(ReasonIOError, "the server closed its stdout but is still running", nil)
	case <-c.closed:
	}
}

// failWrite closes the connection after a write to the server's stdin
// failed. Writing fails (EPIPE) when the server has exited, possibly before
// the reader or watchExit noticed: a process connection then reports the
// exit with its status, as onEOF does, waiting for it briefly. Otherwise it
// is an I/O error.
func (c *Conn) failWrite(detail string) {
	if c.proc != nil {
		t := time.NewTimer(250 * time.Millisecond)
		defer t.Stop()
		select {
		case <-c.proc.Exited():
			st := c.proc.ExitStatus()
			c.fail(ReasonExited, "", &st)
			return
		case <-c.closed:
			return
		case <-t.C:
		}
	}
	c.fail(ReasonIOError, detail, nil)
}

// watchExit closes the connection when the main process exits, even if a
// grandchild keeps stdout open. Messages the server wrote before exiting
// are read first, for a short while.
func (c *Conn) watchExit() {
	select {
	case <-c.proc.Exited():
	case <-c.closed:
		return
	}
	t := time.NewTimer(250 * time.Millisecond)
	defer t.Stop()
	select {
	case <-c.closed:
	case <-t.C:
		st := c.proc.ExitStatus()
		c.fail(ReasonExited, "", &st)
	}
}

// decode parses one line: a JSON-RPC message, or a batch of them.
func decode(line []byte) ([]jsonrpc.Message, error) {
	trimmed := bytes.TrimLeft(line, " \t\r")
	if len(trimmed) == 0 {
		return nil, errors.New("empty line")
	}
	switch trimmed[0] {
	case '{':
		m, err := decodeMessage(trimmed)
		if err != nil {
			return nil, err
		}
		return []jsonrpc.Message{m}, nil
	case '[':
		var raws []json.RawMessage
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, err
		}
		if len(raws) == 0 {
			return nil, errors.New("empty batch")
		}
		msgs := make([]jsonrpc.Message, 0, len(raws))
		for _, r := range raws {
			m, err := decodeMessage(r)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		return msgs, nil
	}
	return nil, errors.New("not a JSON object")
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// limiter is a token bucket for server-initiated messages. take waits for
// a token (slowing the server down, since its stdout is not read
// meanwhile) and reports false when the server has stayed over the rate
// for the whole window.
type limiter struct {
	rate   float64
	burst  float64
	window time.Duration
	tokens float64
	last   time.Time
	over   time.Time // when the bucket last ran dry, zero if it has recovered
}

func newLimiter(rate int, window time.Duration) *limiter {
	return &limiter{rate: float64(rate), burst: float64(rate), window: window, tokens: float64(rate), last: time.Now()}
}

func (l *limiter) take(closed <-chan struct{}) bool {
	for {
		now := time.Now()
		l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
		l.last = now
		if l.tokens >= l.burst/2 {
			l.over = time.Time{} // the server slowed down
		}
		if l.tokens >= 1 {
			l.tokens--
			return true
		}
		if l.over.IsZero() {
			l.over = now
		} else if now.Sub(l.over) > l.window {
			return false
		}
		wait := time.Duration((1 - l.tokens) / l.rate * float64(time.Second))
		t := time.NewTimer(max(wait, time.Millisecond))
		select {
		case <-t.C:
		case <-closed:
			t.Stop()
			return false
		}
	}
}
