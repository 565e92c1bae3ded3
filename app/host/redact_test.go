//go:build linux

package host

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestRemoteTokensRedacted: a remote server signed in with OAuth that
// echoes its bearer token (the rig's EchoTokens: in a result, a tool
// error, a JSON-RPC error) shows it as "[secret oauth.o access token]" in
// what the host shows a person: a servers.call's result and error, and
// the activity log's previews. Every use renews the rig's short-lived
// token, so each call echoes a token minted by a renewal after the
// sign-in: the renewed token is redacted too. An AI app's call through
// the gateway gets the server's answer as it is (docs/decisions.md): that
// is also how the test knows the server really echoes the token.
func TestRemoteTokensRedacted(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	rig.EchoTokens()
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("o-client", secrets.New(rig.AS.ClientSecret)); err != nil {
		t.Fatal(err)
	}
	setGatewayPath(t, "lean")
	th := runHostWith(t, store, map[string]any{"o": map[string]any{"url": rig.MCPURL,
		"oauth": map[string]any{"clientId": rig.AS.ClientID, "clientSecret": "${keyring:o-client}"}}},
		func(o *Options) { o.StateDir = filepath.Join(filepath.Dir(o.RuntimeDir), "state") })
	th.waitServer(t, "o", "sign-in needed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSignInNeeded })
	var login hostapi.LoginResult
	th.must(t, hostapi.MethodServersLogin.Name, hostapi.NameParams{Name: "o"}, &login)
	remotetest.Browse(t, login.URL, nil)
	th.waitServer(t, "o", "running", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.Tools == 4 })
	// The authorization server's clock moves on: the tokens it mints
	// from now on differ from every token of the sign-in (mockoidc's
	// tokens are the same within a second of its clock), and every use
	// renews the short-lived token, so what the server echoes below was
	// made by a renewal, never seen by the sign-in or the connection.
	before := rig.Issued()
	rig.AS.FastForward(time.Minute)

	// The app's view: the server really echoes the token it got.
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	got := gwText(gwCall(t, cs, "o__token", map[string]any{}))
	tok, ok := strings.CutPrefix(got, "your token is ")
	if !ok || tok == "" || !slices.Contains(rig.Issued(), tok) {
		t.Fatalf("o__token through the gateway = %q: not a token the authorization server issued", got)
	}
	if slices.Contains(before, tok) {
		t.Fatal("the echoed token is one of the sign-in's: the test would not see a renewal's")
	}

	// A person's view: servers.call ('switchboard call', Try it).
	call := func(tool string) (*mcp.CallToolResult, error) {
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		var res mcp.CallToolResult
		err := th.c.Call(ctx, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "o", Tool: tool}, &res)
		return &res, err
	}
	leaks := func(what, s string) {
		t.Helper()
		for _, tok := range rig.Issued() {
			if strings.Contains(s, tok) {
				t.Errorf("%s shows a token the authorization server issued: %q", what, s)
				return
			}
		}
		if !strings.Contains(s, "[secret oauth.o access token]") {
			t.Errorf("%s = %q, want the token shown as [secret oauth.o access token]", what, s)
		}
	}
	res, err := call("token")
	if err != nil {
		t.Fatal(err)
	}
	leaks("servers.call's result", gwText(res))
	res, err = call("token-error")
	if err != nil || !res.IsError {
		t.Fatalf("token-error: %v, %+v; want a tool error", err, res)
	}
	leaks("servers.call's tool error", gwText(res))
	if _, err := call("token-fault"); err == nil {
		t.Error("token-fault: no error")
	} else {
		leaks("servers.call's JSON-RPC error", err.Error())
	}

	// The activity log: an app's call whose arguments hold the token (an
	// app that pasted it).
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "o__token-fault", Arguments: map[string]any{"note": tok}}); err == nil {
		t.Error("o__token-fault through the gateway: no error")
	}
	var rec hostapi.ActivityRecord
	testkit.Eventually(t, "the call's record", func() bool {
		var q hostapi.ActivityQueryResult
		th.must(t, hostapi.MethodActivityQuery.Name, hostapi.ActivityQueryParams{Server: "o"}, &q)
		for _, r := range q.Records {
			if r.Target == "token-fault" && strings.Contains(r.Preview, "note") {
				rec = r
				return true
			}
		}
		return false
	})
	leaks("the activity record's preview", rec.Preview)
}
