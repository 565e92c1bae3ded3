//go:build linux

package host

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
	"github.com/switchboard-mcp/switchboard/secrets"
)

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
	rig := remotetest.NewOAuthRig(t)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("o-client", secrets.New(rig.AS.ClientSecret)); err != nil {
		t.Fatal(err)
	}
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{"o": map[string]any{"url": rig.MCPURL, "maxReconnects": 1000,
		"oauth": map[string]any{"clientId": rig.AS.ClientID, "clientSecret": "${keyring:o-client}"}}})
	th.waitServer(t, "o", "sign-in needed", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateSignInNeeded && strings.Contains(s.LastError, "servers login o")
	})

	login := func() string {
		t.Helper()
		var res hostapi.LoginResult
		th.must(t, hostapi.MethodLogin, hostapi.NameParams{Name: "o"}, &res)
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
		// The sign-in waits for the browser: only its end can make the
		// server "sign-in needed" again below.
		th.waitServer(t, "o", "signing in ("+bad.what+")", func(s hostapi.ServerStatus) bool {
			return s.State == hostapi.StateSigningIn
		})
		remotetest.Browse(t, page, bad.tamper)
		// The refusal's reason is LastError until the next retry of the
		// server (fast here) overwrites it with "not signed in"; what
		// proves the refusal is below: no tokens, and no code exchanged.
		th.waitServer(t, "o", "sign-in refused ("+bad.what+")", func(s hostapi.ServerStatus) bool {
			return s.State == hostapi.StateSignInNeeded && (strings.Contains(s.LastError, bad.says) || strings.Contains(s.LastError, "not signed in"))
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

	// The real sign-in.
	remotetest.Browse(t, login(), nil)
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
	th.must(t, hostapi.MethodLogin, hostapi.NameParams{Name: "d"}, &res)
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
}
