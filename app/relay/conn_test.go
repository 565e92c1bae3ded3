package relay

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestRelayOtherMethods: a resources/read, prompts/get or
// completion/complete goes through the relay as a tools/call does: sent
// with its own method and params (the caller's _meta and the session's
// protocol _meta beside them), seen by the Hook with its kind and target
// (which may refuse it before the server sees it), and answered with the
// server's result as it wrote it.
func TestRelayOtherMethods(t *testing.T) {
	p := newPeer(t)
	h := &recorder{}
	kinds := make(chan string, 4)
	r := New("s", p.conn, Options{ProtoMeta: []byte(`"v":1`), Hook: Chain(h, hookFunc(func(c *Info) error {
		kinds <- c.Kind
		if c.Tool == "secret://x" {
			return &DeniedError{Server: c.Server, Tool: c.Tool, Kind: c.Kind, Reason: "denied"}
		}
		return nil
	}))})
	for _, c := range []struct{ method, target, params string }{
		{KindResourceRead, "file:///a", `"uri":"file:///a"`},
		{KindPromptGet, "p", `"name":"p","arguments":{"who":"me"}`},
		{KindComplete, "p", `"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"who","value":"m"}`},
	} {
		call, ch := call(c.target, "")
		call.Method, call.Params, call.Meta = c.method, []byte(c.params), []byte(`"k":"x"`)
		if _, err := r.Start(call, 0); err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		m := p.next()
		params, _ := json.Marshal(m["params"])
		want := `{"_meta":{"k":"x","v":1},` + c.params + `}`
		var a, b any
		_ = json.Unmarshal(params, &a)
		_ = json.Unmarshal([]byte(want), &b)
		if m["method"] != c.method || !jsonEqual(a, b) {
			t.Errorf("%s: sent %v %s, want params %s", c.method, m["method"], params, want)
		}
		p.write(`{"jsonrpc":"2.0","id":"` + m["id"].(string) + `","result":{"contents":[{"uri":"x","text":"t"}]}}`)
		if o := got(t, ch); o.err != nil || o.raw != `{"contents":[{"uri":"x","text":"t"}]}` {
			t.Errorf("%s: answered %q %v", c.method, o.raw, o.err)
		}
		if k := <-kinds; k != c.method {
			t.Errorf("%s: the hook saw kind %q", c.method, k)
		}
	}
	denied, _ := call("secret://x", "")
	denied.Method, denied.Params = KindResourceRead, []byte(`"uri":"secret://x"`)
	_, err := r.Start(denied, 0)
	var de *DeniedError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), `resource "secret://x" was not sent`) {
		t.Errorf("a refused read: %v", err)
	}
	select {
	case m := <-p.lines:
		t.Errorf("the server got a refused read: %v", m)
	default:
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// asyncConn is a Conn that sends asynchronously, as a remote server's
// does: a request it cannot deliver comes back to its tap as a response
// with a *SendError.
type asyncConn struct {
	mu   sync.Mutex
	tap  func(jsonrpc.Message) bool
	done chan struct{}
}

func (c *asyncConn) SetLineTap(func([]byte) bool) {}
func (c *asyncConn) SetTap(t func(jsonrpc.Message) bool) {
	c.mu.Lock()
	c.tap = t
	c.mu.Unlock()
}
func (c *asyncConn) Done() <-chan struct{} { return c.done }
func (c *asyncConn) Err() error            { return nil }
func (c *asyncConn) WriteLine(line []byte) error {
	msg, err := jsonrpc.DecodeMessage(line[:len(line)-1])
	if err != nil {
		return err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		go func() {
			c.mu.Lock()
			tap := c.tap
			c.mu.Unlock()
			tap(&jsonrpc.Response{ID: req.ID, Error: &SendError{Err: errors.New("connection refused")}})
		}()
	}
	return nil
}

// TestRelaySendError: a call that its connection could not deliver fails
// as a call whose server stopped, with the connection's reason and the
// server's state, and its Hook's After sees that.
func TestRelaySendError(t *testing.T) {
	h := &recorder{}
	r := New("remote", &asyncConn{done: make(chan struct{})}, Options{Hook: h, StateAfterClose: func() string { return "unreachable" }})
	c, ch := call("echo", `{}`)
	if _, err := r.Start(c, 0); err != nil {
		t.Fatal(err)
	}
	o := got(t, ch)
	var se *StoppedError
	if !errors.As(o.err, &se) || se.Reason != "connection refused" || se.State != "unreachable" {
		t.Fatalf("a call not delivered: %v", o.err)
	}
	if a := h.waitAfters(t, 1); len(a) != 1 || !errors.As(a[0], &se) {
		t.Errorf("After saw %v", a)
	}
}
