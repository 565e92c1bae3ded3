package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// bearer adds a token to every request of a client.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

func httpGateway(t *testing.T) (*Gateway, *secrets.Store, string) {
	t.Helper()
	store := secrets.NewMemoryStore(filepath.Join(testTempDir(t), "secrets.json"))
	f := newFake(running("alpha", "echo"))
	g := New(Options{Backend: fakeRaw{f}, Secrets: store})
	t.Cleanup(g.Close)
	if err := g.SetHTTP(-1); err != nil {
		t.Fatal(err)
	}
	return g, store, g.HTTPAddr()
}

func TestHTTP(t *testing.T) {
	g, store, addr := httpGateway(t)
	host, port, err := net.SplitHostPort(addr)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("the endpoint is at %q: not 127.0.0.1", addr)
	}
	token, err := Token(store)
	if err != nil || len(token) != 64 {
		t.Fatalf("token %q: %v", token, err)
	}

	// The go-sdk's client with the token: lists and calls, both eras.
	for _, era := range eras {
		hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
		c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + HTTPPath, HTTPClient: hc, MaxRetries: -1},
			&mcp.ClientSessionOptions{ProtocolVersion: era.version})
		if err != nil {
			cancel()
			t.Fatalf("%s: connect: %v", era.name, err)
		}
		if got := toolNames(t, cs); !slices.Equal(got, []string{"alpha__echo"}) {
			t.Errorf("%s: tools %v", era.name, got)
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"a": 1}})
		if err != nil || res.IsError || textOf(t, res) != `alpha/echo {"a":1}` {
			t.Errorf("%s: call: %v %+v", era.name, err, res)
		}
		cs.Close()
		cancel()
	}

	post := func(mutate func(*http.Request)) (int, string) {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
		req, _ := http.NewRequest("POST", "http://"+addr+HTTPPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		mutate(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := post(func(*http.Request) {}); code != http.StatusOK {
		t.Fatalf("a good request: %d %s", code, body)
	}
	for _, c := range []struct {
		name   string
		mutate func(*http.Request)
		want   int
	}{
		{"no token", func(r *http.Request) { r.Header.Del("Authorization") }, http.StatusUnauthorized},
		{"a wrong token", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+strings.Repeat("0", 64)) }, http.StatusUnauthorized},
		{"another scheme", func(r *http.Request) { r.Header.Set("Authorization", "Basic "+token) }, http.StatusUnauthorized},
		{"a foreign Origin", func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }, http.StatusForbidden},
		{"a null Origin", func(r *http.Request) { r.Header.Set("Origin", "null") }, http.StatusForbidden},
		{"a foreign Host", func(r *http.Request) { r.Host = "evil.example:" + port }, http.StatusForbidden},
		{"a rebound Host", func(r *http.Request) { r.Host = "127.0.0.1.evil.example" }, http.StatusForbidden},
	} {
		if code, body := post(c.mutate); code != c.want {
			t.Errorf("%s: %d %q, want %d", c.name, code, body, c.want)
		}
	}
	for _, ok := range []string{"http://localhost:" + port, "http://127.0.0.1:" + port, "http://[::1]"} {
		if code, body := post(func(r *http.Request) { r.Header.Set("Origin", ok) }); code != http.StatusOK {
			t.Errorf("a local Origin %s: %d %s", ok, code, body)
		}
	}

	// A new token works once the host reloads it, the old one not.
	newTok, err := NewToken(store)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := post(func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+newTok) }); code != http.StatusUnauthorized {
		t.Errorf("the new token before ReloadHTTPToken: %d", code)
	}
	if err := g.ReloadHTTPToken(); err != nil {
		t.Fatal(err)
	}
	if code, _ := post(func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+newTok) }); code != http.StatusOK {
		t.Errorf("the new token: %d", code)
	}
	if code, _ := post(func(*http.Request) {}); code != http.StatusUnauthorized {
		t.Errorf("the old token: %d", code)
	}
}

// TestHTTPBindsLoopbackOnly: the endpoint is not reachable on any other
// address of the machine.
func TestHTTPBindsLoopbackOnly(t *testing.T) {
	_, _, addr := httpGateway(t)
	_, port, _ := net.SplitHostPort(addr)
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok || ipn.IP.IsLoopback() || ipn.IP.IsLinkLocalUnicast() {
			continue
		}
		tried++
		c, err := net.DialTimeout("tcp", net.JoinHostPort(ipn.IP.String(), port), time.Second)
		if err == nil {
			c.Close()
			t.Errorf("the endpoint answers on %s", ipn.IP)
		}
	}
	// ::1 is another address of this machine, and not the listener's.
	if c, err := net.DialTimeout("tcp", net.JoinHostPort("::1", port), time.Second); err == nil {
		c.Close()
		t.Errorf("the endpoint answers on ::1")
	}
	t.Logf("checked %d non-loopback addresses", tried)
}

