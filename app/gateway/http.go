package gateway

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TokenName is the keyring secret that holds the HTTP endpoint's bearer
// token.
const TokenName = "switchboard-gateway-token"

// HTTPPath is where the HTTP endpoint serves MCP.
const HTTPPath = "/mcp"

// Token returns the HTTP endpoint's bearer token from the keyring,
// generating and storing one (32 random bytes, hex) if there is none.
func Token(store *secrets.Store) (string, error) {
	if store == nil {
		return "", errors.New("no keyring: the gateway's HTTP token lives in the OS keyring")
	}
	s, err := store.Get(TokenName)
	if err == nil && !s.IsZero() {
		return s.Reveal(), nil
	}
	if err != nil && !errors.Is(err, secrets.ErrNotFound) {
		return "", err
	}
	return NewToken(store)
}

// NewToken stores a new random token (replacing any) and returns it.
func NewToken(store *secrets.Store) (string, error) {
	if store == nil {
		return "", errors.New("no keyring: the gateway's HTTP token lives in the OS keyring")
	}
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	t := hex.EncodeToString(b[:])
	if err := store.Set(TokenName, secrets.New(t)); err != nil {
		return "", err
	}
	return t, nil
}

// httpEndpoint is the Streamable HTTP endpoint: one listener on
// 127.0.0.1, one shared facade (no per-client filter), and the checks in
// front of the go-sdk's handler.
type httpEndpoint struct {
	g    *Gateway
	port int
	ln   net.Listener
	srv  *http.Server
	f    *facade
	mcp  http.Handler

	mu       sync.Mutex
	token    string
	reloaded time.Time // when the token was last read from the keyring
}

// SetHTTP turns the HTTP endpoint on at 127.0.0.1:port, or off with port
// 0; a call with the port in force changes nothing. Port -1 asks for any
// free port (tests). The first start of the endpoint makes its token.
func (g *Gateway) SetHTTP(port int) error {
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		return ErrClosed
	}
	old := g.http
	if old != nil && (old.port == port || port == -1 && old.port == -1) {
		g.mu.Unlock()
		return nil
	}
	g.http = nil
	g.mu.Unlock()
	if old != nil {
		old.close()
		g.log.Info("the gateway's HTTP endpoint is off", "addr", old.ln.Addr().String())
	}
	if port == 0 {
		return nil
	}
	token, err := Token(g.opts.Secrets)
	if err != nil {
		return fmt.Errorf("the gateway's HTTP endpoint stays off: its bearer token cannot be read or made: %w", err)
	}
	addr := "127.0.0.1:" + strconv.Itoa(max(port, 0))
	ln, err := net.Listen("tcp4", addr)
	if err != nil {
		return fmt.Errorf("the gateway's HTTP endpoint stays off: %w: choose another gateway.httpPort", err)
	}
	e := &httpEndpoint{g: g, port: port, ln: ln, token: token, reloaded: time.Now()}
	e.f = g.newFacade(Filter{})
	e.mcp = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return e.f.srv },
		&mcp.StreamableHTTPOptions{Logger: g.sdkLog, SessionTimeout: time.Hour})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, e)
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: nil}
	g.mu.Lock()
	if g.closed {
		g.mu.Unlock()
		_ = ln.Close()
		return ErrClosed
	}
	g.http = e
	g.facades[e.f] = struct{}{}
	g.mu.Unlock()
	go func() { _ = e.srv.Serve(ln) }()
	g.log.Info("the gateway's HTTP endpoint is on", "url", "http://"+ln.Addr().String()+HTTPPath)
	return nil
}

// HTTPAddr returns the HTTP endpoint's address (127.0.0.1:PORT), or "" if
// it is off.
func (g *Gateway) HTTPAddr() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.http == nil {
		return ""
	}
	return g.http.ln.Addr().String()
}

func (e *httpEndpoint) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		_ = e.srv.Close() // streams that stay open (GET listeners)
	}
	// Shutdown closes only the listeners Serve has begun tracking: one
	// whose Serve goroutine has not run yet would stay bound until it does.
	_ = e.ln.Close()
	e.g.dropFacade(e.f)
}

// ServeHTTP refuses a request whose Host or Origin is not local (DNS
// rebinding: a web page that resolved its own name to 127.0.0.1) or that
// lacks the bearer token, then hands it to the go-sdk.
func (e *httpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !localHost(r.Host) {
		http.Error(w, "forbidden: the Host header must name this computer (127.0.0.1 or localhost)", http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !localOrigin(o) {
		http.Error(w, "forbidden: requests from web pages of other origins are refused", http.StatusForbidden)
		return
	}
	if !e.authorized(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		http.Error(w, "unauthorized: send 'Authorization: Bearer TOKEN' with the token that 'switchboard gateway token' prints", http.StatusUnauthorized)
		return
	}
	e.mcp.ServeHTTP(w, r)
}

// authorized compares the request's bearer token with the keyring's, in
// constant time. A token that does not match makes the endpoint re-read
// the keyring (at most every 5 s), so that a token changed with
// 'switchboard gateway token --new' or 'switchboard secret set' works
// without a restart.
func (e *httpEndpoint) authorized(header string) bool {
	scheme, got, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got = strings.TrimSpace(got)
	e.mu.Lock()
	defer e.mu.Unlock()
	if subtle.ConstantTimeCompare([]byte(got), []byte(e.token)) == 1 && e.token != "" {
		return true
	}
	if time.Since(e.reloaded) < 5*time.Second || e.g.opts.Secrets == nil {
		return false
	}
	e.reloaded = time.Now()
	s, err := e.g.opts.Secrets.Get(TokenName)
	if err != nil || s.IsZero() {
		return false
	}
	e.token = s.Reveal()
	return subtle.ConstantTimeCompare([]byte(got), []byte(e.token)) == 1
}

// localHost reports whether a Host header names the loopback interface.
func localHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	switch strings.ToLower(host) {
	case "127.0.0.1", "localhost", "::1":
		return true
	}
	return false
}

// localOrigin reports whether an Origin header is a page served from this
// computer's loopback interface.
func localOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return localHost(u.Host)
}
