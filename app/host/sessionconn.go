package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/engine/stdio"
)

// A remote server's relay.Conn: the relay (app/relay) runs over a local
// server's stdio connection, reading and writing its lines; a remote
// server has no such connection (its go-sdk client speaks Streamable
// HTTP or SSE, and owns the connection), so its relay runs over its
// go-sdk session instead. A request line the relay writes is sent with
// the session's method of the same name, on a goroutine of its own (an
// HTTP request); its answer comes back to the relay's tap as a response
// to the relay's id; the relay's notifications/cancelled ends that
// request's context (the go-sdk then tells the server); the server's
// progress notifications about the relay's calls come through the
// client's progress handler (Manager.onProgress). Hooks, timeout,
// holds, cancellation and error wording are the relay's, as for a local
// server.

var (
	_ relay.Conn = (*stdio.Conn)(nil)
	_ relay.Conn = (*sessionConn)(nil)
)

type sessionConn struct {
	cs   *mcp.ClientSession
	done chan struct{}
	err  error // why the session ended, set before done closes

	mu    sync.Mutex
	tap   func(jsonrpc.Message) bool
	calls map[string]context.CancelFunc // the requests in flight, by the relay's id
}

func newSessionConn(cs *mcp.ClientSession) *sessionConn {
	c := &sessionConn{cs: cs, done: make(chan struct{}), calls: map[string]context.CancelFunc{}}
	go func() {
		err := cs.Wait()
		if err == nil {
			err = errors.New("the session ended")
		}
		c.err = err
		close(c.done)
	}()
	return c
}

// Done implements relay.Conn.
func (c *sessionConn) Done() <-chan struct{} { return c.done }

// Err implements relay.Conn.
func (c *sessionConn) Err() error {
	select {
	case <-c.done:
		return c.err
	default:
		return nil
	}
}

// SetLineTap implements relay.Conn: the session decodes every message,
// so there are no lines to tap.
func (c *sessionConn) SetLineTap(func([]byte) bool) {}

// SetTap implements relay.Conn.
func (c *sessionConn) SetTap(tap func(jsonrpc.Message) bool) {
	c.mu.Lock()
	c.tap = tap
	c.mu.Unlock()
}

func (c *sessionConn) deliver(msg jsonrpc.Message) {
	c.mu.Lock()
	tap := c.tap
	c.mu.Unlock()
	if tap != nil {
		tap(msg)
	}
}

// WriteLine implements relay.Conn: a request is sent on a goroutine of
// its own; notifications/cancelled withdraws one.
func (c *sessionConn) WriteLine(line []byte) error {
	select {
	case <-c.done:
		return relay.ErrClosed
	default:
	}
	msg, err := jsonrpc.DecodeMessage(bytes.TrimSpace(line))
	if err != nil {
		return err
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return errors.New("only requests and notifications are sent to a remote server's session")
	}
	if !req.IsCall() {
		if req.Method == "notifications/cancelled" {
			var p struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				if id, ok := p.RequestID.(string); ok {
					c.mu.Lock()
					cancel := c.calls[id]
					delete(c.calls, id)
					c.mu.Unlock()
					if cancel != nil {
						cancel() // the go-sdk sends the server notifications/cancelled
					}
				}
			}
		}
		return nil
	}
	id, _ := req.ID.Raw().(string)
	ctx, cancel := context.WithCancel(context.Background())
	c.mu.Lock()
	c.calls[id] = cancel
	c.mu.Unlock()
	go func() {
		defer cancel()
		res, err := c.send(ctx, req.Method, req.Params)
		c.mu.Lock()
		_, live := c.calls[id]
		delete(c.calls, id)
		c.mu.Unlock()
		if !live || ctx.Err() != nil {
			return // withdrawn: the relay has forgotten it
		}
		resp := &jsonrpc.Response{ID: req.ID}
		var rpc *jsonrpc.Error
		switch {
		case err == nil:
			if resp.Result, err = json.Marshal(res); err != nil {
				resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the server's answer could not be read: " + err.Error()}
			}
		case errors.As(err, &rpc):
			resp.Error = rpc
		default:
			resp.Error = &relay.SendError{Err: err}
		}
		c.deliver(resp)
	}()
	return nil
}

// send sends one of the relay's requests with the session's method.
func (c *sessionConn) send(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case relay.KindToolCall:
		return decodeSend(ctx, params, c.cs.CallTool)
	case relay.KindResourceRead:
		return decodeSend(ctx, params, c.cs.ReadResource)
	case relay.KindPromptGet:
		return decodeSend(ctx, params, c.cs.GetPrompt)
	case relay.KindComplete:
		return decodeSend(ctx, params, c.cs.Complete)
	}
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the host does not relay " + method + " to a remote server"}
}

func decodeSend[P, R any](ctx context.Context, raw json.RawMessage, f func(context.Context, *P) (*R, error)) (any, error) {
	p := new(P)
	if err := json.Unmarshal(raw, p); err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	return f(ctx, p)
}

// remoteRelay returns the relay of a remote server's session cs, making
// it on the first call.
func (b *gatewayBackend) remoteRelay(name string, s *server, cs *mcp.ClientSession) *relay.Relay {
	b.mu.Lock()
	c := b.sessions[cs]
	if c == nil {
		c = newSessionConn(cs)
		b.sessions[cs] = c
		go func() {
			<-c.done
			b.mu.Lock()
			delete(b.sessions, cs)
			b.mu.Unlock()
		}()
	}
	b.mu.Unlock()
	return b.relayFor(name, s, c, cs)
}

// onProgress routes a remote server's progress notification about a
// relayed call to its relay (a local server's come through its stdio
// connection's tap).
func (m *Manager) onProgress(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
	if r == nil || r.Params == nil || r.Session == nil {
		return
	}
	m.gw.mu.Lock()
	c := m.gw.sessions[r.Session]
	m.gw.mu.Unlock()
	if c == nil {
		return
	}
	raw, err := json.Marshal(r.Params)
	if err != nil {
		return
	}
	c.deliver(&jsonrpc.Request{Method: "notifications/progress", Params: raw})
}
