package relay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/switchboard-mcp/switchboard/engine/stdio"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const wait = 10 * time.Second

// peer is the server's end of a relay's connection: it reads the lines
// the relay writes and writes what the test makes it answer.
type peer struct {
	t     *testing.T
	conn  *stdio.Conn
	lines chan map[string]any
	out   io.WriteCloser
}

func newPeer(t *testing.T) *peer {
	t.Helper()
	toServerR, toServerW := io.Pipe()
	fromServerR, fromServerW := io.Pipe()
	p := &peer{t: t, conn: stdio.NewConn(fromServerR, toServerW, stdio.ConnOptions{Server: "s"}), lines: make(chan map[string]any, 16), out: fromServerW}
	go func() {
		sc := bufio.NewScanner(toServerR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("the relay wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			p.lines <- m
		}
	}()
	t.Cleanup(func() { p.conn.Close(); fromServerW.Close() })
	return p
}

func (p *peer) next() map[string]any {
	p.t.Helper()
	select {
	case m := <-p.lines:
		return m
	case <-time.After(wait):
		p.t.Fatal("the server got nothing")
		return nil
	}
}

func (p *peer) write(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.out, s+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// recorder is a Hook that records what it sees.
type recorder struct {
	mu     sync.Mutex
	before []string
	after  []error
	refuse error
}

func (h *recorder) Before(c *Info) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.before = append(h.before, c.Server+"/"+c.Tool+" "+string(c.Arguments))
	return h.refuse
}

func (h *recorder) After(c *Info, res *Result, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if res != nil && err != nil {
		panic("both")
	}
	h.after = append(h.after, err)
}

// waitAfters waits until After has run n times (it runs after Done).
func (h *recorder) waitAfters(t *testing.T, n int) []error {
	t.Helper()
	testkit.Eventually(t, fmt.Sprintf("the hook's After run %d times", n), func() (bool, string) {
		a := h.afters()
		return len(a) >= n, fmt.Sprint(a)
	})
	return h.afters()
}

func (h *recorder) afters() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.after...)
}

type outcome struct {
	res *Result
	raw string
	err error
}

func call(tool, args string) (*Call, chan outcome) {
	ch := make(chan outcome, 2)
	return &Call{Tool: tool, Arguments: json.RawMessage(args), Done: func(res *Result, err error) {
		o := outcome{res: res, err: err}
		if res != nil {
			o.raw = string(res.Raw)
			cp, _ := ScanResult([]byte(o.raw))
			o.res = cp
		}
		ch <- o
	}}, ch
}

func got(t *testing.T, ch chan outcome) outcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(wait):
		t.Fatal("Done was not called")
		return outcome{}
	}
}

