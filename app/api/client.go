package api

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ErrNoHost matches (with errors.Is) the [*NoHostError] that [Dial] returns
// when no host runs.
var ErrNoHost = errors.New("no Switchboard host is running")

// NoHostError says that no host listens at Socket: the socket (or pipe) does
// not exist, or a killed host left it behind.
type NoHostError struct {
	Socket string
	Err    error // what the OS said
}

func (e *NoHostError) Error() string {
	return fmt.Sprintf("no Switchboard host is running (socket %s): start one with 'switchboard serve'", e.Socket)
}

// Unwrap returns what the OS said.
func (e *NoHostError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrNoHost].
func (e *NoHostError) Is(target error) bool { return target == ErrNoHost }

// ErrDisconnected matches (with errors.Is) every error of a [Client] whose
// connection ended other than by its own Close: the host stopped, was
// killed, or dropped the client. A client that wants to stay connected
// (the tray) dials again.
var ErrDisconnected = errors.New("disconnected from the Switchboard host")

// ErrClosed is the error of a [Client] after its Close.
var ErrClosed = errors.New("api: client closed")

// clientMaxMessageSize is the limit of the clients that Dial makes (tests
// lower it).
var clientMaxMessageSize = DefaultMaxMessageSize

// helloTimeout bounds the wait for the host's greeting when Dial's context
// has no earlier deadline.
const helloTimeout = 10 * time.Second

// Subscription backlog: how far one subscriber may fall behind before the
// client gives up its connection (as the host does with a slow client).
const (
	maxBacklogEvents = 4096
	maxBacklogBytes  = 64 << 20
)

// Client is a connection to the host. Its methods are safe for concurrent
// use; calls run concurrently on the one connection.
type Client struct {
	nc      net.Conn
	socket  string
	hostPID int
	hostAPI string
	max     int

	nextID atomic.Uint64
	writes chan []byte // to the writer goroutine

	mu      sync.Mutex
	pending map[uint64]chan reply
	subs    map[*subscription]struct{}
	err     error         // why the connection ended; nil while it is open
	done    chan struct{} // closed when it ends
}

type reply struct {
	result json.RawMessage
	err    error
}

// Dial connects to the host at path (see [SocketPath]) and waits for its
// greeting. With no host there it returns a [*NoHostError]; a host that
// refuses this process (another user's) returns its [*Error]. Before it
// reads anything, it checks that the process at the other end runs as the
// current user.
func Dial(ctx context.Context, path string) (*Client, error) {
	nc, err := dial(ctx, path)
	if err != nil {
		if errors.Is(err, ErrNoHost) {
			return nil, err
		}
		return nil, fmt.Errorf("cannot connect to the Switchboard host (socket %s): %w", path, err)
	}
	c := &Client{
		nc: nc, socket: path, max: clientMaxMessageSize,
		writes:  make(chan []byte),
		pending: make(map[uint64]chan reply),
		subs:    make(map[*subscription]struct{}),
		done:    make(chan struct{}),
	}
	// The peer first, then its greeting: nothing another user's process
	// says (it may have taken the socket's name on a shared /tmp) is read,
	// let alone shown.
	if err := checkHost(nc, path); err != nil {
		_ = nc.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(nc, 64<<10)
	if err := c.greeting(ctx, br); err != nil {
		_ = nc.Close()
		return nil, err
	}
	go c.readLoop(br)
	go c.writeLoop()
	return c, nil
}

// greeting reads the host's first message: hello, or why it refuses us.
func (c *Client) greeting(ctx context.Context, br *bufio.Reader) error {
	deadline := time.Now().Add(helloTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	_ = c.nc.SetReadDeadline(deadline)
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = c.nc.SetReadDeadline(time.Unix(1, 0))
		close(fired)
	})
	b, err := readLine(br, c.max)
	if !stop() {
		<-fired // its deadline must not land after the reset below
	}
	_ = c.nc.SetReadDeadline(time.Time{})
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("waiting for the Switchboard host's greeting (socket %s): %w", c.socket, ctx.Err())
		}
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("the process on socket %s closed the connection without a greeting: it is not a Switchboard host, or it is stopping; try again", c.socket)
		}
		return fmt.Errorf("no greeting from the process on socket %s: %w", c.socket, err)
	}
	var m incoming
	if err := json.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("the process on socket %s is not a Switchboard host: its first message is not JSON: %w", c.socket, err)
	}
	switch {
	case m.Error != nil:
		return fmt.Errorf("socket %s: %w", c.socket, m.Error)
	case m.Hello == nil:
		return fmt.Errorf("the process on socket %s is not a Switchboard host: its first message is no greeting", c.socket)
	case m.Hello.Protocol != ProtocolVersion:
		return fmt.Errorf("the Switchboard host on socket %s speaks protocol %d and this program %d: run the same version of both", c.socket, m.Hello.Protocol, ProtocolVersion)
	}
	c.hostPID = m.Hello.PID
	c.hostAPI = m.Hello.API
	return nil
}

