// Package remotetest holds the test rigs of remote servers (issue 17):
// an MCP server behind a real OAuth authorization server, and a scripted
// browser. Tests only.
package remotetest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oauth2-proxy/mockoidc"
)

// OAuthRig is a go-sdk Streamable HTTP MCP server protected by a real
// authorization server (mockoidc: OIDC discovery with PKCE S256, the
// authorization code and refresh grants, a confidential client): it
// answers 401 with a WWW-Authenticate challenge that names its protected
// resource metadata, and lets in requests whose bearer token the
// authorization server's userinfo endpoint accepts.
type OAuthRig struct {
	AS       *mockoidc.MockOIDC
	MCPURL   string
	Refresh  atomic.Int32 // refresh grants the authorization server got
	CodeSeen atomic.Int32 // authorization code grants

	// DCR, set before a sign-in, makes the authorization server offer
	// dynamic client registration (RFC 7591): its metadata names a
	// registration endpoint (served next to the MCP server: mockoidc has
	// none), which checks the request and registers the client by handing
	// out mockoidc's one client. Registered counts the registrations.
	DCR        atomic.Bool
	Registered atomic.Int32

	// CIMD, set before a sign-in, makes the authorization server take
	// client ID metadata documents: its metadata says so, and a client_id
	// that is an https address is fetched with CIMDClient (the test's TLS
	// server's client), checked (its client_id is its own address, the
	// request's redirect_uri is one of its redirect_uris, a loopback one's
	// port aside, RFC 8252) and then stands for mockoidc's one client.
	// CIMDFetched counts the fetches.
	CIMD        atomic.Bool
	CIMDClient  *http.Client
	CIMDFetched atomic.Int32

	// Revocation, set before a sign-in, makes the authorization server's
	// metadata name a revocation endpoint (RFC 7009; served next to the
	// MCP server: mockoidc has none) that authenticates the client as the
	// token endpoint does and revokes the token: a revoked refresh token
	// is refused by the token endpoint, a revoked access token by the MCP
	// server. Revoked counts the revocations.
	Revocation atomic.Bool
	Revoked    atomic.Int32

	// RedirectTo, when set, makes the MCP endpoint answer every request
	// with a 307 to that address (a server that moved, or a hostile one
	// sending the client elsewhere), before it checks the token.
	RedirectTo atomic.Pointer[string]

	base     string      // the MCP server's origin
	server   *mcp.Server // its MCP server
	mu       sync.Mutex
	issued   []string        // every access and refresh token it gave
	refreshR []string        // the resource parameter of each refresh grant ("" if none)
	cimdOK   map[string]bool // client ID documents the authorization endpoint accepted
	revoked  map[string]bool // tokens revoked at the revocation endpoint
}

// IsRevoked reports whether tok was revoked at the revocation endpoint.
func (rig *OAuthRig) IsRevoked(tok string) bool {
	rig.mu.Lock()
	defer rig.mu.Unlock()
	return rig.revoked[tok]
}

// RefreshResources returns the resource parameter (RFC 8707) of each
// refresh grant the authorization server got, "" where there was none.
func (rig *OAuthRig) RefreshResources() []string {
	rig.mu.Lock()
	defer rig.mu.Unlock()
	return append([]string(nil), rig.refreshR...)
}

// Issued returns every access and refresh token the authorization server
// gave (to look for them where they must not be).
func (rig *OAuthRig) Issued() []string {
	rig.mu.Lock()
	defer rig.mu.Unlock()
	return append([]string(nil), rig.issued...)
}