func TestHTTPOff(t *testing.T) {
	g, _, addr := httpGateway(t)
	if err := g.SetHTTP(0); err != nil {
		t.Fatal(err)
	}
	if g.HTTPAddr() != "" {
		t.Error("HTTPAddr after SetHTTP(0)")
	}
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still answers", addr)
	}
	// Without a keyring it stays off, and says why.
	g2 := New(Options{Backend: newFake()})
	defer g2.Close()
	if err := g2.SetHTTP(-1); err == nil || !strings.Contains(err.Error(), "keyring") {
		t.Errorf("no keyring: %v", err)
	}
}

// countKeyringReads counts the keyring reads of the token until the test
// ends.
func countKeyringReads(t *testing.T) *atomic.Int64 {
	var n atomic.Int64
	old := keyringGet
	keyringGet = func(store *secrets.Store, name string) (secrets.Secret, error) {
		n.Add(1)
		return old(store, name)
	}
	t.Cleanup(func() { keyringGet = old })
	return &n
}

// rawRequest sends one request on a new connection and returns the
// response and the connection (still open, as far as the client goes).
func rawRequest(t *testing.T, addr, header string) (*http.Response, net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: %d\r\n\r\n%s",
		HTTPPath, addr, header, len(body), body)
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, c, br
}

// TestHTTPWrongTokenNeverReadsKeyring: requests with a wrong token are
// refused from the token in memory; the keyring is read when the endpoint
// starts and when the host says the token changed, never on a request
// (a locked keyring would prompt, and stall every request meanwhile).
func TestHTTPWrongTokenNeverReadsKeyring(t *testing.T) {
	reads := countKeyringReads(t)
	g, store, addr := httpGateway(t)
	if n := reads.Load(); n != 1 {
		t.Errorf("starting the endpoint read the keyring %d times, want 1", n)
	}
	reads.Store(0)
	bad := "Authorization: Bearer " + strings.Repeat("f", 64) + "\r\n"
	// (Past the 5 s after which the endpoint used to read the keyring
	// again on a wrong token: TestHTTPWrongTokenNeverRereads, on a
	// synctest bubble's clock.)
	for i := range 40 {
		if resp, _, _ := rawRequest(t, addr, bad); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("bad request %d: %s", i, resp.Status)
		}
	}
	if n := reads.Load(); n != 0 {
		t.Errorf("40 requests with a wrong token read the keyring %d times, want 0", n)
	}
	// The host's reload (gateway token --new) reads it once.
	tok, err := NewToken(store)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.ReloadHTTPToken(); err != nil {
		t.Fatal(err)
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("ReloadHTTPToken read the keyring %d times, want 1", n)
	}
	if resp, _, _ := rawRequest(t, addr, "Authorization: Bearer "+tok+"\r\n"); resp.StatusCode != http.StatusOK {
		t.Errorf("the reloaded token: %s", resp.Status)
	}
}

// TestHTTPRefusalClosesConnection: a refused request's connection is
// closed by the host, whatever keep-alive the client asked for.
func TestHTTPRefusalClosesConnection(t *testing.T) {
	_, _, addr := httpGateway(t)
	for _, h := range []string{"", "Authorization: Bearer nope\r\n", "Origin: https://evil.example\r\n"} {
		resp, c, br := rawRequest(t, addr, "Connection: keep-alive\r\n"+h)
		if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
			t.Errorf("%q: %s", h, resp.Status)
		}
		if !resp.Close {
			t.Errorf("%q: the answer does not say Connection: close", h)
		}
		_ = c.SetReadDeadline(time.Now().Add(wait))
		if _, err := br.ReadByte(); err != io.EOF {
			t.Errorf("%q: the connection stays open after the refusal: %v", h, err)
		}
	}
}

// shortLimits shortens the endpoint's limits for a test (before SetHTTP).
func shortLimits(t *testing.T, conns int, d time.Duration) {
	old := []any{httpMaxConns, httpHeaderTimeout, httpUnauthTimeout, httpBodyTimeout, httpIdleTimeout}
	httpMaxConns, httpHeaderTimeout, httpUnauthTimeout, httpBodyTimeout, httpIdleTimeout = conns, d, d, d, d
	t.Cleanup(func() {
		httpMaxConns, httpHeaderTimeout, httpUnauthTimeout = old[0].(int), old[1].(time.Duration), old[2].(time.Duration)
		httpBodyTimeout, httpIdleTimeout = old[3].(time.Duration), old[4].(time.Duration)
	})
}

