package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"io"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/relay"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// fake is a Backend over servers that a test sets: a call is answered by
// the test's onCall, or echoed ("SERVER/TOOL ARGS").
type fake struct {
	mu      sync.Mutex
	servers map[string]Server
	calls   []fakeCall
	// completes records each completion/complete the servers got.
	completes []fakeComplete
	onCall    func(ctx context.Context, server string, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error)
}

type fakeComplete struct {
	server string
	params *mcp.CompleteParams
}

type fakeCall struct {
	server, tool, args string
	meta               map[string]any
}

func newFake(servers ...Server) *fake {
	f := &fake{servers: map[string]Server{}}
	for _, s := range servers {
		f.servers[s.Name] = s
	}
	return f
}

// running is a server that runs with these tools.
func running(name string, tools ...string) Server {
	s := Server{Name: name, State: hostapi.StateRunning, Cached: true, StartTimeout: 5 * time.Second}
	for _, t := range tools {
		s.Tools = append(s.Tools, &mcp.Tool{Name: t, InputSchema: map[string]any{"type": "object"}})
	}
	return s
}

func (f *fake) Servers() []Server {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]Server, 0, len(f.servers))
	for _, s := range f.servers {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (f *fake) set(s Server) {
	f.mu.Lock()
	f.servers[s.Name] = s
	f.mu.Unlock()
}

func (f *fake) update(name string, fn func(*Server)) {
	f.mu.Lock()
	s := f.servers[name]
	fn(&s)
	f.servers[name] = s
	f.mu.Unlock()
}

func (f *fake) recorded() []fakeCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeCall(nil), f.calls...)
}

// setOnCall sets what a call does, under the fake's lock: a call of a
// connection still open may read it at the same moment.
func (f *fake) setOnCall(on func(ctx context.Context, server string, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error)) {
	f.mu.Lock()
	f.onCall = on
	f.mu.Unlock()
}

func (f *fake) check(server string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.servers[server]
	if !ok {
		return &NotRunningError{Server: server, State: "removed"}
	}
	if s.State != hostapi.StateRunning {
		return &NotRunningError{Server: server, State: s.State, LastError: s.LastError}
	}
	return nil
}

func (f *fake) CallTool(ctx context.Context, server string, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
	if err := f.check(server); err != nil {
		return nil, err
	}
	args, _ := json.Marshal(p.Arguments)
	var meta map[string]any
	if len(p.Meta) > 0 {
		b, _ := json.Marshal(p.Meta)
		_ = json.Unmarshal(b, &meta)
	}
	f.mu.Lock()
	f.calls = append(f.calls, fakeCall{server: server, tool: p.Name, args: string(args), meta: meta})
	on := f.onCall
	f.mu.Unlock()
	if on != nil {
		return on(ctx, server, p, progress)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%s/%s %s", server, p.Name, args)}}}, nil
}

func (f *fake) GetPrompt(ctx context.Context, server string, p *mcp.GetPromptParams) (*mcp.GetPromptResult, error) {
	if err := f.check(server); err != nil {
		return nil, err
	}
	return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: server + "/" + p.Name}}}}, nil
}

func (f *fake) ReadResource(ctx context.Context, server string, p *mcp.ReadResourceParams) (*mcp.ReadResourceResult, error) {
	if err := f.check(server); err != nil {
		return nil, err
	}
	if strings.Contains(p.URI, "missing") {
		return nil, &jsonrpc.Error{Code: -32002, Message: "Resource not found: " + p.URI}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: p.URI, Text: server + " " + p.URI}}}, nil
}

// Complete answers one value: "SERVER REF ARGUMENT=VALUE".
func (f *fake) Complete(ctx context.Context, server string, p *mcp.CompleteParams) (*mcp.CompleteResult, error) {
	if err := f.check(server); err != nil {
		return nil, err
	}
	f.mu.Lock()
	f.completes = append(f.completes, fakeComplete{server, p})
	f.mu.Unlock()
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{
		Values: []string{fmt.Sprintf("%s %s %s=%s", server, p.Ref.Name+p.Ref.URI, p.Argument.Name, p.Argument.Value)}, Total: 1}}, nil
}