// HostPID is the pid that the host stated in its greeting.
func (c *Client) HostPID() int { return c.hostPID }

// HostAPI is the version of the methods that the host stated in its
// greeting ([Options.APIVersion]); "" if it stated none. This package
// does not check it: the caller that knows the methods does
// (app/client).
func (c *Client) HostAPI() string { return c.hostAPI }

// Socket is the path the client dialled.
func (c *Client) Socket() string { return c.socket }

// Done is closed when the connection ends, for whatever reason; [Client.Err]
// then says why.
func (c *Client) Done() <-chan struct{} { return c.done }

// Err is nil while the connection is open. After, it is [ErrClosed] if Close
// ended it, and otherwise an error that matches [ErrDisconnected] (and the
// host's [*Error], if the host said why, such as "shutting_down").
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Close ends the connection; calls in flight fail with [ErrClosed] and
// subscription channels close. It is safe to call more than once.
func (c *Client) Close() error {
	c.fail(ErrClosed)
	return nil
}

// Call sends a request and waits for its answer, which it unmarshals into
// result (unless result is nil). params may be nil. An error response is
// returned as an [*Error]; a connection that ends first, as [Client.Err].
// When ctx ends first, Call returns ctx's error and drops the late answer.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	var raw json.RawMessage
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("%s: cannot encode the params: %w", method, err)
		}
		raw = b
	}
	id := c.nextID.Add(1)
	msg, err := line(request{ID: &id, Method: method, Params: raw})
	if err != nil {
		return fmt.Errorf("%s: cannot encode the request: %w", method, err)
	}
	if len(msg) > c.max {
		return Errorf(CodeTooLarge, "the request %s is %d bytes, over the %s message limit: send less at once", method, len(msg), sizeText(c.max))
	}
	ch := make(chan reply, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.pending[id] = ch
	c.mu.Unlock()

	select {
	case c.writes <- msg:
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("%s: %w", method, ctx.Err())
	case <-c.done:
		return c.Err()
	}
	var r reply
	select {
	case r = <-ch:
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("%s: %w", method, ctx.Err())
	}
	if r.err != nil {
		return r.err
	}
	if result != nil && len(r.result) > 0 {
		if err := json.Unmarshal(r.result, result); err != nil {
			return fmt.Errorf("the result of %s does not fit a %T: %w", method, result, err)
		}
	}
	return nil
}

func (c *Client) forget(id uint64) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// Subscribe asks the host for the events of topics ("*" for all) and returns
// a channel of them, in the host's order (increasing Seq), from the moment
// the subscription took effect. The channel closes when ctx ends or the
// connection does (see [Client.Err]). Read it promptly: a subscriber that
// falls thousands of events behind ends the connection, as the host does
// with a client that does not read.
func (c *Client) Subscribe(ctx context.Context, topics ...string) (<-chan Event, error) {
	if len(topics) == 0 || slices.Contains(topics, "") {
		return nil, errors.New(`subscribe needs topics, such as "server.state", or "*" for every topic`)
	}
	s := &subscription{
		topics: topics,
		out:    make(chan Event),
		wake:   make(chan struct{}, 1),
	}
	// Registered before the request: events that the host sends before its
	// answer are kept and trimmed below, none lost.
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, err
	}
	c.subs[s] = struct{}{}
	c.mu.Unlock()

	var res subscribeResult
	if err := c.Call(ctx, "subscribe", subscribeParams{Topics: topics}, &res); err != nil {
		c.removeSub(s)
		return nil, err
	}
	s.trim(res.Seq)
	go s.pump(ctx)
	context.AfterFunc(ctx, func() { c.removeSub(s) })
	return s.out, nil
}

func (c *Client) removeSub(s *subscription) {
	c.mu.Lock()
	delete(c.subs, s)
	c.mu.Unlock()
	s.end()
}

