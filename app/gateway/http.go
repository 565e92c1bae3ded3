package gateway

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	s, err := keyringGet(store, TokenName)
	if err == nil && !s.IsZero() {
		return s.Reveal(), nil
	}
	if err != nil && !errors.Is(err, secrets.ErrNotFound) {
		return "", err
	}
	return NewToken(store)
}

// keyringGet reads a secret (tests count the reads).
var keyringGet = func(store *secrets.Store, name string) (secrets.Secret, error) { return store.Get(name) }

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

// The HTTP endpoint's limits. Any local user can connect to 127.0.0.1, so
// what a client without the token can hold is bounded: at most
// httpMaxConns connections at once (more wait in the kernel's backlog,
// costing the host no descriptor), httpHeaderTimeout to send its headers,
// httpUnauthTimeout for the rest of a request and its answer, and every
// refused request closes its connection. A client with the token gets no
// read or write deadline once it is admitted: a Streamable HTTP answer is
// an SSE stream that lasts as long as the tool call (its callTimeout, up
// to a day) or the session (a GET stream), and the go-sdk writes it.
// (Variables so that tests can shorten them.)
var (
	httpMaxConns      = 256
	httpHeaderTimeout = 10 * time.Second
	httpUnauthTimeout = 10 * time.Second // body and answer of a request not yet admitted
	httpBodyTimeout   = 60 * time.Second // an admitted request's body
	httpIdleTimeout   = 60 * time.Second // a keep-alive connection between requests
	httpMaxHeader     = 64 << 10
)

// httpEndpoint is the Streamable HTTP endpoint: one listener on
// 127.0.0.1, one shared facade (no per-client filter), and the checks in
// front of the go-sdk's handler. A session begun at HTTPPath?toolMode=search
// gets a second shared facade, in search mode (made on first use).
type httpEndpoint struct {
	g    *Gateway
	port int
	ln   net.Listener
	srv  *http.Server
	f    *facade
	mcp  http.Handler

	mu     sync.Mutex
	token  []byte  // read from the keyring when the endpoint starts and on ReloadHTTPToken; never on a request
	search *facade // the search-mode facade, once a session asked for it
	closed bool

	ids httpIDs // the stand-ins of ids the go-sdk would rewrite (ids.go)
}

// facadeFor is the facade of a session that request r begins: the search
// mode's for HTTPPath?toolMode=search (ServeHTTP refused other modes).
func (e *httpEndpoint) facadeFor(r *http.Request) *facade {
	if r.URL.Query().Get("toolMode") != ToolModeSearch {
		return e.f
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.search == nil && !e.closed {
		f := e.g.newFacade(Filter{ToolMode: ToolModeSearch})
		f.conn = "http"
		e.g.mu.Lock()
		e.g.facades[f] = struct{}{}
		e.g.mu.Unlock()
		f.sync() // a view built since newFacade
		e.search = f
	}
	if e.search == nil {
		return e.f
	}
	return e.search
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
	ln = limitListener(ln, httpMaxConns)
	e := &httpEndpoint{g: g, port: port, ln: ln, token: []byte(token)}
	e.f = g.newFacade(Filter{})
	e.f.conn = "http"
	e.mcp = mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server { return e.facadeFor(r).srv },
		&mcp.StreamableHTTPOptions{Logger: g.sdkLog, SessionTimeout: time.Hour})
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, e)
	// ReadTimeout and WriteTimeout bound every request until ServeHTTP
	// admits it (see the limits above); ServeHTTP lifts them then.
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: httpHeaderTimeout,
		ReadTimeout: httpUnauthTimeout, WriteTimeout: httpUnauthTimeout, IdleTimeout: httpIdleTimeout,
		MaxHeaderBytes: httpMaxHeader, ErrorLog: slog.NewLogLogger(g.log.Handler(), slog.LevelDebug)}
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
	e.mu.Lock()
	e.closed = true
	search := e.search
	e.mu.Unlock()
	if search != nil {
		e.g.dropFacade(search)
	}
}

