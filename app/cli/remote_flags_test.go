//go:build linux

package cli

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// TestServersAddRemote: servers add --url writes a remote entry (its
// transport, literal and keyring headers, the OAuth sign-in, tool
// filters), servers set changes its remote fields and keeps the rest, and
// the flags of the other kind of server are refused, naming them, with
// nothing written.
func TestServersAddRemote(t *testing.T) {
	u := newUnit(t)
	out := u.ok(t, "", "servers", "add", "gh", "--url", "https://api.example.com/mcp", "--bearer", "gh-token",
		"--header", "x-team: blue", "--header", "X-Cost: ${not-a-ref}", "--deny-tool", "delete_*")
	if !strings.Contains(out, "added gh") || !strings.Contains(out, `secret "gh-token" is not set yet`) {
		t.Errorf("servers add printed %q", out)
	}
	f := u.load(t, u.configPath())
	s := f.Servers["gh"]
	if s == nil || !s.IsRemote() || s.URL != "https://api.example.com/mcp" || s.Command != "" || len(s.Problems()) != 0 {
		t.Fatalf("gh: %+v, problems %v", s, s.Problems())
	}
	if s.Headers["Authorization"] != "Bearer "+config.KeyringRef("gh-token") || s.Headers["X-Team"] != "blue" || s.Headers["X-Cost"] != "$${not-a-ref}" {
		t.Errorf("headers: %v", s.Headers)
	}

	u.ok(t, "", "servers", "add", "docs", "--url", "http://127.0.0.1:3001/sse", "--transport", "sse",
		"--oauth", "--client-id", "cid", "--client-secret", "docs-client", "--scope", "read", "--scope", "write")
	d := u.load(t, u.configPath()).Servers["docs"]
	if d == nil || d.Type != config.RemoteSSE || d.OAuth == nil || d.OAuth.ClientID != "cid" ||
		d.OAuth.ClientSecret != config.KeyringRef("docs-client") || strings.Join(d.OAuth.Scopes, " ") != "read write" || len(d.Problems()) != 0 {
		t.Fatalf("docs: %+v", d)
	}
	// set: back to http, another scope list; the client ID and the rest stay.
	u.ok(t, "", "servers", "set", "docs", "--transport", "http", "--scope", "admin")
	d = u.load(t, u.configPath()).Servers["docs"]
	if d.Type != config.RemoteHTTP || d.OAuth.ClientID != "cid" || strings.Join(d.OAuth.Scopes, " ") != "admin" || d.URL != "http://127.0.0.1:3001/sse" {
		t.Errorf("docs after set: %+v %+v", d, d.OAuth)
	}
	// http-first, the default: no "type" (Streamable HTTP, then SSE).
	u.ok(t, "", "servers", "set", "docs", "--transport", "http-first")
	if d = u.load(t, u.configPath()).Servers["docs"]; d.Type != "" {
		t.Errorf("docs after --transport http-first: type %q", d.Type)
	}
	// set: one header off, the others kept; then the last ones, and
	// "headers" goes.
	u.ok(t, "", "servers", "set", "gh", "--unset-header", "x-cost")
	if h := u.load(t, u.configPath()).Servers["gh"].Headers; h["X-Cost"] != "" || h["X-Team"] != "blue" || h["Authorization"] == "" {
		t.Errorf("headers after --unset-header x-cost: %v", h)
	}
	u.ok(t, "", "servers", "set", "gh", "--unset-header", "X-Team", "--unset-header", "Authorization")
	if g := u.load(t, u.configPath()).Servers["gh"]; len(g.Headers) != 0 || g.URL == "" {
		t.Errorf("gh after every header unset: %+v", g)
	}
	u.ok(t, "", "servers", "add", "local", "--", "/bin/cat")

	before := u.load(t, u.configPath())
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"servers", "add", "x", "--url", "https://x.example/mcp", "--", "/bin/cat"}, "not both"},
		{[]string{"servers", "add", "x", "--url", "https://x.example/mcp", "--env", "K=V", "--cwd", "/tmp"}, "--env, --cwd: a remote server has no process"},
		{[]string{"servers", "add", "x", "--url", "https://x.example/mcp", "--sandbox", "strict"}, "--sandbox: a remote server has no process"},
		{[]string{"servers", "add", "x", "--url", "https://x.example/mcp", "--header", "no colon"}, `--header "no colon": write it as 'NAME: VALUE'`},
		{[]string{"servers", "add", "x", "--url", "https://x.example/mcp", "--transport", "ws"}, `--transport "ws"`},
		{[]string{"servers", "add", "x", "--url", "https://x.example/mcp", "--bearer", "bad name"}, `--bearer "bad name"`},
		{[]string{"servers", "set", "local", "--oauth"}, "--oauth: only a remote server has them: add one with --url URL"},
		{[]string{"servers", "set", "local", "--url", "https://x.example/mcp"}, "the entry runs a command"},
		{[]string{"servers", "add", "x", "--header", "A: b", "--", "/bin/cat"}, "--header: only a remote server has them"},
		{[]string{"servers", "set", "gh", "--unset-header", "X-None"}, `--unset-header "X-None": the entry sends no such header`},
		{[]string{"servers", "set", "local", "--unset-header", "X-None"}, "--unset-header: only a remote server has them"},
	} {
		r := u.main("", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.says) {
			t.Errorf("switchboard %q: want exit 2 saying %q, got %s", c.args, c.says, r)
		}
	}
	// The config's own checks still apply: http:// to another machine.
	if r := u.main("", "servers", "add", "far", "--url", "http://far.example/mcp"); r.code == 0 || !strings.Contains(r.stdout+r.stderr, "https") {
		t.Errorf("a plain-http remote address: %s", r)
	}
	after := u.load(t, u.configPath())
	if len(after.Servers) != len(before.Servers) {
		t.Errorf("a refused command wrote the config: %v -> %v", before.Names(), after.Names())
	}
}
