//go:build linux

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oauth2-proxy/mockoidc"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// oauthRig is a go-sdk Streamable HTTP MCP server protected by a real
// authorization server (mockoidc: OIDC discovery with PKCE S256, the
// authorization code and refresh grants, a confidential client): it
// answers 401 with a WWW-Authenticate challenge that names its protected
// resource metadata, and lets in requests whose bearer token the
// authorization server's userinfo endpoint accepts.
type oauthRig struct {
	as       *mockoidc.MockOIDC
	mcpURL   string
	refresh  atomic.Int32 // refresh grants the authorization server got
	codeSeen atomic.Int32 // authorization code grants
}

func newOAuthRig(t *testing.T) *oauthRig {
	t.Helper()
	rig := &oauthRig{}
	as, err := mockoidc.NewServer(nil)
	if err != nil {
		t.Fatal(err)
	}
	as.AccessTTL = 30 * time.Second // below refreshEarly: every use renews it
	as.RefreshTTL = time.Hour
	if err := as.AddMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != mockoidc.TokenEndpoint {
				next.ServeHTTP(w, r)
				return
			}
			_ = r.ParseForm()
			switch r.Form.Get("grant_type") {
			case "refresh_token":
				rig.refresh.Add(1)
			case "authorization_code":
				rig.codeSeen.Add(1)
			}
			// mockoidc writes expires_in in nanoseconds (a Go Duration);
			// RFC 6749 says seconds: put it right, so that the client
			// sees the token's real lifetime.
			rec := httptest.NewRecorder()
			next.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			var m map[string]any
			if json.Unmarshal(body, &m) == nil {
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
	rig.as = as

	ml, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ml.Addr().String()
	rig.mcpURL = base + "/mcp"
	prm := base + "/.well-known/oauth-protected-resource/mcp"
	s := mcp.NewServer(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "says who signed in"},
		func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "signed in"}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/oauth-protected-resource/mcp" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": rig.mcpURL,
				"authorization_servers": []string{as.Issuer()}, "scopes_supported": []string{"openid", "email"}})
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

