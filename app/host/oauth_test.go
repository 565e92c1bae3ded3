//go:build linux

package host

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestOAuthSignIn: a remote server behind an OAuth authorization server
// needs a sign-in; servers.login gives the page, the browser's return
// completes it; the tokens are in the keyring and in no file or log; the
// tools work through the gateway; tokens near their expiry are renewed
// (and saved); a refused renewal is "sign-in needed"; a wrong iss in the
// browser's return is refused; a forged return (a wrong state) is answered
// 400 and ignored, and the sign-in it came into completes; logout deletes
// the tokens.
func TestOAuthSignIn(t *testing.T) {
	old := refreshEarly
	refreshEarly = time.Minute
	t.Cleanup(func() { refreshEarly = old })
	rig := remotetest.NewOAuthRig(t)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("o-client", secrets.New(rig.AS.ClientSecret)); err != nil {
		t.Fatal(err)
	}
	setGatewayPath(t, "lean")
	// maxReconnects 1: a server that waits for a sign-in is not retried,
	// so it never uses up its attempts and fails.
	th := runHost(t, store, map[string]any{"o": map[string]any{"url": rig.MCPURL, "maxReconnects": 1,
		"oauth": map[string]any{"clientId": rig.AS.ClientID, "clientSecret": "${keyring:o-client}"}}})
	th.waitServer(t, "o", "sign-in needed", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateSignInNeeded && strings.Contains(s.LastError, "servers login o")
	})
	// Never retried on a timer while it waits: the supervisor's
	// TestWaitingForUser runs an hour of a synctest bubble's clock.
	if st := th.statusOf(t, "o"); st.State != hostapi.StateSignInNeeded || st.Failures != 0 || st.Restarts != 0 {
		t.Errorf("a server waiting for a sign-in: %s, %d failures, %d restarts; want it waiting, never retried", st.State, st.Failures, st.Restarts)
	}
	// What it needs is said as data, with the remedy a front end offers.
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	c, err := client.Dial(ctx, th.opts.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	he := hostErr(t, func() error { _, err := c.Call(ctx, "o", "whoami", nil); return err }(), hostapi.CodeNotRunning)
	if r := he.Remedies(); len(r) != 1 || r[0].Kind != hostapi.RemedySignIn || r[0].Server != "o" ||
		he.Message != `server "o" needs a sign-in (not signed in): sign in with 'switchboard servers login o'` {
		t.Errorf("a call to a server waiting for a sign-in: %v, remedies %+v", he, r)
	}

	login := func() string {
		t.Helper()
		var res hostapi.LoginResult
		th.must(t, hostapi.MethodServersLogin.Name, hostapi.NameParams{Name: "o"}, &res)
		u, err := url.Parse(res.URL)
		if err != nil || !strings.HasPrefix(res.URL, rig.AS.AuthorizationEndpoint()) {
			t.Fatalf("login URL %q: not the authorization endpoint %s", res.URL, rig.AS.AuthorizationEndpoint())
		}
		q := u.Query()
		if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") != rig.MCPURL || q.Get("state") == "" ||
			!strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") {
			t.Errorf("the authorization request lacks PKCE S256, the resource, the state or a loopback redirect: %s", res.URL)
		}
		return res.URL
	}

	// A wrong iss in the browser's return is refused.
	for _, bad := range []struct {
		what   string
		tamper func(url.Values)
		says   string
	}{
		{"iss", func(q url.Values) { q.Set("iss", "http://127.0.0.1:1/evil") }, "issuer"},
	} {
		page := login()
		// The sign-in waits for the browser: only its end can make the
		// server "sign-in needed" again below.
		th.waitServer(t, "o", "signing in ("+bad.what+")", func(s hostapi.ServerStatus) bool {
			return s.State == hostapi.StateSigningIn
		})
		remotetest.Browse(t, page, bad.tamper)
		// The refusal's reason stays (the server is not retried, which
		// would overwrite it); what proves the refusal is below: no
		// tokens, and no code exchanged.
		th.waitServer(t, "o", "sign-in refused ("+bad.what+")", func(s hostapi.ServerStatus) bool {
			return s.State == hostapi.StateSignInNeeded && strings.Contains(s.LastError, bad.says)
		})
		if n := rig.CodeSeen.Load(); n != 0 {
			t.Fatalf("a return with a bad %s was exchanged for tokens", bad.what)
		}
		if _, err := store.Get(OAuthSecret("o")); err == nil {
			t.Fatalf("a sign-in with a bad %s stored tokens", bad.what)
		}
	}
	if n := rig.CodeSeen.Load(); n != 0 {
		t.Errorf("a refused return was exchanged for tokens %d times", n)
	}

	// The real sign-in, after forged returns: any local user can send a
	// request to the loopback listener, and one whose state is not the
	// sign-in's (wrong, missing; a code or an error) is answered 400 and
	// ignored. The sign-in goes on, and the browser's return completes it.
	page := login()
	th.waitServer(t, "o", "signing in", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSigningIn })
	pu, err := url.Parse(page)
	if err != nil {
		t.Fatal(err)
	}
	callback := pu.Query().Get("redirect_uri")
	for _, forged := range []string{"code=forged&state=wrong", "error=access_denied&state=wrong", "code=forged",
		"code=forged&state=" + url.QueryEscape(pu.Query().Get("state")+"x")} {
		resp, err := http.Get(callback + "?" + forged)
		if err != nil {
			t.Fatalf("a forged return (%s): %v", forged, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "state did not match") {
			t.Errorf("a forged return (%s): HTTP %d %q; want 400 saying the state did not match", forged, resp.StatusCode, body)
		}
		if st := th.statusOf(t, "o"); st.State != hostapi.StateSigningIn {
			t.Errorf("after a forged return (%s) the server is %s (%s), want still signing in", forged, st.State, st.LastError)
		}
	}
	if n := rig.CodeSeen.Load(); n != 0 {
		t.Errorf("a forged return was exchanged for tokens %d times", n)
	}
	remotetest.Browse(t, page, nil)
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
	if rig.Refresh.Load() == 0 {
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
	secretsOf := []string{rec.AccessToken, rec.RefreshToken, rec2.AccessToken, rec2.RefreshToken, rig.AS.ClientSecret}
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
	rig.AS.FastForward(2 * time.Hour)
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "o__whoami", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Errorf("a call with a refused renewal succeeded: %q", gwText(res))
	}
	th.waitServer(t, "o", "sign-in needed after a refused renewal", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateSignInNeeded && strings.Contains(s.LastError, "refused to renew")
	})
	// Every renewal named the resource (RFC 8707), as the authorization
	// request did.
	for i, r := range rig.RefreshResources() {
		if r != rig.MCPURL {
			t.Errorf("renewal %d named the resource %q, want %q", i+1, r, rig.MCPURL)
		}
	}
	// The refusal is kept with the tokens: the server waits for a sign-in
	// and asks the authorization server no more.
	refreshes := rig.Refresh.Load()
	time.Sleep(500 * time.Millisecond)
	if n := rig.Refresh.Load(); n != refreshes {
		t.Errorf("a refused renewal was asked again %d times while the server waits for a sign-in", n-refreshes)
	}
	if st := th.statusOf(t, "o"); st.State != hostapi.StateSignInNeeded {
		t.Errorf("after a refused renewal the server is %s, want sign-in needed", st.State)
	}
	v3, _ := store.Get(OAuthSecret("o"))
	var rec3 tokenRecord
	if err := json.Unmarshal([]byte(v3.Reveal()), &rec3); err != nil || rec3.Refused == "" || rec3.Resource != rig.MCPURL {
		t.Errorf("the keyring record after a refused renewal: refused %q, resource %q (%v)", rec3.Refused, rec3.Resource, err)
	}

	// Logout deletes the tokens.
	var out hostapi.LogoutResult
	th.must(t, hostapi.MethodServersLogout.Name, hostapi.NameParams{Name: "o"}, &out)
	if _, err := store.Get(OAuthSecret("o")); err == nil {
		t.Error("the tokens are still in the keyring after the logout")
	}
	if out.Revoked {
		t.Error("revoked: the authorization server has no revocation endpoint")
	}
}

