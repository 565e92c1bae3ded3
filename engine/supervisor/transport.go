package supervisor

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A server reached over a transport of the caller's ([Options.Transport]:
// a remote server over HTTP) is supervised as a process is: the same
// states, backoff, restart limit and stable-uptime reset; only the
// attempt differs. There is no process, pid or stderr: the attempt
// connects the client over the transport, within HandshakeTimeout (the
// probe's time included: the go-sdk's client tries server/discover, then
// initialize, on the same connection), serves until the connection ends,
// and returns why.

// closer remembers the connection the client gets from the transport, so
// that an attempt given up (stopped, timed out) closes it, even when it is
// made after the attempt gave up.
type closer struct {
	t         mcp.Transport
	mu        sync.Mutex
	conn      mcp.Connection
	abandoned bool
}

func (c *closer) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := c.t.Connect(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.conn = conn
	ab := c.abandoned
	c.mu.Unlock()
	if ab {
		conn.Close()
	}
	return conn, nil
}

func (c *closer) close() {
	c.mu.Lock()
	c.abandoned = true
	conn := c.conn
	c.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}

// A FallbackTransport is a transport of [Options.Transport] that knows
// what a failed connection over it means. Fallback returns another
// transport to try within the same attempt (and the same
// HandshakeTimeout), or nil and the error to report in err's place (nil:
// err as it is). app/host's remote servers use it for mcp-remote's
// http-first: Streamable HTTP, then the older HTTP+SSE when the server
// answers the first with 400, 404 or 405.
type FallbackTransport interface {
	mcp.Transport
	Fallback(err error) (next mcp.Transport, why error)
}

// errHandshakeTimeout is the failure of a server that did not finish the
// handshake in time.
type handshakeTimeoutError struct{ d time.Duration }

func (e handshakeTimeoutError) Error() string {
	return fmt.Sprintf("the server did not finish the MCP handshake within %v (handshakeTimeout): check that its address is an MCP endpoint, or raise handshakeTimeout if it is slow to answer", e.d)
}

// attemptTransport is attempt for a server reached over Options.Transport.
func (s *Supervisor) attemptTransport(ctx context.Context) error {
	spec := s.Spec()
	_ = spec.Check() // fills in the defaults
	s.update(func(st *Status) { st.State, st.NextAttempt = Starting, time.Time{} })
	tr, err := s.opts.Transport(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return errStopped
		}
		return err
	}
	type result struct {
		cs  *mcp.ClientSession
		err error
	}
	timeout := spec.HandshakeTimeout
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var c *closer
	var r result
	for {
		c = &closer{t: tr}
		res := make(chan result, 1)
		go func(c *closer) {
			// The run's context: a stop ends the connection (an SSE
			// stream is bound to the context of its Connect); the
			// handshake's timeout is the timer's, which would otherwise
			// bind the session too.
			cs, err := s.opts.Client.Connect(ctx, c, nil)
			res <- result{cs, err}
		}(c)
		select {
		case r = <-res:
		case <-timer.C:
			c.close()
			r = <-res
			if r.cs != nil {
				go r.cs.Close()
			}
			return handshakeTimeoutError{timeout}
		case <-ctx.Done():
			c.close()
			r = <-res
			if r.cs != nil {
				go r.cs.Close()
			}
			return errStopped
		}
		if r.err == nil {
			break
		}
		c.close()
		if ctx.Err() != nil {
			return errStopped
		}
		fb, ok := tr.(FallbackTransport)
		if !ok {
			return r.err
		}
		next, why := fb.Fallback(r.err)
		if next == nil {
			if why != nil {
				return why
			}
			return r.err
		}
		tr = next
	}
	cs := r.cs
	up := s.running(cs)
	waitErr := make(chan error, 1)
	go func() { waitErr <- cs.Wait() }()
	select {
	case <-ctx.Done():
		s.update(func(st *Status) { st.State = Stopping })
		s.mu.Lock()
		s.session = nil
		s.mu.Unlock()
		c.close()
		_ = cs.Close()
		<-waitErr
		return errStopped
	case err = <-waitErr:
	}
	s.mu.Lock()
	s.session = nil
	s.mu.Unlock()
	go cs.Close()
	if err == nil || errors.Is(err, mcp.ErrConnectionClosed) {
		err = errors.New("the connection to the server ended")
	}
	if time.Since(up) >= s.opts.Policy.StableAfter {
		s.update(func(st *Status) { st.Failures = 0 })
	}
	return err
}