// TestRelayAnswer: the request carries the relay's id, the caller's
// _meta, the session's protocol _meta and the arguments as given; the
// answer's members come back without a second parse; the hook sees the
// call before and after; the go-sdk's own traffic passes by.
func TestRelayAnswer(t *testing.T) {
	p := newPeer(t)
	h := &recorder{}
	r := New("s", p.conn, Options{ProtoMeta: []byte(`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`), Hook: h})
	c, ch := call("echo", ` {"text":"hi"} `)
	c.Meta = []byte(`"trace":"t1"`)
	if _, err := r.Start(c, time.Minute); err != nil {
		t.Fatal(err)
	}
	req := p.next()
	id, _ := req["id"].(string)
	params, _ := req["params"].(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	if !strings.HasPrefix(id, IDPrefix) || req["method"] != "tools/call" || params["name"] != "echo" ||
		params["arguments"].(map[string]any)["text"] != "hi" || meta["trace"] != "t1" ||
		meta["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" || meta["progressToken"] != nil {
		t.Fatalf("the request: %v", req)
	}
	// The go-sdk's own answer is not taken.
	p.write(`{"jsonrpc":"2.0","id":7,"result":{}}`)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	m, err := p.conn.Read(ctx)
	if resp, ok := m.(*jsonrpc.Response); err != nil || !ok || resp.ID.Raw() != int64(7) {
		t.Fatalf("the go-sdk's answer: %v %v", m, err)
	}
	p.write(`{"result":{"content":[{"type":"text","text":"hi"}],"_meta":{"k":1},"structuredContent":{"a":1},"isError":true},"jsonrpc":"2.0","id":"` + id + `"}`)
	o := got(t, ch)
	if o.err != nil || string(o.res.Content) != `[{"type":"text","text":"hi"}]` || string(o.res.Meta) != `{"k":1}` ||
		string(o.res.StructuredContent) != `{"a":1}` || !o.res.IsError {
		t.Fatalf("the result: %+v %v", o.res, o.err)
	}
	if len(h.before) != 1 || h.before[0] != `s/echo {"text":"hi"}` || len(h.waitAfters(t, 1)) != 1 || h.afters()[0] != nil {
		t.Fatalf("the hook saw %v / %v", h.before, h.afters())
	}
}

// TestRelayTimeout: a call past its timeout gets the one wording, the
// server gets notifications/cancelled, and a late answer is dropped. On
// the fake clock of a synctest bubble: the call ends at its timeout, not
// a moment sooner.
func TestRelayTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		h := &recorder{}
		r := New("s", p.conn, Options{Hook: h})
		c, ch := call("sleep", "")
		start := time.Now()
		if _, err := r.Start(c, time.Minute); err != nil {
			t.Fatal(err)
		}
		id := p.next()["id"].(string)
		testkit.Advance(time.Minute - time.Millisecond)
		if len(ch) != 0 {
			t.Fatalf("the call ended %v after its start, before its timeout of 1m: %+v", time.Since(start), <-ch)
		}
		o := got(t, ch)
		if d := time.Since(start); d != time.Minute {
			t.Errorf("the call timed out after %v, want 1m", d)
		}
		want := `Switchboard server "s": tool "sleep" did not answer within 1m0s (its callTimeout); the call was cancelled`
		var te *TimeoutError
		if !errors.As(o.err, &te) || o.err.Error() != want {
			t.Fatalf("the error: %v", o.err)
		}
		cancelled := p.next()
		if cancelled["method"] != "notifications/cancelled" || cancelled["params"].(map[string]any)["requestId"] != id {
			t.Fatalf("the server got %v", cancelled)
		}
		p.write(`{"jsonrpc":"2.0","id":"` + id + `","result":{"content":[]}}`)
		p.write(`{"jsonrpc":"2.0","id":8,"result":{}}`) // a marker: the late answer was handled before it
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if m, err := p.conn.Read(ctx); err != nil || m.(*jsonrpc.Response).ID.Raw() != int64(8) {
			t.Fatalf("after the late answer: %v %v", m, err)
		}
		select {
		case o := <-ch:
			t.Fatalf("Done ran twice: %+v", o)
		default:
		}
		if a := h.waitAfters(t, 1); len(a) != 1 || !errors.As(a[0], &te) {
			t.Fatalf("the hook's After: %v", a)
		}
	})
}

// TestRelayTimeoutsShareTimer: the calls of a relay share one timer, armed
// for the earliest deadline: a short call that comes after a long one
// times out on time, the long one stays pending and is answered, and a
// call made after the timer fired times out too (the timer is armed
// again). On the fake clock of a synctest bubble.
func TestRelayTimeoutsShareTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newPeer(t)
		r := New("s", p.conn, Options{})
		long, longCh := call("long", "")
		if _, err := r.Start(long, time.Hour); err != nil {
			t.Fatal(err)
		}
		longID := p.next()["id"].(string)
		for i := range 2 {
			short, shortCh := call("short", "")
			start := time.Now()
			if _, err := r.Start(short, 5*time.Second); err != nil {
				t.Fatal(err)
			}
			shortID := p.next()["id"].(string)
			var te *TimeoutError
			if o := got(t, shortCh); !errors.As(o.err, &te) || te.Tool != "short" {
				t.Fatalf("call %d: the short call: %+v", i, o)
			}
			if d := time.Since(start); d != 5*time.Second {
				t.Errorf("call %d: the short call timed out after %v, want 5s", i, d)
			}
			if m := p.next(); m["method"] != "notifications/cancelled" || m["params"].(map[string]any)["requestId"] != shortID {
				t.Fatalf("call %d: the server got %v", i, m)
			}
		}
		select {
		case o := <-longCh:
			t.Fatalf("the long call ended with the short ones: %+v", o)
		default:
		}
		p.write(`{"jsonrpc":"2.0","id":"` + longID + `","result":{"content":[]}}`)
		if o := got(t, longCh); o.err != nil || o.raw != `{"content":[]}` {
			t.Fatalf("the long call: %+v", o)
		}
	})
}