// TestOAuthDynamicRegistration: an entry with "oauth": {} registers the
// host as a client (RFC 7591) with its loopback redirect, signs in with
// that client, keeps the registered client's secret with the tokens in
// the keyring, and renews the tokens with it.
func TestOAuthDynamicRegistration(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	rig.DCR.Store(true)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{"d": map[string]any{"url": rig.MCPURL, "oauth": map[string]any{}}})
	th.waitServer(t, "d", "sign-in needed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSignInNeeded })
	var res hostapi.LoginResult
	th.must(t, hostapi.MethodServersLogin.Name, hostapi.NameParams{Name: "d"}, &res)
	remotetest.Browse(t, res.URL, nil)
	th.waitServer(t, "d", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 1 })
	if n := rig.Registered.Load(); n != 1 {
		t.Errorf("%d registrations, want 1", n)
	}
	v, err := store.Get(OAuthSecret("d"))
	if err != nil {
		t.Fatal(err)
	}
	var rec tokenRecord
	if err := json.Unmarshal([]byte(v.Reveal()), &rec); err != nil || rec.ClientID != rig.AS.ClientID || rec.ClientSecret != rig.AS.ClientSecret {
		t.Fatalf("the keyring record does not hold the registered client (%v): id %q", err, rec.ClientID)
	}
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	before := rig.Refresh.Load()
	if got := gwText(gwCall(t, cs, "d__whoami", map[string]any{})); got != "signed in" {
		t.Errorf("d__whoami = %q", got)
	}
	if rig.Refresh.Load() == before {
		t.Error("no renewal with the registered client")
	}

	// Logout revokes the refresh token where the authorization server
	// names a revocation endpoint (read from its metadata at the sign-in:
	// the rig names one from now on, so sign in again), then deletes it.
	rig.Revocation.Store(true)
	th.must(t, hostapi.MethodServersLogin.Name, hostapi.NameParams{Name: "d"}, &res)
	remotetest.Browse(t, res.URL, nil)
	testkit.Eventually(t, "the second sign-in's record", func() bool {
		v, err := store.Get(OAuthSecret("d"))
		var r2 tokenRecord
		return err == nil && json.Unmarshal([]byte(v.Reveal()), &r2) == nil && r2.RevocationURL != "" && r2.RefreshToken != rec.RefreshToken
	})
	th.waitServer(t, "d", "running again", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning })
	v, _ = store.Get(OAuthSecret("d"))
	var rec2 tokenRecord
	_ = json.Unmarshal([]byte(v.Reveal()), &rec2)
	var out hostapi.LogoutResult
	th.must(t, hostapi.MethodServersLogout.Name, hostapi.NameParams{Name: "d"}, &out)
	if !out.Revoked || rig.Revoked.Load() != 1 || !rig.IsRevoked(rec2.RefreshToken) {
		t.Errorf("logout: revoked %v, %d revocations, the refresh token revoked %v", out.Revoked, rig.Revoked.Load(), rig.IsRevoked(rec2.RefreshToken))
	}
	if _, err := store.Get(OAuthSecret("d")); err == nil {
		t.Error("the tokens are still in the keyring after the logout")
	}
	th.waitServer(t, "d", "sign-in needed after the logout", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSignInNeeded })
}

