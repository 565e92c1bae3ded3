package host

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/secrets"
	"golang.org/x/oauth2"
)

// OAuth sign-in of remote servers (docs/remote.md), per the MCP
// authorization spec. The go-sdk's auth.AuthorizationCodeHandler does the
// protocol: from the server's 401 and its WWW-Authenticate challenge, the
// protected resource metadata, the authorization server's metadata, the
// client (the entry's clientId, else dynamic client registration), the
// authorization code with PKCE S256 and the resource parameter, and the
// check of the response's state and iss. This file is the glue: the
// loopback listener the browser is sent back to, the tokens in the
// keyring (one secret, "oauth.NAME", JSON; nowhere else), the token
// source that refreshes them before they expire and saves each new one,
// and the states: signing in while a sign-in runs, sign-in needed when
// there is no token or its refresh was refused.

// OAuthSecret is the keyring name of a server's tokens.
func OAuthSecret(server string) string { return config.OAuthSecret(server) }

// refreshEarly is how long before its expiry a token is refreshed (a
// variable for tests).
var refreshEarly = time.Minute

// loginTimeout bounds a sign-in: the user has this long to finish it in
// the browser.
var loginTimeout = 10 * time.Minute

// tokenRecord is what the keyring holds for a signed-in server: the
// tokens and what refreshing and revoking them takes.
type tokenRecord struct {
	AccessToken  string    `json:"access_token"`
	TokenType    string    `json:"token_type,omitempty"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	ClientID     string    `json:"client_id"`
	// ClientSecret is a registered (dynamic) client's secret, if the
	// authorization server gave one; a configured client's is in its own
	// keyring secret.
	ClientSecret  string `json:"client_secret,omitempty"`
	TokenURL      string `json:"token_url"`
	AuthStyle     int    `json:"auth_style,omitempty"`
	RevocationURL string `json:"revocation_url,omitempty"`
	// Resource is the protected resource the tokens are for (RFC 8707):
	// the authorization request and the code exchange named it, and so
	// does each refresh.
	Resource string `json:"resource,omitempty"`
	// Refused is why the authorization server refused to renew the
	// tokens: they are dead, and only a new sign-in helps. The server
	// waits for it instead of asking again at every reconnection.
	Refused string `json:"refused,omitempty"`
}

func (r *tokenRecord) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, TokenType: r.TokenType, RefreshToken: r.RefreshToken, Expiry: r.Expiry}
}

// errSignInNeeded is the failure of a connection to a server that has no
// tokens.
var errSignInNeeded = errors.New("not signed in")

// loadTokens reads a server's tokens from the keyring; nil, nil when there
// are none.
func (m *Manager) loadTokens(name string) (*tokenRecord, error) {
	if m.tokens == nil {
		return nil, errors.New("no keyring: the host runs without one")
	}
	v, err := m.tokens.Get(OAuthSecret(name))
	if errors.Is(err, secrets.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec tokenRecord
	if err := json.Unmarshal([]byte(v.Reveal()), &rec); err != nil {
		return nil, fmt.Errorf("the stored sign-in of %q cannot be read (%v): sign in again", name, err)
	}
	return &rec, nil
}

func (m *Manager) saveTokens(name string, rec *tokenRecord) error {
	if m.tokens == nil {
		return errors.New("no keyring: the host runs without one")
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return m.tokens.Set(OAuthSecret(name), secrets.New(string(b)))
}

// oauthConfig is the oauth2 configuration that refreshes rec's tokens.
func (m *Manager) oauthConfig(ctx context.Context, r *config.RemoteSpec, rec *tokenRecord) (*oauth2.Config, error) {
	cfg := &oauth2.Config{ClientID: rec.ClientID, ClientSecret: rec.ClientSecret,
		Endpoint: oauth2.Endpoint{TokenURL: rec.TokenURL, AuthStyle: oauth2.AuthStyle(rec.AuthStyle)}}
	if n := r.OAuth.ClientSecretRef(); n != "" {
		v, err := m.resolveSecret(ctx, r.Name, "oauth.clientSecret", n)
		if err != nil {
			return nil, err
		}
		cfg.ClientSecret = v
	}
	return cfg, nil
}

// tokenSource returns the token source of a signed-in server: its token
// until refreshEarly before it expires, then a refreshed one, saved to the
// keyring.
func (s *server) tokenSource(ctx context.Context, r *config.RemoteSpec, rec *tokenRecord) (oauth2.TokenSource, error) {
	m := s.reg
	cfg, err := m.oauthConfig(ctx, r, rec)
	if err != nil {
		return nil, err
	}
	rs := &refresher{m: m, s: s, gen: s.oauthGen.Load(), name: r.Name, cfg: cfg, rec: *rec}
	return renewing(rec, rs), nil
}

// renewing is the token source of rec: its token until refreshEarly
// before the token's expiry, then renew's, each kept until refreshEarly
// before its own expiry.
func renewing(rec *tokenRecord, renew oauth2.TokenSource) oauth2.TokenSource {
	return oauth2.ReuseTokenSourceWithExpiry(rec.token(), renew, refreshEarly)
}

// refresher refreshes a token with its refresh token, and saves the new
// one. A refresh refused by the authorization server is a *refusedError.
type refresher struct {
	m    *Manager
	s    *server
	gen  int64 // s.oauthGen when it was made: a sign-in or out since makes it stale
	name string
	cfg  *oauth2.Config

	mu  sync.Mutex
	rec tokenRecord
}

// refusedError is a refresh the authorization server refused (the grant
// expired or was revoked): only a new sign-in helps.
type refusedError struct{ err error }

func (e *refusedError) Error() string {
	return "the sign-in expired and the authorization server refused to renew it (" + e.err.Error() + ")"
}
func (e *refusedError) Unwrap() error { return e.err }

func (r *refresher) Token() (*oauth2.Token, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.s.oauthGen.Load() != r.gen {
		// Signed out (or in again) since: this session's tokens are gone;
		// a renewal now would put them back in the keyring.
		return nil, &refusedError{errors.New("signed out")}
	}
	if r.rec.Refused != "" {
		return nil, &refusedError{errors.New(r.rec.Refused)}
	}
	if r.rec.RefreshToken == "" {
		return nil, &refusedError{errors.New("it gave no refresh token")}
	}
	// A source of its own each time: the oauth2 package's would hand back
	// the token it holds while that is valid by its own, shorter, margin.
	hc := &http.Client{Timeout: time.Minute, CheckRedirect: redirectPolicy(r.name, nil, nil, true)}
	if r.rec.Resource != "" {
		hc.Transport = &resourceParam{base: http.DefaultTransport, resource: r.rec.Resource}
	}
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, hc)
	tok, err := r.cfg.TokenSource(ctx, &oauth2.Token{RefreshToken: r.rec.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode >= 400 && re.Response.StatusCode < 500 {
			why := refreshWhy(re)
			r.rec.Refused = why
			r.save()
			return nil, &refusedError{errors.New(why)}
		}
		return nil, err
	}
	r.rec.AccessToken, r.rec.TokenType, r.rec.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		r.rec.RefreshToken = tok.RefreshToken // rotated
	}
	// Before the request it is for: the server's answer is redacted.
	r.m.activity.tokensSeen(r.name, r.rec.AccessToken, r.rec.RefreshToken)
	if !r.save() {
		return nil, &refusedError{errors.New("signed out")}
	}
	return tok, nil
}

// save writes the record to the keyring, unless a sign-in or out came
// since the refresher was made (false then). r.mu is held.
func (r *refresher) save() bool {
	rec := r.rec
	r.m.oauthMu.Lock()
	defer r.m.oauthMu.Unlock()
	if r.s.oauthGen.Load() != r.gen {
		return false
	}
	if err := r.m.saveTokens(r.name, &rec); err != nil {
		r.m.log.Warn("the renewed sign-in could not be saved to the keyring", "server", r.name, "err", err)
	}
	return true
}

// resourceParam adds the resource parameter (RFC 8707, which the MCP
// authorization spec asks of every token request) to refresh requests:
// the oauth2 package's refresh takes no extra parameters.
type resourceParam struct {
	base     http.RoundTripper
	resource string
}

func (t *resourceParam) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost || req.Body == nil || !strings.HasPrefix(req.Header.Get("Content-Type"), "application/x-www-form-urlencoded") {
		return t.base.RoundTrip(req)
	}
	b, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	req.Body.Close()
	if err != nil {
		return nil, err
	}
	form, err := url.ParseQuery(string(b))
	if err == nil && form.Get("grant_type") == "refresh_token" && !form.Has("resource") {
		form.Set("resource", t.resource)
		b = []byte(form.Encode())
	}
	r := req.Clone(req.Context())
	r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return t.base.RoundTrip(r)
}

// refreshWhy words a refused refresh without the response's body beyond
// its OAuth error code.
func refreshWhy(re *oauth2.RetrieveError) string {
	if re.ErrorCode != "" {
		return re.ErrorCode
	}
	return fmt.Sprintf("HTTP %d", re.Response.StatusCode)
}

// resolveSecret reads a keyring secret for a remote entry's key.
func (m *Manager) resolveSecret(ctx context.Context, server, key, name string) (string, error) {
	if m.start.Secrets == nil {
		return "", remoteSecretErr(server, key, name, errors.New("no keyring"))
	}
	v, err := m.start.Secrets.Resolve(ctx, name)
	if err != nil {
		return "", remoteSecretErr(server, key, name, err)
	}
	s := string(v)
	clear(v)
	return s, nil
}

// LoginResult is a sign-in under way: URL is the page to open.
type loginFlow struct {
	url  chan string
	done chan error
}

// SignInAsked reports whether the server named name is a remote server
// whose entry plans no sign-in (no "oauth", no credentials) and that
// answered with an OAuth challenge: its sign-in first adds "oauth": {} to
// the entry (Host.login).
func (m *Manager) SignInAsked(name string) bool {
	s, err := m.get(name)
	if err != nil {
		return false
	}
	c, _ := s.config()
	if c.Remote == nil || carriesCredentials(c.Remote) {
		return false
	}
	s.cacheMu.Lock()
	w := s.remote
	s.cacheMu.Unlock()
	return w.askedAt(c.Remote.URL)
}

// Login starts the sign-in of a remote server that has "oauth" and
// returns the authorization page to open in a browser; the sign-in then
// goes on in the host until the browser comes back to the loopback
// listener (or loginTimeout). On success the tokens go to the keyring and
// the server is (re)started; on failure its state says why.
func (m *Manager) Login(ctx context.Context, name string) (string, error) {
	s, err := m.get(name)
	if err != nil {
		return "", err
	}
	c, _ := s.config()
	if c.Remote == nil || c.Remote.OAuth == nil {
		return "", &hostapi.Error{Code: hostapi.CodeInvalidConfig, Message: fmt.Sprintf(
			`server %q does not sign in with OAuth: only a remote entry with "oauth" does (add "oauth": {} to its entry)`, name)}
	}
	s.cacheMu.Lock()
	if s.signingIn != nil {
		s.signingIn() // a second sign-in replaces the first
	}
	fctx, cancel := context.WithTimeout(context.Background(), loginTimeout)
	s.signingIn = cancel
	s.cacheMu.Unlock()
	s.publishState()
	flow := &loginFlow{url: make(chan string, 1), done: make(chan error, 1)}
	go func() {
		err := s.login(fctx, c.Remote, flow)
		s.cacheMu.Lock()
		s.signingIn = nil
		s.cacheMu.Unlock()
		cancel()
		w := s.remoteWatch()
		if err != nil {
			m.log.Warn("sign-in failed", "server", name, "err", m.activity.redactString(err.Error())) // host.log: a token it quotes is redacted
			w.set(hostapi.StateSignInNeeded, "the sign-in failed: "+err.Error())
		} else {
			m.log.Info("signed in", "server", name)
			w.set("", "")
			if sup := s.sup; sup != nil {
				if cur, _ := s.config(); !cur.Disabled {
					s.setUserStopped(false) // signing in is asking for it to run
					sup.Restart()
				}
			}
		}
		s.publishState()
		flow.done <- err
	}()
	select {
	case u := <-flow.url:
		return u, nil
	case err := <-flow.done:
		return "", fmt.Errorf("server %q: the sign-in could not start: %w", name, err)
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// login runs one sign-in.
func (s *server) login(ctx context.Context, r *config.RemoteSpec, flow *loginFlow) error {
	m := s.reg
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("no loopback port for the browser to come back to: %w", err)
	}
	defer l.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", l.Addr().(*net.TCPAddr).Port)
	results := make(chan url.Values, 1)
	// expect is the state of the authorization request, known once its
	// page is made. The listener is open to every local user: a return
	// whose state is not this one is not the browser's (a forged or stale
	// request) and is answered 400 and ignored, so that it cannot end the
	// sign-in under way; the go-sdk checks the state again.
	var expect atomic.Pointer[string]
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/callback" {
			http.NotFound(w, req)
			return
		}
		q := req.URL.Query()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if want := expect.Load(); want == nil || *want == "" || subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(*want)) != 1 {
			m.log.Warn("a return to the sign-in's loopback listener was ignored: its state did not match the sign-in under way", "server", r.Name)
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "<p>Switchboard: this request was ignored: its state did not match the sign-in to %s under way. "+
				"The sign-in goes on: finish it in the page Switchboard opened, or start it again with 'switchboard servers login %s'.</p>",
				html.EscapeString(r.Name), html.EscapeString(r.Name))
			return
		}
		if e := q.Get("error"); e != "" {
			fmt.Fprintf(w, "<p>Switchboard: the sign-in to %s was refused: %s</p>", html.EscapeString(r.Name), html.EscapeString(e))
		} else {
			fmt.Fprintf(w, "<p>Switchboard: back from the sign-in to %s. You can close this tab.</p>", html.EscapeString(r.Name))
		}
		select {
		case results <- q:
		default:
		}
	})}
	go srv.Serve(l)
	// Shutdown, not Close: the browser's request that brought the result
	// is answered whole (its page ends) before the listener goes, even
	// when the sign-in fails at once after it (a wrong iss).
	defer func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
	}()

	meta := &metaSniffer{base: remoteBase}
	// Its requests carry the entry's headers (the first), a code, the
	// client's secret: never to another origin, never from https to http
	// (redirect.go).
	hc := &http.Client{Transport: meta, Timeout: time.Minute,
		CheckRedirect: redirectPolicy(r.Name, nil, slices.Collect(maps.Keys(r.Headers)), true)}
	var got struct {
		cfg *oauth2.Config
		tok *oauth2.Token
	}
	var resource string // the go-sdk's choice, from the resource's metadata
	hcfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL:         redirect,
		RequestRefreshToken: true,
		Client:              hc,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			u, err := url.Parse(args.URL)
			if err != nil {
				return nil, fmt.Errorf("the authorization page's address does not parse: %w", err)
			}
			resource = u.Query().Get("resource")
			state := u.Query().Get("state")
			if state == "" {
				return nil, errors.New("the authorization request has no state: a return to the loopback listener could not be told from a forged one")
			}
			expect.Store(&state)
			flow.url <- args.URL
			select {
			case q := <-results:
				if e := q.Get("error"); e != "" {
					return nil, fmt.Errorf("the authorization server refused: %s %s", e, q.Get("error_description"))
				}
				return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("the browser did not come back within %v", loginTimeout)
			}
		},
		NewTokenSource: func(_ context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
			got.cfg, got.tok = cfg, tok
			return oauth2.StaticTokenSource(tok), nil
		},
	}
	if scopes := r.OAuth.Scopes; len(scopes) > 0 {
		hcfg.ScopeFilter = func([]string) []string { return scopes }
	}
	if u := r.OAuth.ClientMetadataURL; u != "" {
		// First where the authorization server takes such documents.
		hcfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: u}
	}
	if r.OAuth.ClientID != "" {
		cc := &oauthex.ClientCredentials{ClientID: r.OAuth.ClientID}
		if n := r.OAuth.ClientSecretRef(); n != "" {
			v, err := m.resolveSecret(ctx, r.Name, "oauth.clientSecret", n)
			if err != nil {
				return err
			}
			cc.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: v}
		}
		hcfg.PreregisteredClient = cc
	} else {
		hcfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "Switchboard", TokenEndpointAuthMethod: "none",
			GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"},
		}}
	}
	h, err := auth.NewAuthorizationCodeHandler(hcfg)
	if err != nil {
		return err
	}
	// The server's challenge: an initialize without credentials.
	headers, err := m.remoteHeaders(ctx, r)
	if err != nil {
		return err
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"switchboard","version":"0"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, strings.NewReader(body))
	if err != nil {
		return err
	}
	for k, v := range headers {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("%s cannot be reached: %w", config.ShownURL(r.URL), err)
	}
	if resp.StatusCode != http.StatusUnauthorized && resp.StatusCode != http.StatusForbidden {
		resp.Body.Close()
		return fmt.Errorf("%s did not ask for a sign-in (it answered HTTP %d): remove \"oauth\" from the entry", config.ShownURL(r.URL), resp.StatusCode)
	}
	if err := h.Authorize(ctx, req, resp); err != nil {
		return err
	}
	if got.tok == nil || got.cfg == nil {
		return errors.New("the authorization server gave no token")
	}
	rec := &tokenRecord{AccessToken: got.tok.AccessToken, TokenType: got.tok.TokenType, RefreshToken: got.tok.RefreshToken,
		Expiry: got.tok.Expiry, ClientID: got.cfg.ClientID, TokenURL: got.cfg.Endpoint.TokenURL,
		AuthStyle: int(got.cfg.Endpoint.AuthStyle), RevocationURL: meta.revocation(), Resource: resource}
	if got.cfg.ClientID != r.OAuth.ClientID {
		rec.ClientSecret = got.cfg.ClientSecret // a registered client's ("" for a metadata document's)
	}
	m.activity.tokensSeen(r.Name, rec.AccessToken, rec.RefreshToken)
	m.oauthMu.Lock()
	defer m.oauthMu.Unlock()
	s.oauthGen.Add(1) // the previous session's renewals no longer save
	return m.saveTokens(r.Name, rec)
}

// metaSniffer passes requests on and keeps the revocation endpoint of the
// authorization server's metadata, which the go-sdk fetches but does not
// return (for servers.logout).
type metaSniffer struct {
	base http.RoundTripper
	mu   sync.Mutex
	rev  string
}

func (t *metaSniffer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusOK || !strings.Contains(req.URL.Path, "/.well-known/") {
		return resp, err
	}
	b, rerr := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(b))
	if rerr == nil {
		var m struct {
			Revocation string `json:"revocation_endpoint"`
		}
		if json.Unmarshal(b, &m) == nil && m.Revocation != "" {
			t.mu.Lock()
			t.rev = m.Revocation
			t.mu.Unlock()
		}
	}
	return resp, nil
}

func (t *metaSniffer) revocation() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rev
}

// Logout deletes a server's tokens from the keyring, after revoking them
// where the authorization server has a revocation endpoint, and stops the
// server's session (it needs a sign-in again). revoked says whether they
// were revoked.
func (m *Manager) Logout(ctx context.Context, name string) (revoked bool, err error) {
	s, err := m.get(name)
	if err != nil {
		return false, err
	}
	c, _ := s.config()
	m.oauthMu.Lock()
	s.oauthGen.Add(1) // a renewal under way no longer saves
	m.oauthMu.Unlock()
	rec, err := m.loadTokens(name)
	if err != nil {
		return false, err
	}
	if rec != nil && rec.RevocationURL != "" && c.Remote != nil {
		revoked = m.revoke(ctx, c.Remote, rec) == nil
	}
	if rec != nil {
		if err := m.tokens.Delete(OAuthSecret(name)); err != nil && !errors.Is(err, secrets.ErrNotFound) {
			return revoked, err
		}
	}
	s.remoteWatch().set(hostapi.StateSignInNeeded, "signed out: run 'switchboard servers login "+name+"'")
	if sup := s.sup; sup != nil && c.Remote != nil {
		if st := sup.Status().State; st != "stopped" && st != "failed" {
			sup.Restart() // its next connection has no token
		}
	}
	s.publishState()
	return revoked, nil
}

// revoke revokes a refresh token (and with it, at most servers, its access
// tokens) per RFC 7009.
func (m *Manager) revoke(ctx context.Context, r *config.RemoteSpec, rec *tokenRecord) error {
	cfg, err := m.oauthConfig(ctx, r, rec)
	if err != nil {
		return err
	}
	tok, hint := rec.RefreshToken, "refresh_token"
	if tok == "" {
		tok, hint = rec.AccessToken, "access_token"
	}
	form := url.Values{"token": {tok}, "token_type_hint": {hint}, "client_id": {cfg.ClientID}}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rec.RevocationURL, strings.NewReader(form.Encode()))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if cfg.ClientSecret != "" {
		req.SetBasicAuth(url.QueryEscape(cfg.ClientID), url.QueryEscape(cfg.ClientSecret))
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second, CheckRedirect: redirectPolicy(r.Name, nil, nil, true)}).Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("revocation answered HTTP %d", resp.StatusCode)
	}
	return nil
}
