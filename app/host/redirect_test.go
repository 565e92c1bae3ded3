//go:build linux

package host

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// recorder is a loopback HTTP server that keeps the headers of every
// request it gets. With to set it redirects every request there (307,
// the path and query kept); without, it serves an MCP server with one
// tool, "landed", to anyone.
type recorder struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newRecorder(t *testing.T, tls bool, to string) *recorder {
	rec := &recorder{}
	s := mcp.NewServer(&mcp.Implementation{Name: "landing", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "landed", Description: "says where it is"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "landed"}}}, nil, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.headers = append(rec.headers, r.Header.Clone())
		rec.mu.Unlock()
		if to != "" {
			http.Redirect(w, r, to+r.URL.RequestURI(), http.StatusTemporaryRedirect)
			return
		}
		h.ServeHTTP(w, r)
	})
	if tls {
		rec.Server = httptest.NewTLSServer(handler)
	} else {
		rec.Server = httptest.NewServer(handler)
	}
	t.Cleanup(rec.Close)
	return rec
}

// saw returns the requests' header values that hold one of values, as
// "Name: value" lines, and how many requests there were.
func (rec *recorder) saw(values ...string) (found []string, requests int) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, h := range rec.headers {
		for name, vs := range h {
			for _, v := range vs {
				for _, s := range values {
					if s != "" && strings.Contains(v, s) {
						found = append(found, name+": "+v)
					}
				}
			}
		}
	}
	return found, len(rec.headers)
}

// TestRemoteRedirectKeepsCredentials: a remote server whose address
// redirects (307) to another origin (another port of the same host) is
// followed there, but the entry's headers (a bearer token and an API key
// from the keyring) and its OAuth token are sent to the entry's origin
// only; a redirect from https to http is refused, and the status names the
// server, both origins and the remedy. net/http alone sends a custom
// header to any origin and Authorization to another port of the same host.
func TestRemoteRedirectKeepsCredentials(t *testing.T) {
	const token, key = "s3cret-redirect-token", "s3cret-api-key-value"
	land := newRecorder(t, false, "")
	front := newRecorder(t, false, land.URL)
	downLand := newRecorder(t, false, "")
	tlsFront := newRecorder(t, true, downLand.URL)
	// The remote servers' transport trusts the TLS server's certificate
	// (and still speaks plain http to loopback).
	old := remoteBase
	remoteBase = tlsFront.Client().Transport
	t.Cleanup(func() { remoteBase = old })

	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	for n, v := range map[string]string{"r-token": token, "r-key": key} {
		if err := store.Set(n, secrets.New(v)); err != nil {
			t.Fatal(err)
		}
	}
	headers := map[string]string{"Authorization": "Bearer ${keyring:r-token}", "X-API-Key": "${keyring:r-key}"}
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{
		"r": map[string]any{"url": front.URL + "/mcp", "headers": headers},
		"s": map[string]any{"url": tlsFront.URL + "/mcp", "headers": headers, "maxReconnects": 1000},
	})

	// Another origin: followed, without the credentials.
	th.waitServer(t, "r", "running through the redirect", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateRunning && s.Tools == 1
	})
	var res mcp.CallToolResult
	th.must(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "r", Tool: "landed"}, &res)
	for _, v := range []string{token, key} {
		if found, n := front.saw(v); len(found) == 0 {
			t.Errorf("the entry's own origin got %d requests, none with %q; want the credentials there", n, v)
		}
	}
	if found, n := land.saw(token, key); len(found) != 0 || n == 0 {
		t.Errorf("another origin a redirect pointed to got %d requests, with the credentials %q; want some, with none", n, found)
	}

	// https to http: refused, said in the status.
	st := th.waitServer(t, "s", "the downgrade refused", func(s hostapi.ServerStatus) bool {
		return strings.Contains(s.LastError, "was refused")
	})
	t.Logf("the refused downgrade, as status says it: %s", st.LastError)
	for _, want := range []string{`server "s"`, origin(mustURL(t, tlsFront.URL)),
		origin(mustURL(t, downLand.URL)), "fix the server's URL in the config"} {
		if !strings.Contains(st.LastError, want) {
			t.Errorf("the refused downgrade's error %q does not say %q", st.LastError, want)
		}
	}
	if _, n := downLand.saw(); n != 0 {
		t.Errorf("the http server behind a https one's redirect got %d requests", n)
	}
}