// readLoop reads the host's messages until the connection ends.
func (c *Client) readLoop(br *bufio.Reader) {
	for {
		b, err := readLine(br, c.max)
		if errors.Is(err, errTooLarge) {
			c.fail(fmt.Errorf("a message from the host is larger than %s, the limit", sizeText(c.max)))
			return
		}
		if errors.Is(err, io.EOF) {
			c.fail(errors.New("the host closed the connection"))
			return
		}
		if err != nil {
			c.fail(err)
			return
		}
		var m incoming
		if err := json.Unmarshal(b, &m); err != nil {
			c.fail(fmt.Errorf("the host sent a malformed message: %w", err))
			return
		}
		switch {
		case m.Event != "":
			if err := c.dispatch(Event{Topic: m.Event, Data: m.Data, Seq: m.Seq}); err != nil {
				c.fail(err)
				return
			}
		case m.ID != nil:
			c.mu.Lock()
			ch, ok := c.pending[*m.ID]
			delete(c.pending, *m.ID)
			c.mu.Unlock()
			if ok {
				if m.Error != nil {
					ch <- reply{err: m.Error}
				} else {
					ch <- reply{result: m.Result}
				}
			}
		case m.Error != nil:
			c.fail(m.Error) // the host says why it closes
			return
		}
		// Anything else is from a newer host: ignored.
	}
}

// dispatch hands an event to every subscription of its topic.
func (c *Client) dispatch(ev Event) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s := range c.subs {
		if s.wants(ev.Topic) && !s.push(ev) {
			return fmt.Errorf("a subscriber to %s fell more than %d events behind: read the channel promptly", strings.Join(s.topics, ", "), maxBacklogEvents)
		}
	}
	return nil
}

// writeLoop writes requests in the order Call hands them over.
func (c *Client) writeLoop() {
	for {
		select {
		case m := <-c.writes:
			if _, err := c.nc.Write(m); err != nil {
				c.fail(err)
				return
			}
		case <-c.done:
			return
		}
	}
}

// fail ends the connection once, with cause as the reason.
func (c *Client) fail(cause error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	if cause == ErrClosed {
		c.err = ErrClosed
	} else {
		c.err = fmt.Errorf("%w (socket %s): %w", ErrDisconnected, c.socket, cause)
	}
	pending, subs := c.pending, c.subs
	c.pending, c.subs = nil, nil
	close(c.done)
	err := c.err
	c.mu.Unlock()

	_ = c.nc.Close()
	for _, ch := range pending {
		ch <- reply{err: err} // capacity 1, and nothing else sends after the delete
	}
	for s := range subs {
		s.end()
	}
}

// subscription queues one Subscribe's events between the reader, which must
// never block, and the consumer.
type subscription struct {
	topics []string
	out    chan Event

	mu    sync.Mutex
	q     []Event
	bytes int
	ended bool
	wake  chan struct{} // capacity 1
}

func (s *subscription) wants(topic string) bool {
	return slices.Contains(s.topics, topic) || slices.Contains(s.topics, "*")
}

// push queues ev; false if the backlog is over its bound.
func (s *subscription) push(ev Event) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return true
	}
	if len(s.q) >= maxBacklogEvents || s.bytes+len(ev.Data) > maxBacklogBytes {
		return false
	}
	s.q = append(s.q, ev)
	s.bytes += len(ev.Data)
	s.signal()
	return true
}

// trim drops the queued events published before the subscription took
// effect (another subscription's topics brought them).
func (s *subscription) trim(seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := 0
	for i < len(s.q) && s.q[i].Seq <= seq {
		s.bytes -= len(s.q[i].Data)
		i++
	}
	s.q = s.q[i:]
}

// end stops the subscription; the queued events are still delivered.
func (s *subscription) end() {
	s.mu.Lock()
	s.ended = true
	s.signal()
	s.mu.Unlock()
}

func (s *subscription) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump delivers the queue to out, and closes out when the subscription has
// ended and its queue is empty, or when ctx ends.
func (s *subscription) pump(ctx context.Context) {
	defer close(s.out)
	for {
		s.mu.Lock()
		if len(s.q) == 0 {
			ended := s.ended
			s.mu.Unlock()
			if ended {
				return
			}
			select {
			case <-s.wake:
			case <-ctx.Done():
				return
			}
			continue
		}
		ev := s.q[0]
		s.q[0] = Event{}
		s.q = s.q[1:]
		s.bytes -= len(ev.Data)
		s.mu.Unlock()
		select {
		case s.out <- ev:
		case <-ctx.Done():
			return
		}
	}
}