// TestOAuthClientMetadataDocument: an entry with "clientMetadataUrl"
// signs in with that address as its client ID where the authorization
// server takes client ID metadata documents (the server fetches the
// document Switchboard writes, clientMetadataDocument, and checks the
// loopback redirect against it), registering nothing although it could;
// the tokens renew as that public client. Where the server does not take
// documents, the same entry falls back to dynamic registration.
func TestOAuthClientMetadataDocument(t *testing.T) {
	docs := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/switchboard/client.json" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(clientMetadataDocument("https://" + r.Host + r.URL.Path))
	}))
	t.Cleanup(docs.Close)
	docURL := docs.URL + "/switchboard/client.json"

	for _, tc := range []struct {
		name string
		cimd bool
	}{{"document", true}, {"registration fallback", false}} {
		t.Run(tc.name, func(t *testing.T) {
			rig := remotetest.NewOAuthRig(t)
			rig.DCR.Store(true)
			rig.CIMD.Store(tc.cimd)
			rig.CIMDClient = docs.Client()
			store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
			setGatewayPath(t, "lean")
			th := runHost(t, store, map[string]any{"m": map[string]any{"url": rig.MCPURL, "oauth": map[string]any{"clientMetadataUrl": docURL}}})
			th.waitServer(t, "m", "sign-in needed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSignInNeeded })
			var res hostapi.LoginResult
			th.must(t, hostapi.MethodServersLogin.Name, hostapi.NameParams{Name: "m"}, &res)
			u, err := url.Parse(res.URL)
			if err != nil {
				t.Fatal(err)
			}
			remotetest.Browse(t, res.URL, nil)
			th.waitServer(t, "m", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 1 })
			v, err := store.Get(OAuthSecret("m"))
			if err != nil {
				t.Fatal(err)
			}
			var rec tokenRecord
			if err := json.Unmarshal([]byte(v.Reveal()), &rec); err != nil {
				t.Fatal(err)
			}
			if tc.cimd {
				if id := u.Query().Get("client_id"); id != docURL {
					t.Errorf("the authorization request's client_id is %q, want the document's address", id)
				}
				if rig.CIMDFetched.Load() == 0 || rig.Registered.Load() != 0 {
					t.Errorf("document fetched %d times, %d registrations; want it fetched and nothing registered", rig.CIMDFetched.Load(), rig.Registered.Load())
				}
				if rec.ClientID != docURL || rec.ClientSecret != "" {
					t.Errorf("the keyring record's client: %q (secret %v), want the document's address and no secret", rec.ClientID, rec.ClientSecret != "")
				}
			} else if rig.CIMDFetched.Load() != 0 || rig.Registered.Load() != 1 || rec.ClientID != rig.AS.ClientID {
				t.Errorf("fallback: document fetched %d times, %d registrations, client %q; want a registration", rig.CIMDFetched.Load(), rig.Registered.Load(), rec.ClientID)
			}
			cs := gwClient(t, th, gateway.Filter{}, "", nil)
			before := rig.Refresh.Load()
			if got := gwText(gwCall(t, cs, "m__whoami", map[string]any{})); got != "signed in" {
				t.Errorf("m__whoami = %q", got)
			}
			if rig.Refresh.Load() == before {
				t.Error("no renewal with the client")
			}
		})
	}
}

