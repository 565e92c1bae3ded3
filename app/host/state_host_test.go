//go:build linux

package host

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestSignInNeededToTheAIApp: a remote server that waits for a sign-in
// is "sign-in needed" to the AI app as in the host's status (not the
// supervisor's raw "waiting for user"), and a call to it says what the
// user does: sign in with 'switchboard servers login'.
func TestSignInNeededToTheAIApp(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("o-client", secrets.New(rig.AS.ClientSecret)); err != nil {
		t.Fatal(err)
	}
	setGatewayPath(t, "lean")
	th := runHost(t, store, map[string]any{"o": map[string]any{"url": rig.MCPURL, "maxReconnects": 1,
		"oauth": map[string]any{"clientId": rig.AS.ClientID, "clientSecret": "${keyring:o-client}"}}})
	th.waitServer(t, "o", "sign-in needed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateSignInNeeded })

	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	res := gwCall(t, cs, "o"+gateway.Separator+"whoami", nil)
	text := gwText(res)
	if !res.IsError || !strings.Contains(text, "needs a sign-in") || !strings.Contains(text, "switchboard servers login o") ||
		strings.Contains(text, "waiting for user") {
		t.Errorf("a call to a server waiting for a sign-in tells the AI app %q (error %v); want it to need a sign-in, with the command", text, res.IsError)
	}
}
