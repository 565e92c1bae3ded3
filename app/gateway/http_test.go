package gateway

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
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

	// A new token works (the keyring is read again), the old one not.
	newTok, err := NewToken(store)
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	g.http.reloaded = time.Time{} // no need to wait the 5 s
	g.mu.Unlock()
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