// TestRelayWithdraw: a withdrawn call tells the server, and Done never
// runs; the hook's After hears ErrWithdrawn.
func TestRelayWithdraw(t *testing.T) {
	p := newPeer(t)
	h := &recorder{}
	r := New("s", p.conn, Options{Hook: h})
	c, ch := call("sleep", "{}")
	stop, err := r.Start(c, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	id := p.next()["id"].(string)
	stop()
	stop()
	m := p.next()
	if m["method"] != "notifications/cancelled" || m["params"].(map[string]any)["requestId"] != id {
		t.Fatalf("the server got %v", m)
	}
	p.write(`{"jsonrpc":"2.0","id":"` + id + `","result":{"content":[]}}`)
	select {
	case o := <-ch:
		t.Fatalf("Done ran for a withdrawn call: %+v", o)
	case <-time.After(200 * time.Millisecond):
	}
	if a := h.afters(); len(a) != 1 || !errors.Is(a[0], ErrWithdrawn) {
		t.Fatalf("the hook's After: %v", a)
	}
}

// TestRelayErrors: the server's JSON-RPC error passes as it is; a result
// that is not an object is an error naming the server; arguments that are
// not JSON never reach the server; a hook's refusal neither; a closed
// connection fails the calls in flight with StoppedError.
func TestRelayErrors(t *testing.T) {
	p := newPeer(t)
	h := &recorder{}
	r := New("s", p.conn, Options{Hook: h, StateAfterClose: func() string { return "failed" }})

	c, ch := call("rpcerr", "{}")
	if _, err := r.Start(c, time.Minute); err != nil {
		t.Fatal(err)
	}
	id := p.next()["id"].(string)
	p.write(`{"jsonrpc":"2.0","id":"` + id + `","error":{"code":-32001,"message":"no","data":{"why":"test"}}}`)
	var rpc *jsonrpc.Error
	if o := got(t, ch); !errors.As(o.err, &rpc) || rpc.Code != -32001 || rpc.Message != "no" || string(rpc.Data) != `{"why":"test"}` {
		t.Fatalf("the server's error: %v", o.err)
	}

	c, ch = call("bad", "{}")
	if _, err := r.Start(c, time.Minute); err != nil {
		t.Fatal(err)
	}
	id = p.next()["id"].(string)
	p.write(`{"jsonrpc":"2.0","id":"` + id + `","result":[1]}`)
	if o := got(t, ch); o.err == nil || !strings.Contains(o.err.Error(), `Switchboard server "s" answered tool "bad"`) {
		t.Fatalf("a result that is not an object: %v", o.err)
	}

	c, _ = call("echo", `{"a":`)
	if _, err := r.Start(c, time.Minute); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, "not valid JSON") {
		t.Fatalf("arguments that are not JSON: %v", err)
	}
	c, _ = call("echo", strings.Repeat("[", maxArgsDepth+1)+strings.Repeat("]", maxArgsDepth+1))
	if _, err := r.Start(c, time.Minute); !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "flatter") {
		t.Fatalf("arguments nested too deeply: %v", err)
	}
	h.refuse = errors.New("not approved")
	c, _ = call("echo", `{}`)
	if _, err := r.Start(c, time.Minute); err == nil || err.Error() != "not approved" {
		t.Fatalf("a refused call: %v", err)
	}
	h.refuse = nil

	c, ch = call("sleep", "{}")
	if _, err := r.Start(c, time.Minute); err != nil {
		t.Fatal(err)
	}
	p.next()
	p.conn.CloseWith(stdio.ReasonExited, "gone")
	var se *StoppedError
	if o := got(t, ch); !errors.As(o.err, &se) || !strings.Contains(o.err.Error(), `Switchboard server "s" stopped while tool "sleep" was running`) ||
		!strings.HasSuffix(o.err.Error(), "it is failed now: try again in a moment") {
		t.Fatalf("a call cut by the close: %v", o.err)
	}
	c, _ = call("echo", "{}")
	if _, err := r.Start(c, time.Minute); !errors.Is(err, ErrClosed) {
		t.Fatalf("a call after the close: %v", err)
	}
	// Every call Before let through was seen ending, once.
	if b, a := len(h.before), len(h.waitAfters(t, 4)); b != 5 || a != 4 {
		t.Fatalf("the hook saw %d calls start and %d end: %v", b, a, h.afters())
	}
}

