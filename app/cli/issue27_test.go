package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestSecretListCountsEveryReference: a secret is used by a server that
// names it in env, in a header, as oauth.clientSecret, or that signed in
// (oauth.NAME); `secret list` says so, and `secret rm` warns, for each.
func TestSecretListCountsEveryReference(t *testing.T) {
	u := newUnit(t)
	if err := os.MkdirAll(filepath.Dir(u.configPath()), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := `{"mcpServers": {
	  "local": {"command": "x", "env": {"TOKEN": "${keyring:env-tok}"}},
	  "hdr": {"url": "https://h.example/mcp", "headers": {"Authorization": "Bearer ${keyring:hdr-tok}"}},
	  "app": {"url": "https://o.example/mcp", "oauth": {"clientId": "c", "clientSecret": "${keyring:client-sec}"}}
	}}`
	if err := os.WriteFile(u.configPath(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"env-tok", "hdr-tok", "client-sec", "oauth.app", "stray"} {
		if err := u.store.Set(n, secrets.New("v")); err != nil {
			t.Fatal(err)
		}
	}
	out := u.ok(t, "", "secret", "list")
	for _, want := range []string{"env-tok\tused by local", "hdr-tok\tused by hdr", "client-sec\tused by app", "oauth.app\tused by app", "stray\tunused"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("secret list lacks %q:\n%s", want, out)
		}
	}
	out = u.ok(t, "", "secret", "rm", "hdr-tok")
	if !strings.Contains(out, "note: hdr uses it") {
		t.Errorf("secret rm of a header's secret did not warn:\n%s", out)
	}
}
