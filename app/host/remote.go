package host

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"golang.org/x/oauth2"
)

// Remote servers (issue 17, docs/remote.md). A remote entry's
// ServerConfig carries its config.RemoteSpec next to an engine.Spec that
// holds only the numeric options; its supervisor is the local servers'
// (engine/supervisor, with Options.Transport): the same states, backoff
// and restart limit. Each attempt resolves the headers' secrets, makes an
// HTTP client that sends them, and connects the go-sdk's client over
// Streamable HTTP (or SSE). The session then serves the Manager's caches
// and the gateway as a local server's does; its requests go through
// app/relay as a local server's, the relay running over the session
// (sessionconn.go) instead of a stdio connection: the same hooks.

// remoteWatch is what the HTTP client of a remote server saw last: why the
// last attempt or request failed, which the host's state says
// (unreachable, unauthorized), and the session to end when the server
// cannot be reached (the supervisor then retries it).
type remoteWatch struct {
	mu   sync.Mutex
	why  hostapi.State // StateUnreachable, StateUnauthorized, or "" (the last answer was fine)
	what string        // the failure, for LastError
	// asked is the url of an entry without credentials that the server
	// answered with an OAuth challenge (a 401 with WWW-Authenticate:
	// Bearer): it asks for a sign-in the entry does not plan, which
	// `servers login` adds ([Manager.SignInAsked]). "" otherwise.
	asked string
	// transport is the one the last attempt connected with, as status
	// shows it: "http", "sse", or "sse (the server answered Streamable
	// HTTP with HTTP 405)" after an http-first fallback.
	transport string
}

func (w *remoteWatch) setTransport(t string) {
	w.mu.Lock()
	w.transport = t
	w.mu.Unlock()
}