func (f *fake) recordedCompletes() []fakeComplete {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeComplete(nil), f.completes...)
}

// fakeRaw is the fake as a RawBackend: the relayed call runs the fake's
// CallTool and hands its result on as JSON, as the host's relay hands on
// a server's.
type fakeRaw struct{ *fake }

func (r fakeRaw) StartToolCall(server string, c *relay.Call) (func(), error) {
	if err := r.check(server); err != nil {
		return nil, err
	}
	p := &mcp.CallToolParams{Name: c.Tool}
	if c.Arguments != nil {
		p.Arguments = c.Arguments
	}
	if len(c.Meta) > 0 {
		if err := json.Unmarshal([]byte("{"+string(c.Meta)+"}"), &p.Meta); err != nil {
			return nil, fmt.Errorf("the call's _meta members do not decode: %v", err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stopped atomic.Bool
	var progress func(*mcp.ProgressNotificationParams)
	if c.Progress != nil {
		progress = func(n *mcp.ProgressNotificationParams) {
			n2 := *n
			n2.ProgressToken = "upstream-token"
			b, _ := json.Marshal(&n2)
			c.Progress(b)
		}
	}
	go func() {
		res, err := r.fake.CallTool(ctx, server, p, progress)
		if stopped.Load() {
			return
		}
		if err != nil {
			c.Done(nil, err)
			return
		}
		b, _ := json.Marshal(res)
		rr, err := relay.ScanResult(b)
		if err != nil {
			c.Done(nil, err)
			return
		}
		c.Done(rr, nil)
	}()
	return func() { stopped.Store(true); cancel() }, nil
}

// The modes the conformance tests run in: the go-sdk's path (a plain
// Backend, the fake's CallTool: a test double, no program has it), the lean path over a
// RawBackend (the host's kind), and that with the client's pipes handed
// over as a bridge does (fds). (A lean path over a plain Backend, a
// goroutine per call, was reached only by tests: it is gone, and a
// backend that cannot relay gets the go-sdk's path.)
var modes = []string{"sdk", "raw", "fds"}

// Eras: the 2025-11-25 initialize handshake, and the 2026-07-28 protocol.
var eras = []struct{ name, version string }{{"legacy", "2025-11-25"}, {"modern", ""}}

type harness struct {
	g    *Gateway
	fake *fake
	sock string
	fds  bool // clients hand their pipes over
}

func newHarness(t *testing.T, mode string, servers ...Server) *harness {
	t.Helper()
	f := newFake(servers...)
	var b Backend = f
	if mode == "raw" || mode == "fds" {
		b = fakeRaw{f}
	}
	if mode == "fds" && !handOffHere {
		t.Skip("handing the stdin and stdout over is Unix-only (SCM_RIGHTS): on this system the bridge relays the bytes")
	}
	g := New(Options{Backend: b, Version: "test"})
	l, sock := testListen(t)
	go func() { _ = g.Serve(l) }()
	t.Cleanup(g.Close)
	return &harness{g: g, fake: f, sock: sock, fds: mode == "fds"}
}

// handOff connects as a bridge that hands its stdin and stdout over: it
// returns the client's ends of those pipes, and a channel with WaitEnd's
// result.
func (h *harness) handOff(t *testing.T, filter *Filter) (toServer *os.File, fromServer *os.File, end chan error) {
	t.Helper()
	nc, err := testDial(h.sock)
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var f Filter
	if filter != nil {
		f = *filter
	}
	// As switchboard-bridge does: the pipes go with the preamble (an
	// older bridge's come after the Welcome: app/host's
	// TestInfoAIClients).
	br, w, err := bridge.HandshakeFDs(nc, Hello{Filter: f, Client: "test bridge"}, inR, outW)
	if err != nil || !w.FDs || !w.Inline {
		t.Fatalf("the hand-over was refused: %v %+v", err, w)
	}
	// As the bridge: its own copies do not matter once handed over.
	inR.Close()
	outW.Close()
	end = make(chan error, 1)
	go func() {
		end <- WaitEnd(br)
		nc.Close()
	}()
	t.Cleanup(func() {
		inW.Close()
		outR.Close()
		nc.Close()
	})
	return inW, outR, end
}

// notify rebuilds the gateway's view now (Notify does it asynchronously).
func (h *harness) notify() { h.g.rebuild() }

type readCloser struct {
	io.Reader
	io.Closer
}

// connect connects a go-sdk client, with the bridge's preamble when filter
// is not nil, in the era of version ("": the newest).
func (h *harness) connect(t *testing.T, filter *Filter, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if h.fds {
		w, r, _ := h.handOff(t, filter)
		c := mcp.NewClient(&mcp.Implementation{Name: "gateway-test", Version: "1"}, opts)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: r, Writer: w}, &mcp.ClientSessionOptions{ProtocolVersion: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	nc, err := testDial(h.sock)
	if err != nil {
		t.Fatal(err)
	}
	var r io.Reader = nc
	if filter != nil {
		br, _, err := Handshake(nc, Hello{Filter: *filter, Client: "test"})
		if err != nil {
			t.Fatal(err)
		}
		r = br
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "gateway-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: readCloser{r, nc}, Writer: nc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// rawClient speaks JSON-RPC lines to the gateway, for the tests that
// compare what each path writes byte for byte (as JSON values).
type rawClient struct {
	t      *testing.T
	w      io.Writer
	r      interface{ SetReadDeadline(time.Time) error }
	br     *bufio.Reader
	nextID int
	modern bool
}

func (h *harness) rawClient(t *testing.T, modern bool) *rawClient {
	t.Helper()
	var c *rawClient
	if h.fds {
		w, r, _ := h.handOff(t, nil)
		c = &rawClient{t: t, w: w, r: r, br: bufio.NewReader(r), modern: modern}
	} else {
		nc, err := testDial(h.sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { nc.Close() })
		c = &rawClient{t: t, w: nc, r: nc, br: bufio.NewReader(nc), modern: modern}
	}
	if modern {
		c.request("server/discover", map[string]any{})
	} else {
		c.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "raw", "version": "1"}})
		c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	}
	return c
}

func (c *rawClient) send(m map[string]any) {
	c.t.Helper()
	b, _ := json.Marshal(m)
	if _, err := c.w.Write(append(b, '\n')); err != nil {
		c.t.Fatal(err)
	}
}

// meta is the per-request _meta of the 2026-07-28 protocol, or nil.
func (c *rawClient) meta() map[string]any {
	if !c.modern {
		return nil
	}
	return map[string]any{
		mcp.MetaKeyProtocolVersion:    "2026-07-28",
		mcp.MetaKeyClientInfo:         map[string]any{"name": "raw", "version": "1"},
		mcp.MetaKeyClientCapabilities: map[string]any{},
	}
}

// request sends a request (with the era's _meta merged into params) and
// returns the response, skipping notifications.
func (c *rawClient) request(method string, params map[string]any) map[string]any {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	if m := c.meta(); m != nil {
		pm, _ := params["_meta"].(map[string]any)
		if pm == nil {
			pm = map[string]any{}
		}
		for k, v := range m {
			pm[k] = v
		}
		params["_meta"] = pm
	}
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		m := c.read(testkit.Deadline) // a guard against a hang only
		if m == nil {
			c.t.Fatalf("no response to %s", method)
		}
		if idv, ok := m["id"].(float64); ok && int(idv) == id {
			return m
		}
	}
}

// read returns the next message, or nil after d.
func (c *rawClient) read(d time.Duration) map[string]any {
	c.t.Helper()
	_ = c.r.SetReadDeadline(time.Now().Add(d))
	line, err := c.br.ReadBytes('\n')
	_ = c.r.SetReadDeadline(time.Time{})
	if err != nil {
		return nil
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		c.t.Fatalf("not JSON: %q", line)
	}
	return m
}

func dialT(t *testing.T, sock string) net.Conn {
	t.Helper()
	nc, err := testDial(sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

func listenT(t *testing.T) (net.Listener, string) {
	t.Helper()
	return testListen(t)
}

// conns2 returns the gateway's socket clients.
func (g *Gateway) conns2() []*sockConn {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []*sockConn
	for c := range g.conns {
		out = append(out, c)
	}
	return out
}