// ReloadHTTPToken reads the HTTP endpoint's token from the keyring again
// (making one if there is none): the host calls it when the token changed
// ('switchboard gateway token --new', 'switchboard secret set'). Requests
// never read the keyring: a wrong token is refused from memory, so that a
// locked keyring cannot make a stranger's requests pop unlock prompts or
// stall the endpoint.
func (g *Gateway) ReloadHTTPToken() error {
	g.mu.Lock()
	e := g.http
	g.mu.Unlock()
	if e == nil {
		return nil
	}
	t, err := Token(g.opts.Secrets)
	if err != nil {
		return fmt.Errorf("the gateway's HTTP endpoint keeps its token: the new one cannot be read: %w", err)
	}
	e.mu.Lock()
	e.token = []byte(t)
	e.mu.Unlock()
	return nil
}

// ServeHTTP refuses a request whose Host or Origin is not local (DNS
// rebinding: a web page that resolved its own name to 127.0.0.1) or that
// lacks the bearer token, closing its connection, then lifts the
// connection's deadlines and hands the request to the go-sdk.
func (e *httpEndpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	refuse := func(code int, msg string) {
		w.Header().Set("Connection", "close")
		http.Error(w, msg, code)
	}
	if !localHost(r.Host) {
		refuse(http.StatusForbidden, "forbidden: the Host header must name this computer (127.0.0.1 or localhost)")
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !localOrigin(o) {
		refuse(http.StatusForbidden, "forbidden: requests from web pages of other origins are refused")
		return
	}
	if !e.authorized(r.Header.Get("Authorization")) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="switchboard"`)
		refuse(http.StatusUnauthorized, "unauthorized: send 'Authorization: Bearer TOKEN' with the token that 'switchboard gateway token' prints")
		return
	}
	if err := (Filter{ToolMode: r.URL.Query().Get("toolMode")}).Check(); err != nil {
		refuse(http.StatusBadRequest, "bad request: "+err.Error()+" (in the URL: "+HTTPPath+"?toolMode=search)")
		return
	}
	// Admitted: the answer may be a long SSE stream, so no write
	// deadline; the body gets httpBodyTimeout, and once it is read no
	// read deadline either (net/http's background read would otherwise
	// end the request's context when it expires).
	rc := http.NewResponseController(w)
	_ = rc.SetWriteDeadline(time.Time{})
	if r.Body == nil || r.Body == http.NoBody || r.ContentLength == 0 {
		_ = rc.SetReadDeadline(time.Time{})
	} else {
		_ = rc.SetReadDeadline(time.Now().Add(httpBodyTimeout))
		r.Body = &liftAtEOF{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
	}
	w, done := e.ids.wrap(w, r, e.g.opts.MaxMessageSize)
	defer done()
	e.mcp.ServeHTTP(w, r)
}

// liftAtEOF calls lift once the body has been read to its end.
type liftAtEOF struct {
	io.ReadCloser
	lift func()
	done bool
}

func (b *liftAtEOF) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.lift()
	}
	return n, err
}

// authorized compares the request's bearer token with the endpoint's, in
// constant time. The token is the one in memory: see ReloadHTTPToken.
func (e *httpEndpoint) authorized(header string) bool {
	scheme, got, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got = strings.TrimSpace(got)
	e.mu.Lock()
	want := e.token
	e.mu.Unlock()
	return len(want) > 0 && subtle.ConstantTimeCompare([]byte(got), want) == 1
}

// limitListener accepts at most n connections at once: Accept waits for
// one to close. Connections beyond n stay in the kernel's backlog, where
// they cost the host no descriptor.
func limitListener(l net.Listener, n int) net.Listener {
	return &limitedListener{Listener: l, sem: make(chan struct{}, n), done: make(chan struct{})}
}

type limitedListener struct {
	net.Listener
	sem       chan struct{}
	done      chan struct{}
	closeOnce sync.Once
}

func (l *limitedListener) Accept() (net.Conn, error) {
	select {
	case l.sem <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.sem
		return nil, err
	}
	return &limitedConn{Conn: c, release: func() { <-l.sem }}, nil
}

func (l *limitedListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
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