// usedTransport is the transport of the last attempt, or "".
func (w *remoteWatch) usedTransport() string {
	if w == nil {
		return ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.transport
}

func (w *remoteWatch) setAsked(url string) {
	w.mu.Lock()
	w.asked = url
	w.mu.Unlock()
}

func (w *remoteWatch) askedAt(url string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.asked != "" && w.asked == url
}

func (w *remoteWatch) set(why hostapi.State, what string) {
	w.mu.Lock()
	w.why, w.what = why, what
	w.mu.Unlock()
}

func (w *remoteWatch) get() (hostapi.State, string) {
	if w == nil {
		return "", ""
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.why, w.what
}

// remoteTransport is the supervisor's Options.Transport of a remote
// server: each attempt reads the server's current entry.
func (s *server) remoteTransport() func(ctx context.Context) (mcp.Transport, error) {
	m := s.reg
	return func(ctx context.Context) (mcp.Transport, error) {
		c, _ := s.config()
		r := c.Remote
		if r == nil {
			return nil, fmt.Errorf("server %q is no longer a remote server", c.Name)
		}
		headers, err := m.remoteHeaders(ctx, r)
		if err != nil {
			return nil, err
		}
		w := s.remoteWatch()
		creds := carriesCredentials(r)
		// A server that asked for a sign-in the entry does not plan: no
		// attempt can succeed until the user signs in ('servers login'
		// adds "oauth": {}) or gives credentials (a changed entry).
		if !creds && w.askedAt(r.URL) {
			return nil, &supervisor.UserError{Err: fmt.Errorf("%w: %s", errSignInNeeded, signInAsked(c.Name))}
		}
		rt := &remoteRoundTripper{base: remoteBase, headers: headers, watch: w, name: c.Name,
			origin: originOf(r.URL), broken: s.remoteBroken, creds: creds, url: r.URL}
		if r.OAuth != nil {
			rec, err := m.loadTokens(c.Name)
			if err != nil {
				return nil, err
			}
			// Without a usable sign-in no request can succeed: the
			// supervisor waits for one (a login retries it), trying
			// nothing meanwhile and using up no attempts.
			if rec == nil {
				why := fmt.Sprintf("not signed in: run 'switchboard servers login %s'", c.Name)
				w.set(hostapi.StateSignInNeeded, why)
				return nil, &supervisor.UserError{Err: fmt.Errorf("%w: run 'switchboard servers login %s'", errSignInNeeded, c.Name)}
			}
			if rec.Refused != "" {
				why := fmt.Sprintf("%s: run 'switchboard servers login %s'", (&refusedError{errors.New(rec.Refused)}).Error(), c.Name)
				w.set(hostapi.StateSignInNeeded, why)
				return nil, &supervisor.UserError{Err: errors.New(why)}
			}
			// A server that echoes its token shows it redacted (redact.go).
			m.activity.tokensSeen(c.Name, rec.AccessToken, rec.RefreshToken)
			if rt.token, err = s.tokenSource(ctx, r, rec); err != nil {
				return nil, err
			}
		}
		// The headers and the token go to the entry's origin only
		// (redirect.go): the round tripper adds them there, and the
		// client drops them, and refuses https to http, on a redirect.
		hc := &http.Client{Transport: rt, CheckRedirect: redirectPolicy(c.Name, w, slices.Collect(maps.Keys(headers)), false)}
		sse := &mcp.SSEClientTransport{Endpoint: r.URL, HTTPClient: hc}
		if r.Type == config.RemoteSSE {
			w.setTransport(config.RemoteSSE)
			return sse, nil
		}
		// The supervisor retries a dropped connection with its own
		// backoff: the go-sdk's reconnects of the standalone stream are
		// kept few, so that a server that went away is seen soon.
		w.setTransport(config.RemoteHTTP)
		return &streamableFirst{StreamableClientTransport: &mcp.StreamableClientTransport{Endpoint: r.URL, HTTPClient: hc, MaxRetries: 2},
			rt: rt, sse: sse, fallback: r.HTTPFirst, watch: w, url: shownURLString(r.URL)}, nil
	}
}

// streamableFirst is the Streamable HTTP transport of a remote server, a
// supervisor.FallbackTransport: when the server answered its last POST
// (the handshake's) with 400, 404 or 405, it does not speak Streamable
// HTTP at that address. An entry with no "type" (RemoteSpec.HTTPFirst)
// then tries the older HTTP+SSE, as mcp-remote does by default
// (http-first); one with "type": "http" fails with the remedy in place of
// a bare "Bad Request".
type streamableFirst struct {
	*mcp.StreamableClientTransport
	rt       *remoteRoundTripper
	sse      *mcp.SSEClientTransport
	fallback bool
	watch    *remoteWatch
	url      string // shown
}

// notStreamable reports whether an HTTP status to Streamable HTTP's POST
// says the server does not speak it there (the MCP spec's backwards
// compatibility: 4xx; mcp-remote's http-first: 400, 404, 405).
func notStreamable(code int) bool {
	return code == http.StatusBadRequest || code == http.StatusNotFound || code == http.StatusMethodNotAllowed
}

func (t *streamableFirst) Fallback(err error) (mcp.Transport, error) {
	code := t.rt.lastPOST.Load()
	if !notStreamable(int(code)) {
		return nil, nil
	}
	if !t.fallback {
		return nil, fmt.Errorf("%s answered HTTP %d to Streamable HTTP (the entry's \"type\": \"http\"): if the server speaks the older HTTP+SSE transport, set \"type\": \"sse\" ('switchboard servers set NAME --transport sse'), or remove \"type\" to try Streamable HTTP, then SSE; otherwise check that \"url\" is the server's MCP endpoint (%w)",
			t.url, code, err)
	}
	t.watch.setTransport(config.RemoteSSE + " (the server answered Streamable HTTP with HTTP " + strconv.Itoa(int(code)) + ")")
	return &sseAfter{SSEClientTransport: t.sse, code: int(code), url: t.url}, nil
}

// sseAfter is the SSE transport tried after Streamable HTTP was refused
// (streamableFirst): when it fails too, its error says both and the
// remedy.
type sseAfter struct {
	*mcp.SSEClientTransport
	code int
	url  string
}

func (t *sseAfter) Fallback(err error) (mcp.Transport, error) {
	return nil, fmt.Errorf("%s speaks neither MCP transport: it answered Streamable HTTP with HTTP %d, and the older HTTP+SSE failed too (%w): check that \"url\" is the server's MCP endpoint (often ending in /mcp for Streamable HTTP, /sse for SSE)",
		t.url, t.code, err)
}

// remoteBase is the HTTP transport of every remote server: the default's
// (proxy from the environment, HTTP/2).
var remoteBase http.RoundTripper = http.DefaultTransport

// remoteHeaders resolves the secrets of a remote entry's headers (never
// logged: the activity log's resolver remembers them only to redact them).
func (m *Manager) remoteHeaders(ctx context.Context, r *config.RemoteSpec) (http.Header, error) {
	h := http.Header{}
	for name, v := range r.Headers {
		var b strings.Builder
		for _, p := range v {
			if p.Secret == "" {
				b.WriteString(p.Text)
				continue
			}
			if m.start.Secrets == nil {
				return nil, remoteSecretErr(r.Name, "headers."+name, p.Secret, errors.New("no keyring"))
			}
			val, err := m.start.Secrets.Resolve(ctx, p.Secret)
			if err != nil {
				return nil, remoteSecretErr(r.Name, "headers."+name, p.Secret, err)
			}
			if strings.ContainsAny(string(val), "\r\n\x00") {
				clear(val)
				return nil, remoteSecretErr(r.Name, "headers."+name, p.Secret,
					errors.New("its value holds a line break or NUL byte, which no header can carry"))
			}
			b.Write(val)
			clear(val)
		}
		h.Set(name, b.String())
	}
	return h, nil
}

// remoteSecretError is a secret of a remote entry (a header's, the
// oauth client's) that could not be read: an *engine.SecretError whose Var
// is the entry's key (headers.Authorization), so that the supervisor waits
// for it as for an env secret, worded with that key.
type remoteSecretError struct{ se *engine.SecretError }

func remoteSecretErr(server, key, secret string, err error) error {
	return &remoteSecretError{&engine.SecretError{Server: server, Var: key, Secret: secret, Err: err}}
}

func (e *remoteSecretError) Error() string {
	return fmt.Sprintf("server %q: %s: secret %q could not be read (%v): unlock the keyring or store it with 'switchboard secret set %s', then start the server again",
		e.se.Server, e.se.Var, e.se.Secret, e.se.Err, e.se.Secret)
}

func (e *remoteSecretError) Unwrap() error { return e.se }

// remoteSecretKey reports whether a SecretError's Var is a remote entry's
// key (remoteSecretError) rather than an env variable's name.
func remoteSecretKey(v string) bool {
	return strings.HasPrefix(v, "headers.") || strings.HasPrefix(v, "oauth.")
}

// remoteRoundTripper sends a remote server's headers (and its token) with
// every request to its origin, and records how the server answered.
type remoteRoundTripper struct {
	base    http.RoundTripper
	headers http.Header
	watch   *remoteWatch
	name    string
	origin  string             // the entry's url's (redirect.go): the only one the credentials go to
	broken  func()             // the server cannot be reached: end the session
	token   oauth2.TokenSource // a signed-in server's (oauth.go), or nil
	creds   bool               // the entry sends credentials (carriesCredentials)
	url     string             // the entry's url (remoteWatch.asked)
	// lastPOST is the HTTP status of the last POST to the entry's origin
	// (streamableFirst reads the handshake's).
	lastPOST atomic.Int32
}

// carriesCredentials reports whether a remote entry sends credentials: a
// sign-in ("oauth"), or a header that holds a keyring secret or is
// Authorization. A 401 to an entry without any is not a refusal of
// credentials: none were sent.
func carriesCredentials(r *config.RemoteSpec) bool {
	if r.OAuth != nil {
		return true
	}
	for name, v := range r.Headers {
		if len(v.Secrets()) > 0 || http.CanonicalHeaderKey(name) == "Authorization" {
			return true
		}
	}
	return false
}

// signInAsked says that a server asked for a sign-in, and the one command
// that does it (the window's Sign in runs the same).
func signInAsked(name string) string {
	return fmt.Sprintf("this server asks for a sign-in (it answered HTTP 401 with an OAuth challenge): sign in with 'switchboard servers login %s' (or Sign in in the window)", name)
}

// oauthChallenge reports whether a 401's WWW-Authenticate is a Bearer
// challenge (RFC 6750; MCP's authorization spec adds resource_metadata):
// the server signs its clients in with OAuth.
func oauthChallenge(h http.Header) bool {
	for _, v := range h.Values("WWW-Authenticate") {
		scheme, _, _ := strings.Cut(strings.TrimSpace(v), " ")
		if strings.EqualFold(scheme, "Bearer") {
			return true
		}
	}
	return false
}

func (t *remoteRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	own := origin(req.URL) == t.origin
	if !own {
		// Another origin (a redirect, an SSE endpoint elsewhere): none of
		// the entry's credentials, even one a caller copied.
		for k := range t.headers {
			r.Header.Del(k)
		}
		for _, h := range sensitiveHeaders {
			r.Header.Del(h)
		}
	} else {
		for k, v := range t.headers {
			r.Header[k] = v
		}
	}
	if t.token != nil && own {
		tok, err := t.token.Token() // refreshed refreshEarly before it expires
		if err != nil {
			var re *refusedError
			if errors.As(err, &re) {
				t.watch.set(hostapi.StateSignInNeeded, re.Error())
				t.broken()
			} else {
				t.watch.set(hostapi.StateUnreachable, "the sign-in could not be renewed: "+err.Error())
			}
			return nil, err
		}
		r.Header.Set("Authorization", "Bearer "+tok.AccessToken)
	}
	resp, err := t.base.RoundTrip(r)
	if err != nil {
		if req.Context().Err() == nil {
			t.watch.set(hostapi.StateUnreachable, unreachable(req.URL, err))
			var ne net.Error
			var oe *net.OpError
			if errors.As(err, &oe) || errors.As(err, &ne) {
				t.broken()
			}
		}
		return nil, err
	}
	if own && req.Method == http.MethodPost {
		t.lastPOST.Store(int32(resp.StatusCode))
	}
	switch {
	case !own && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden):
		t.watch.set(hostapi.StateUnauthorized, fmt.Sprintf("%s answered HTTP %d: it is another origin than the server's %s (a redirect pointed there), and the server's headers and token are never sent to another origin: fix the server's URL in the config to the address it redirects to",
			shownURL(req.URL), resp.StatusCode, t.origin))
	case (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) && t.creds:
		t.watch.set(hostapi.StateUnauthorized, fmt.Sprintf("%s refused the credentials: HTTP %d", shownURL(req.URL), resp.StatusCode))
	case resp.StatusCode == http.StatusUnauthorized && oauthChallenge(resp.Header):
		// None were sent, and the server signs its clients in (an
		// imported mcp-remote entry: mcp-remote signed in by itself).
		t.watch.setAsked(t.url)
		t.watch.set(hostapi.StateSignInNeeded, signInAsked(t.name))
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		t.watch.set(hostapi.StateUnauthorized, fmt.Sprintf("%s answered HTTP %d, and the entry sends no credentials: give it a token ('switchboard servers set %s --bearer SECRET', the token in the keyring with 'switchboard secret set SECRET'), or a header the server expects (--secret-header)",
			shownURL(req.URL), resp.StatusCode, t.name))
	case resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout:
		t.watch.set(hostapi.StateUnreachable, fmt.Sprintf("%s answered HTTP %d", shownURL(req.URL), resp.StatusCode))
	case resp.StatusCode < 300:
		t.watch.set("", "")
	}
	return resp, nil
}

// unreachable words a failed request: the address without its query (a
// token may hide there) and the network's error.
func unreachable(u *url.URL, err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return fmt.Sprintf("%s cannot be reached: %v", shownURL(u), err)
}

// shownURLString is an address as logs and states show it.
func shownURLString(u string) string { return config.ShownURL(u) }

// shownURL is an address as logs and states show it (config.ShownURL).
func shownURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	return config.ShownURL(u.String())
}

// remoteBroken ends the running session of a remote server whose requests
// no longer reach it, so that the supervisor notices at once and retries
// with its backoff (a Streamable HTTP session has no connection whose end
// would say so).
func (s *server) remoteBroken() {
	sup := s.sup
	if sup == nil || sup.Status().State != supervisor.Running {
		return
	}
	if cs := sup.Session(); cs != nil {
		go cs.Close()
	}
}

// remoteWatch returns the server's watch, made on first use.
func (s *server) remoteWatch() *remoteWatch {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	if s.remote == nil {
		s.remote = &remoteWatch{}
	}
	return s.remote
}