// NewOAuthRig starts the rig on loopback ports; it stops at the test's end.
func NewOAuthRig(t testing.TB) *OAuthRig {
	t.Helper()
	rig := &OAuthRig{}
	as, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	as.AccessTTL = 30 * time.Second // below refreshEarly: every use renews it
	as.RefreshTTL = time.Hour
	if err := as.AddMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == mockoidc.AuthorizationEndpoint && rig.CIMD.Load() {
				q := r.URL.Query()
				if id := q.Get("client_id"); strings.HasPrefix(id, "https://") {
					if err := rig.checkCIMD(id, q.Get("redirect_uri")); err != nil {
						http.Error(w, "invalid_client: "+err.Error(), http.StatusBadRequest)
						return
					}
					q.Set("client_id", rig.AS.ClientID)
					r.URL.RawQuery = q.Encode()
				}
				next.ServeHTTP(w, r)
				return
			}
			if r.URL.Path == mockoidc.DiscoveryEndpoint && (rig.DCR.Load() || rig.CIMD.Load() || rig.Revocation.Load()) {
				rec := httptest.NewRecorder()
				next.ServeHTTP(rec, r)
				var m map[string]any
				if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
					http.Error(w, err.Error(), http.StatusInternalServerError)
					return
				}
				if rig.DCR.Load() {
					m["registration_endpoint"] = rig.base + "/register"
				}
				if rig.Revocation.Load() {
					m["revocation_endpoint"] = rig.base + "/revoke"
				}
				if rig.CIMD.Load() {
					m["client_id_metadata_document_supported"] = true
				}
				w.Header().Set("Content-Type", "application/json")
				_ = json.NewEncoder(w).Encode(m)
				return
			}
			if r.URL.Path != mockoidc.TokenEndpoint {
				next.ServeHTTP(w, r)
				return
			}
			_ = r.ParseForm()
			if id := r.Form.Get("client_id"); strings.HasPrefix(id, "https://") {
				// A public client named by its document: accepted at the
				// authorization endpoint, it has no secret to send.
				rig.mu.Lock()
				ok := rig.cimdOK[id]
				rig.mu.Unlock()
				if !ok || r.Form.Get("client_secret") != "" {
					http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
					return
				}
				for _, f := range []url.Values{r.Form, r.PostForm} {
					f.Set("client_id", rig.AS.ClientID)
					f.Set("client_secret", rig.AS.ClientSecret)
				}
			}
			if r.Form.Get("grant_type") == "refresh_token" && rig.IsRevoked(r.Form.Get("refresh_token")) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadRequest)
				_, _ = w.Write([]byte(`{"error":"invalid_grant","error_description":"the token was revoked"}`))
				return
			}
			switch r.Form.Get("grant_type") {
			case "refresh_token":
				rig.Refresh.Add(1)
				rig.mu.Lock()
				rig.refreshR = append(rig.refreshR, r.Form.Get("resource"))
				rig.mu.Unlock()
			case "authorization_code":
				rig.CodeSeen.Add(1)
			}
			// mockoidc writes expires_in in nanoseconds (a Go Duration);
			// RFC 6749 says seconds: put it right, so that the client
			// sees the token's real lifetime.
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			var m map[string]any
			if json.Unmarshal(body, &m) == nil {
				rig.mu.Lock()
				for _, k := range []string{"access_token", "refresh_token"} {
					if v, ok := m[k].(string); ok && v != "" {
						rig.issued = append(rig.issued, v)
					}
				}
				rig.mu.Unlock()
				if n, ok := m["expires_in"].(float64); ok {
					m["expires_in"] = int64(n) / int64(time.Second)
					body, _ = json.Marshal(m)
				}
			}
			for k, v := range rec.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rec.Code)
			_, _ = w.Write(body)
		})
	}); err != nil {
		t.Fatal(err)
	}
	al, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := as.Start(al, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = as.Shutdown() })
	rig.AS = as

	ml, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ml.Addr().String()
	rig.base = base
	rig.MCPURL = base + "/mcp"
	prm := base + "/.well-known/oauth-protected-resource/mcp"
	s := mcp.NewServer(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "says who signed in"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "signed in"}}}, nil, nil
		})
	rig.server = s
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/revoke" {
			rig.revoke(w, r)
			return
		}
		if r.URL.Path == "/register" {
			rig.register(w, r)
			return
		}
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": rig.MCPURL,
				"authorization_servers": []string{as.Issuer()}, "scopes_supported": []string{"openid", "email"}})
			return
		}
		if to := rig.RedirectTo.Load(); to != nil {
			http.Redirect(w, r, *to, http.StatusTemporaryRedirect)
			return
		}
		if !rig.valid(r.Header.Get("Authorization")) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope="openid email"`, prm))
			http.Error(w, "sign in", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})}
	go srv.Serve(ml)
	t.Cleanup(func() { srv.Close() })
	return rig
}

// EchoTokens gives the MCP server three more tools of a careless server
// that echoes the bearer token it was called with: "token" in its result,
// "token-error" in a tool error, "token-fault" in a JSON-RPC error. Call
// it before the host connects (the rig's other tests count one tool).
func (rig *OAuthRig) EchoTokens() {
	mcp.AddTool(rig.server, &mcp.Tool{Name: "token", Description: "says the bearer token it was called with"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "your token is " + bearer(req)}}}, nil, nil
		})
	mcp.AddTool(rig.server, &mcp.Tool{Name: "token-error", Description: "fails, quoting the bearer token"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return nil, nil, fmt.Errorf("the token %s is not allowed here", bearer(req))
		})
	rig.server.AddTool(&mcp.Tool{Name: "token-fault", Description: "a protocol error quoting the bearer token",
		InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, fmt.Errorf("refused bearer %s", bearer(req))
		})
}

// bearer is the token a tool call came with ("" if none).
func bearer(req *mcp.CallToolRequest) string {
	if req.Extra == nil || req.Extra.Header == nil {
		return ""
	}
	return strings.TrimPrefix(req.Extra.Header.Get("Authorization"), "Bearer ")
}

// register is the registration endpoint: a POST of client metadata with
// loopback redirect URIs and the authorization code grant.
func (rig *OAuthRig) register(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !rig.DCR.Load() {
		http.Error(w, "no registration", http.StatusNotFound)
		return
	}
	var md struct {
		RedirectURIs []string `json:"redirect_uris"`
		GrantTypes   []string `json:"grant_types"`
		ClientName   string   `json:"client_name"`
	}
	if err := json.NewDecoder(r.Body).Decode(&md); err != nil || len(md.RedirectURIs) == 0 {
		http.Error(w, `{"error":"invalid_client_metadata"}`, http.StatusBadRequest)
		return
	}
	for _, u := range md.RedirectURIs {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			http.Error(w, `{"error":"invalid_redirect_uri"}`, http.StatusBadRequest)
			return
		}
	}
	rig.Registered.Add(1)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
	_ = json.NewEncoder(w).Encode(map[string]any{"client_id": rig.AS.ClientID, "client_secret": rig.AS.ClientSecret,
		"token_endpoint_auth_method": "client_secret_post", "redirect_uris": md.RedirectURIs,
		"grant_types": md.GrantTypes, "client_name": md.ClientName})
}

// checkCIMD fetches the client ID metadata document at id and checks it
// against the authorization request's redirect.
func (rig *OAuthRig) checkCIMD(id, redirect string) error {
	if rig.CIMDClient == nil {
		return fmt.Errorf("the rig has no client to fetch %s", id)
	}
	rig.CIMDFetched.Add(1)
	resp, err := rig.CIMDClient.Get(id)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("the document answered HTTP %d", resp.StatusCode)
	}
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 5<<10)).Decode(&doc); err != nil {
		return fmt.Errorf("the document is not JSON: %v", err)
	}
	if doc.ClientID != id {
		return fmt.Errorf("the document's client_id %q is not its address", doc.ClientID)
	}
	if doc.AuthMethod != "none" {
		return fmt.Errorf("token_endpoint_auth_method %q: a document's client has no secret", doc.AuthMethod)
	}
	got, err := url.Parse(redirect)
	if err != nil {
		return err
	}
	for _, ru := range doc.RedirectURIs {
		u, err := url.Parse(ru)
		if err != nil {
			continue
		}
		loopback := u.Hostname() == "127.0.0.1" || u.Hostname() == "::1"
		if u.Scheme == got.Scheme && u.Hostname() == got.Hostname() && u.Path == got.Path && (loopback || u.Port() == got.Port()) {
			rig.mu.Lock()
			if rig.cimdOK == nil {
				rig.cimdOK = map[string]bool{}
			}
			rig.cimdOK[id] = true
			rig.mu.Unlock()
			return nil
		}
	}
	return fmt.Errorf("redirect_uri %s is not among the document's %v", redirect, doc.RedirectURIs)
}

// revoke is the revocation endpoint (RFC 7009): a POST of the token, by
// the client it was issued to (HTTP Basic or client_id and client_secret
// in the form, mockoidc's one confidential client).
func (rig *OAuthRig) revoke(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !rig.Revocation.Load() {
		http.Error(w, "no revocation", http.StatusNotFound)
		return
	}
	if err := r.ParseForm(); err != nil || r.PostForm.Get("token") == "" {
		http.Error(w, `{"error":"invalid_request"}`, http.StatusBadRequest)
		return
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		id, _ = url.QueryUnescape(id)
		secret, _ = url.QueryUnescape(secret)
	} else {
		id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
	}
	if id != rig.AS.ClientID || secret != rig.AS.ClientSecret {
		http.Error(w, `{"error":"invalid_client"}`, http.StatusUnauthorized)
		return
	}
	rig.mu.Lock()
	if rig.revoked == nil {
		rig.revoked = map[string]bool{}
	}
	rig.revoked[r.PostForm.Get("token")] = true
	rig.mu.Unlock()
	rig.Revoked.Add(1)
	w.WriteHeader(http.StatusOK)
}

// valid asks the authorization server whether the bearer token is good.
func (rig *OAuthRig) valid(authz string) bool {
	if !strings.HasPrefix(authz, "Bearer ") || rig.IsRevoked(strings.TrimPrefix(authz, "Bearer ")) {
		return false
	}
	req, _ := http.NewRequest(http.MethodGet, rig.AS.UserinfoEndpoint(), nil)
	req.Header.Set("Authorization", authz)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Browse is the scripted browser: it opens the authorization page and
// follows the redirects back to the host's loopback listener; tamper, if
// set, changes the query of that last redirect.
func Browse(t testing.TB, page string, tamper func(url.Values)) {
	t.Helper()
	c := &http.Client{Timeout: time.Minute, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if req.URL.Path == "/callback" && tamper != nil {
			q := req.URL.Query()
			tamper(q)
			req.URL.RawQuery = q.Encode()
		}
		return nil
	}}
	resp, err := c.Get(page)
	if err != nil {
		t.Fatalf("the browser: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("the browser ended on HTTP %d: %s", resp.StatusCode, body)
	}
}