// TestHTTPDeadlines: a connection that sends nothing, one that sends its
// headers a byte at a time, and an idle keep-alive one are closed by the
// host; a call with the token that lasts several times every deadline
// still gets its answer (its SSE stream is not cut).
func TestHTTPDeadlines(t *testing.T) {
	shortLimits(t, 256, 300*time.Millisecond)
	store := secrets.NewMemoryStore(filepath.Join(testTempDir(t), "secrets.json"))
	f := newFake(running("alpha", "echo", "slow"))
	f.setOnCall(func(ctx context.Context, server string, p *mcp.CallToolParams, _ func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
		select {
		case <-time.After(1500 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow done"}}}, nil
	})
	g := New(Options{Backend: fakeRaw{f}, Secrets: store})
	t.Cleanup(g.Close)
	if err := g.SetHTTP(-1); err != nil {
		t.Fatal(err)
	}
	addr := g.HTTPAddr()
	token, _ := Token(store)

	closed := func(name string, c net.Conn) {
		t.Helper()
		_ = c.SetReadDeadline(time.Now().Add(wait))
		buf := make([]byte, 512)
		for {
			_, err := c.Read(buf)
			if err == nil {
				continue // a 408 or 400 answer first is fine
			}
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Errorf("%s: the host did not close the connection within %v", name, wait)
			}
			return
		}
	}
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	stop := make(chan struct{})
	defer close(stop)
	go func() { // slowloris: a header byte every 50 ms, forever
		hdr := "POST " + HTTPPath + " HTTP/1.1\r\nHost: " + addr + "\r\nX-Pad: "
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			b := byte('a')
			if i < len(hdr) {
				b = hdr[i]
			}
			if _, err := slow.Write([]byte{b}); err != nil {
				return
			}
		}
	}()
	resp, idle, _ := rawRequest(t, addr, "Authorization: Bearer "+token+"\r\n")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a good request: %s", resp.Status)
	}
	closed("a silent connection", silent)
	closed("a slowloris connection", slow)
	closed("an idle keep-alive connection", idle)

	// A call with the token, five times longer than every deadline.
	hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
	c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + HTTPPath, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__slow", Arguments: map[string]any{}})
	if err != nil || res.IsError || textOf(t, res) != "slow done" {
		t.Errorf("a call longer than the deadlines: %v %+v", err, res)
	}
}

// TestHTTPConnectionCap: connections beyond the cap wait unaccepted; the
// accepted ones that send nothing are closed at the header timeout, so a
// client with the token gets through a flood of idle connections.
func TestHTTPConnectionCap(t *testing.T) {
	shortLimits(t, 8, 300*time.Millisecond)
	g, store, addr := httpGateway(t)
	token, _ := Token(store)
	var flood []net.Conn
	defer func() {
		for _, c := range flood {
			c.Close()
		}
	}()
	for range 60 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		flood = append(flood, c)
	}
	g.mu.Lock()
	ll := g.http.ln.(*limitedListener)
	g.mu.Unlock()
	if n := len(ll.sem); n > 8 {
		t.Errorf("%d connections accepted at once, the cap is 8", n)
	}
	if resp, _, _ := rawRequest(t, addr, "Authorization: Bearer "+token+"\r\n"); resp.StatusCode != http.StatusOK {
		t.Errorf("a good request during the flood: %s", resp.Status)
	}
	if n := len(ll.sem); n > 8 {
		t.Errorf("%d connections accepted at once, the cap is 8", n)
	}
}

// TestHTTPSearchMode: a session begun at /mcp?toolMode=search lists
// find_tools and call_tool, finds and calls through them; the tools it
// found are not added to the list (the facade is shared by every search
// session of the endpoint); the endpoint's other sessions list every
// tool; an unknown mode is refused.
func TestHTTPSearchMode(t *testing.T) {
	_, store, addr := httpGateway(t)
	token, err := Token(store)
	if err != nil {
		t.Fatal(err)
	}
	hc := &http.Client{Transport: bearer{token, http.DefaultTransport}}
	connect := func(query string) *mcp.ClientSession {
		t.Helper()
		c := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: "http://" + addr + HTTPPath + query, HTTPClient: hc, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connect %s: %v", query, err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	cs := connect("?toolMode=search")
	if got := toolNames(t, cs); !slices.Equal(got, []string{"call_tool", "find_tools"}) {
		t.Fatalf("search mode over HTTP lists %v", got)
	}
	if got := find(t, cs, "echo"); !slices.Equal(got, []string{"alpha__echo"}) {
		t.Errorf("find_tools over HTTP: %v", got)
	}
	if got := outcome(cs, "call_tool", map[string]any{"name": "alpha__echo", "arguments": map[string]any{"a": 1}}); got != `result: alpha/echo {"a":1}` {
		t.Errorf("call_tool over HTTP: %s", got)
	}
	if got := toolNames(t, cs); !slices.Equal(got, []string{"call_tool", "find_tools"}) {
		t.Errorf("after find_tools, search mode over HTTP lists %v", got)
	}
	if got := toolNames(t, connect("")); !slices.Equal(got, []string{"alpha__echo"}) {
		t.Errorf("the normal mode over HTTP lists %v", got)
	}
	req, _ := http.NewRequest("POST", "http://"+addr+HTTPPath+"?toolMode=lazy", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"lazy"`) {
		t.Errorf("an unknown mode: %d %s", resp.StatusCode, body)
	}
}