// TestRelayProgress: the server's progress about a call reaches its
// Progress under the relay's token, not the go-sdk.
func TestRelayProgress(t *testing.T) {
	p := newPeer(t)
	r := New("s", p.conn, Options{})
	c, ch := call("progress", "{}")
	var mu sync.Mutex
	var seen []string
	c.Progress = func(params json.RawMessage) {
		mu.Lock()
		seen = append(seen, string(params))
		mu.Unlock()
	}
	if _, err := r.Start(c, time.Minute); err != nil {
		t.Fatal(err)
	}
	req := p.next()
	id := req["id"].(string)
	if tok := req["params"].(map[string]any)["_meta"].(map[string]any)["progressToken"]; tok != id {
		t.Fatalf("progress token %v, id %s", tok, id)
	}
	p.write(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"` + id + `","progress":1}}`)
	p.write(`{"jsonrpc":"2.0","id":"` + id + `","result":{"content":[]}}`)
	got(t, ch)
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || !strings.Contains(seen[0], `"progress":1`) {
		t.Fatalf("progress: %v", seen)
	}
}

// TestDo: the synchronous form returns a copy of the result, and a
// context that ends withdraws the call.
func TestDo(t *testing.T) {
	p := newPeer(t)
	r := New("s", p.conn, Options{})
	done := make(chan error, 1)
	var raw json.RawMessage
	go func() {
		var err error
		raw, _, err = Do(context.Background(), starter{r}, "s", &Call{Tool: "echo"})
		done <- err
	}()
	id := p.next()["id"].(string)
	p.write(`{"jsonrpc":"2.0","id":"` + id + `","result":{"content":[{"type":"text","text":"x"}]}}`)
	p.write(`{"jsonrpc":"2.0","id":"` + id + `x","result":{"content":[{"type":"text","text":"overwritten?"}]}}`)
	if err := <-done; err != nil || string(raw) != `{"content":[{"type":"text","text":"x"}]}` {
		t.Fatalf("Do: %s %v", raw, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _, err := Do(ctx, starter{r}, "s", &Call{Tool: "sleep"})
		done <- err
	}()
	id = p.next()["id"].(string)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Do after its context ended: %v", err)
	}
	if m := p.next(); m["method"] != "notifications/cancelled" || m["params"].(map[string]any)["requestId"] != id {
		t.Fatalf("the server got %v", m)
	}
}

type starter struct{ r *Relay }

func (s starter) StartToolCall(_ string, c *Call) (func(), error) { return s.r.Start(c, time.Minute) }

// recHook records what it sees; refuse, if set, is its Before's answer.
type recHook struct {
	name   string
	refuse error
	log    *[]string
}

func (h recHook) Before(c *Info) error {
	*h.log = append(*h.log, h.name+".Before "+c.Approval)
	c.Approval += h.name
	return h.refuse
}

func (h recHook) After(c *Info, res *Result, err error) {
	*h.log = append(*h.log, fmt.Sprintf("%s.After %s args=%d %v", h.name, c.Approval, len(c.Arguments), err))
}

func TestChain(t *testing.T) {
	var log []string
	deny := &DeniedError{Server: "s", Tool: "t", Reason: "the user did not approve this call"}
	h := Chain(recHook{"a", nil, &log}, nil, recHook{"b", deny, &log}, recHook{"c", nil, &log})
	info := &Info{Arguments: json.RawMessage(`{"x":1}`)}
	if err := h.Before(info); err != deny {
		t.Fatalf("Before: %v, want the refusal", err)
	}
	want := []string{"a.Before ", "b.Before a", "a.After ab args=0 " + deny.Error()}
	if !slices.Equal(log, want) {
		t.Fatalf("refused:\n%q\nwant\n%q", log, want)
	}
	if len(info.Arguments) == 0 {
		t.Fatal("the arguments were not given back after the refusal")
	}
	log = nil
	h = Chain(recHook{"a", nil, &log}, recHook{"b", nil, &log})
	info = &Info{}
	if err := h.Before(info); err != nil {
		t.Fatal(err)
	}
	h.After(info, nil, ErrWithdrawn)
	want = []string{"a.Before ", "b.Before a", "b.After ab args=0 " + ErrWithdrawn.Error(), "a.After ab args=0 " + ErrWithdrawn.Error()}
	if !slices.Equal(log, want) {
		t.Fatalf("let through:\n%q\nwant\n%q", log, want)
	}
	if Chain() != nil || Chain(nil) != nil {
		t.Fatal("an empty chain is not nil")
	}
}