// valid asks the authorization server whether the bearer token is good.
func (rig *oauthRig) valid(authz string) bool {
	if !strings.HasPrefix(authz, "Bearer ") {
		return false
	}
	req, _ := http.NewRequest(http.MethodGet, rig.as.UserinfoEndpoint(), nil)
	req.Header.Set("Authorization", authz)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// browse is the scripted browser: it opens the authorization page and
// follows the redirects back to the host's loopback listener; tamper, if
// set, changes the query of that last redirect.
func browse(t *testing.T, page string, tamper func(url.Values)) {
	t.Helper()
	c := &http.Client{Timeout: wait, CheckRedirect: func(req *http.Request, via []*http.Request) error {
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

// TestOAuthSignIn: a remote server behind an OAuth authorization server
// needs a sign-in; servers.login gives the page, the browser's return
// completes it; the tokens are in the keyring and in no file or log; the
// tools work through the gateway; tokens near their expiry are renewed
// (and saved); a refused renewal is "sign-in needed"; a mismatched state
// or a wrong iss in the browser's return is refused; logout deletes the
// tokens.
func TestOAuthSignIn(t *testing.T) {
	old := refreshEarly
	refreshEarly = time.Minute
	t.Cleanup(func() { refreshEarly = old })
	rig := newOAuthRig(t)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("o-client", secrets.New(rig.as.ClientSecret)); err != nil {
		t.Fatal(err)
	}
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{"o": map[string]any{"url": rig.mcpURL, "maxReconnects": 1000,
		"oauth": map[string]any{"clientId": rig.as.ClientID, "clientSecret": "${keyring:o-client}"}}})
	th.waitServer(t, "o", "sign-in needed", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateSignInNeeded && strings.Contains(s.LastError, "servers login o")
	})

	login := func() string {
		t.Helper()
		var res hostapi.LoginResult
		th.must(t, hostapi.MethodLogin, hostapi.NameParams{Name: "o"}, &res)
		u, err := url.Parse(res.URL)
		if err != nil || !strings.HasPrefix(res.URL, rig.as.AuthorizationEndpoint()) {
			t.Fatalf("login URL %q: not the authorization endpoint %s", res.URL, rig.as.AuthorizationEndpoint())
		}
		q := u.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") != rig.mcpURL || q.Get("state") == "" ||
			!strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") {
			t.Errorf("the authorization request lacks PKCE S256, the resource, the state or a loopback redirect: %s", res.URL)
		}
		return res.URL
	}

	// A mismatched state and a wrong iss are refused.
	for _, bad := range []struct {
		what   string
		tamper func(url.Values)
		says   string
	}{
		{"state", func(q url.Values) { q.Set("state", "forged") }, "state mismatch"},
		{"iss", func(q url.Values) { q.Set("iss", "http://127.0.0.1:1/evil") }, "issuer"},
	} {
		page := login()
		browse(t, page, bad.tamper)
		th.waitServer(t, "o", "sign-in refused ("+bad.what+")", func(s hostapi.ServerStatus) bool {
			return s.State == hostapi.StateSignInNeeded && strings.Contains(s.LastError, bad.says)
		})
		if _, err := store.Get(OAuthSecret("o")); err == nil {
			t.Fatalf("a sign-in with a bad %s stored tokens", bad.what)
		}
	}
	if n := rig.codeSeen.Load(); n != 0 {
		t.Errorf("a refused return was exchanged for tokens %d times", n)
	}

	// The real sign-in.
	browse(t, login(), nil)
	th.waitServer(t, "o", "running after the sign-in", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 1 })
	v, err := store.Get(OAuthSecret("o"))
	if err != nil {
		t.Fatalf("the tokens are not in the keyring: %v", err)
	}
	var rec tokenRecord
	if err := json.Unmarshal([]byte(v.Reveal()), &rec); err != nil || rec.AccessToken == "" || rec.RefreshToken == "" {
		t.Fatalf("keyring record: %v %+v", err, rec.ClientID)
	}

	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	if got := gwText(gwCall(t, cs, "o__whoami", map[string]any{})); got != "signed in" {
		t.Errorf("o__whoami = %q", got)
	}
	// Every token expires within refreshEarly: each use renewed it, and
	// the renewed one is in the keyring.
	if rig.refresh.Load() == 0 {
		t.Error("no token was renewed before its expiry")
	}
	v2, _ := store.Get(OAuthSecret("o"))
	var rec2 tokenRecord
	_ = json.Unmarshal([]byte(v2.Reveal()), &rec2)
	if !rec2.Expiry.After(rec.Expiry) && rec2.AccessToken == rec.AccessToken {
		t.Error("the renewed token was not saved to the keyring")
	}

	// No token in any file of the host's directories, nor in its log.
	root := filepath.Dir(filepath.Dir(th.opts.ConfigPath))
	secretsOf := []string{rec.AccessToken, rec.RefreshToken, rec2.AccessToken, rec2.RefreshToken, rig.as.ClientSecret}
	_ = filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() || fi.Mode()&os.ModeType != 0 {
			return nil
		}
		b, _ := os.ReadFile(p)
		for _, s := range secretsOf {
			if s != "" && strings.Contains(string(b), s) {
				t.Errorf("%s holds a token or the client secret", p)
			}
		}
		return nil
	})

	// The refresh token expires: the renewal is refused, sign-in needed.
	rig.as.FastForward(2 * time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "o__whoami", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Errorf("a call with a refused renewal succeeded: %q", gwText(res))
	}
	th.waitServer(t, "o", "sign-in needed after a refused renewal", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateSignInNeeded && strings.Contains(s.LastError, "refused to renew")
	})

	// Logout deletes the tokens.
	var out hostapi.LogoutResult
	th.must(t, hostapi.MethodLogout, hostapi.NameParams{Name: "o"}, &out)
	if _, err := store.Get(OAuthSecret("o")); err == nil {
		t.Error("the tokens are still in the keyring after the logout")
	}
	if out.Revoked {
		t.Error("revoked: the authorization server has no revocation endpoint")
	}
}