func mustURL(t *testing.T, raw string) *url.URL {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TestRemoteRedirectKeepsOAuthToken: a signed-in server whose address
// starts redirecting to another origin is followed there without its
// OAuth access token (nor any token the authorization server issued).
func TestRemoteRedirectKeepsOAuthToken(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	land := newRecorder(t, false, "")
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("o-client", secrets.New(rig.AS.ClientSecret)); err != nil {
		t.Fatal(err)
	}
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{"o": map[string]any{"url": rig.MCPURL,
		"oauth": map[string]any{"clientId": rig.AS.ClientID, "clientSecret": "${keyring:o-client}"}}})
	th.waitServer(t, "o", "sign-in needed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSignInNeeded })
	var login hostapi.LoginResult
	th.must(t, hostapi.MethodServersLogin.Name, hostapi.NameParams{Name: "o"}, &login)
	remotetest.Browse(t, login.URL, nil)
	th.waitServer(t, "o", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 1 })

	to := land.URL + "/mcp"
	rig.RedirectTo.Store(&to)
	th.must(t, hostapi.MethodServersRestart.Name, hostapi.NameParams{Name: "o"}, nil)
	th.waitServer(t, "o", "running through the redirect", func(s hostapi.ServerStatus) bool {
		_, n := land.saw()
		return n > 0 && s.State == hostapi.StateRunning && s.Tools == 1
	})
	var res mcp.CallToolResult
	th.must(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "o", Tool: "landed"}, &res)
	found, n := land.saw(rig.Issued()...)
	if n == 0 {
		t.Fatal("the redirect was not followed: the other origin got no request")
	}
	if len(found) != 0 {
		t.Errorf("another origin a redirect pointed to got the sign-in's tokens: %q", found)
	}
	if found, _ := land.saw("Bearer"); len(found) != 0 {
		t.Errorf("another origin got an Authorization header: %q", found)
	}
}

// TestRedirectPolicy: the CheckRedirect of every HTTP client the host uses
// for a remote server (the sign-in, the renewal, the revocation), with real
// servers on two ports: a GET redirected to another origin loses
// Authorization, the entry's headers and the Referer; a request with a body
// (a code, a refresh token) is not re-sent to another origin; https to http
// is refused with the server, both origins and the remedy; the same origin
// keeps everything.
func TestRedirectPolicy(t *testing.T) {
	land := newRecorder(t, false, "")
	front := newRecorder(t, false, land.URL)
	tlsFront := newRecorder(t, true, land.URL)
	tr := tlsFront.Client().Transport
	c := &http.Client{Transport: tr, CheckRedirect: redirectPolicy("o", nil, []string{"x-api-key"}, true)}

	req, _ := http.NewRequest(http.MethodGet, front.URL+"/.well-known/x?key=k3y-in-query", nil)
	req.Header.Set("Authorization", "Basic Y2xpZW50OnNlY3JldA==")
	req.Header.Set("X-API-Key", "api-key-value")
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if found, n := land.saw("Basic", "api-key-value", "k3y-in-query"); n != 1 || len(found) != 0 {
		t.Errorf("a GET redirected to another origin: %d requests there, with %q; want one, without the credentials", n, found)
	}

	// A body (a token request) is never re-sent to another origin.
	resp, err = c.Post(front.URL+"/token", "application/x-www-form-urlencoded", strings.NewReader("grant_type=refresh_token&refresh_token=r3fresh"))
	var be *crossOriginBodyError
	if err == nil {
		resp.Body.Close()
	}
	if !errors.As(err, &be) || !strings.Contains(err.Error(), origin(mustURL(t, front.URL))) || !strings.Contains(err.Error(), origin(mustURL(t, land.URL))) {
		t.Errorf("a POST redirected to another origin: %v; want it refused naming both origins", err)
	}
	if _, n := land.saw(); n != 1 {
		t.Errorf("the other origin got %d requests, want still 1", n)
	}

	// https to http: refused.
	resp, err = c.Get(tlsFront.URL + "/mcp")
	if err == nil {
		resp.Body.Close()
	}
	var de *downgradeError
	if !errors.As(err, &de) {
		t.Fatalf("a redirect from https to http: %v; want it refused", err)
	}
	for _, want := range []string{`server "o"`, origin(mustURL(t, tlsFront.URL)), origin(mustURL(t, land.URL)), "fix the server's URL in the config"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	if _, n := land.saw(); n != 1 {
		t.Errorf("the http server behind the https one got %d requests, want still 1", n)
	}

	// The same origin (a path moved) keeps the credentials.
	sameFront := newRecorder(t, false, "")
	sameFront.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusFound)
			return
		}
		sameFront.mu.Lock()
		sameFront.headers = append(sameFront.headers, r.Header.Clone())
		sameFront.mu.Unlock()
	})
	req, _ = http.NewRequest(http.MethodGet, sameFront.URL+"/old", nil)
	req.Header.Set("X-API-Key", "api-key-value")
	if resp, err = c.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if found, _ := sameFront.saw("api-key-value"); len(found) != 1 {
		t.Errorf("a redirect within the origin lost the entry's header: %q", found)
	}
}

// TestOrigin: scheme, host and port, default ports explicit, case folded.
func TestOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://Example.com/mcp":      "https://example.com:443",
		"https://example.com:443/x":    "https://example.com:443",
		"http://example.com/":          "http://example.com:80",
		"HTTP://127.0.0.1:8080/mcp?x":  "http://127.0.0.1:8080",
		"http://[::1]:9/":              "http://[::1]:9",
		"https://example.com:8443/mcp": "https://example.com:8443",
	} {
		if got := originOf(in); got != want {
			t.Errorf("originOf(%q) = %q, want %q", in, got, want)
		}
	}
}