// TestClientMetadataDocument: the document names its own address as the
// client ID, a public client, and the loopback redirect the host listens
// on.
func TestClientMetadataDocument(t *testing.T) {
	var doc struct {
		ClientID     string   `json:"client_id"`
		RedirectURIs []string `json:"redirect_uris"`
		GrantTypes   []string `json:"grant_types"`
		AuthMethod   string   `json:"token_endpoint_auth_method"`
	}
	if err := json.Unmarshal(clientMetadataDocument("https://sb.example/c.json"), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.ClientID != "https://sb.example/c.json" || doc.AuthMethod != "none" ||
		!slices.Equal(doc.RedirectURIs, []string{"http://127.0.0.1/callback"}) || !slices.Contains(doc.GrantTypes, "refresh_token") {
		t.Errorf("document: %+v", doc)
	}
}

// TestSignInRecordRefused: the host's sign-in record, as stored, is what
// config.SignInRefused (doctor's reading of it) reads: the refusal's
// reason, and "" for a record that was not refused.
func TestSignInRecordRefused(t *testing.T) {
	for _, want := range []string{"invalid_grant: the refresh token was revoked", ""} {
		b, err := json.Marshal(tokenRecord{AccessToken: "a", RefreshToken: "r", ClientID: "c", TokenURL: "https://as.example/token", Refused: want})
		if err != nil {
			t.Fatal(err)
		}
		got, err := config.SignInRefused(string(b))
		if err != nil || got != want {
			t.Errorf("refused read back as %q (%v), want %q", got, err, want)
		}
	}
	if _, err := config.SignInRefused("not json"); err == nil {
		t.Error("a value that is no record is read without an error")
	}
}

// clientMetadataDocument is the client ID metadata document docs/remote.md
// tells an operator to serve: Switchboard's
// (draft-ietf-oauth-client-id-metadata-document, which the MCP
// authorization spec prefers to dynamic registration) for the address it
// is served from, clientID: an entry's "oauth.clientMetadataUrl". The
// client is public (PKCE, no secret), and its redirect is the host's
// loopback listener, whose port is chosen at each sign-in: a loopback
// redirect's port is not compared (RFC 8252 section 7.3).
func clientMetadataDocument(clientID string) []byte {
	b, _ := json.MarshalIndent(map[string]any{
		"client_id":                  clientID,
		"client_name":                "Switchboard",
		"client_uri":                 "https://github.com/switchboard-mcp/switchboard",
		"redirect_uris":              []string{"http://127.0.0.1/callback"},
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	}, "", "  ")
	return append(b, '\n')
}

// TestSignInAsked (issue 27 §6): a remote entry with no sign-in and no
// credentials (an imported `npx mcp-remote URL`, which signed in by itself
// in the app) whose server answers 401 with an OAuth challenge is not said
// to have "refused the credentials": none were sent. It is "sign-in
// needed", with the one command that signs in, and waits (not retried);
// servers.login adds "oauth": {} to its entry and signs in (dynamic
// registration), after which it runs.
func TestSignInAsked(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	rig.DCR.Store(true)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{"i": map[string]any{"url": rig.MCPURL, "maxReconnects": 1}})
	st := th.waitServer(t, "i", "sign-in needed", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateSignInNeeded && strings.Contains(s.LastError, "this server asks for a sign-in") &&
			strings.Contains(s.LastError, "'switchboard servers login i'")
	})
	if strings.Contains(st.LastError, "refused the credentials") {
		t.Errorf("no credentials were sent, yet: %s", st.LastError)
	}
	// It waits for the sign-in: with maxReconnects 1, a retried server
	// would have failed by now.
	if st := th.statusOf(t, "i"); st.State != hostapi.StateSignInNeeded {
		t.Errorf("a server that asked for a sign-in: %s (%s)", st.State, st.LastError)
	}

	var res hostapi.LoginResult
	th.must(t, hostapi.MethodServersLogin.Name, hostapi.NameParams{Name: "i"}, &res)
	f, err := config.Load(th.opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Servers["i"]; s == nil || s.OAuth == nil || s.URL != rig.MCPURL {
		t.Fatalf("the entry after servers.login: %+v", s)
	}
	remotetest.Browse(t, res.URL, nil)
	th.waitServer(t, "i", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 1 })
}

// TestSignInIssueWords: the fact of a sign-in a server asked for (a 401
// with an OAuth challenge, issue 27 §6) carries no command line and no
// doubled parentheses, whichever way the error reached the status (the
// attempt's "not signed in: …" or the watch's own words); the message
// keeps the command.
func TestSignInIssueWords(t *testing.T) {
	for _, last := range []string{
		errSignInNeeded.Error() + ": " + signInAsked("i"),
		signInAsked("i"),
	} {
		p := signInIssue("i", last)
		if want := `server "i" asks for a sign-in (it answered HTTP 401 with an OAuth challenge)`; p.Fact != want {
			t.Errorf("from %q the fact is %q, want %q", last, p.Fact, want)
		}
		if !strings.Contains(p.Message, "sign in with 'switchboard servers login i'") || p.Remedy == nil || p.Remedy.Kind != hostapi.RemedySignIn {
			t.Errorf("the message %q or remedy %+v", p.Message, p.Remedy)
		}
	}
	if p := signInIssue("g", "not signed in: run 'switchboard servers login g'"); p.Fact != `server "g" needs a sign-in (not signed in)` {
		t.Errorf("an entry with oauth, never signed in: %q", p.Fact)
	}
}
