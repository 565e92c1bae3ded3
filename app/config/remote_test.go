package config

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRemoteValidation: a remote entry's problems, each with its key and
// remedy; good entries have none.
func TestRemoteValidation(t *testing.T) {
	entry := func(body string) string { return `{"mcpServers": {"gh": ` + body + `}}` }
	tests := []struct {
		name string
		doc  string
		want []string // prefixes
	}{
		{"https", entry(`{"url": "https://mcp.example.com/mcp"}`), nil},
		{"sse", entry(`{"url": "https://mcp.example.com/sse", "type": "sse"}`), nil},
		{"cursor spelling", entry(`{"url": "https://mcp.example.com/mcp", "type": "streamable-http"}`), nil},
		{"loopback http", entry(`{"url": "http://127.0.0.5:8080/mcp"}`), nil},
		{"localhost http", entry(`{"url": "http://localhost:8080/mcp"}`), nil},
		{"ipv6 loopback http", entry(`{"url": "http://[::1]:8080/mcp"}`), nil},
		{"referenced header", entry(`{"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${keyring:gh}", "X-Team": "core"}}`), nil},
		{"options", entry(`{"url": "https://x.example/mcp", "callTimeout": 1000, "tools": {"deny": ["rm*"]}, "trust": "auto", "start": "on-demand", "policy": {"default": "ask"}}`), nil},
		{"oauth", entry(`{"url": "https://x.example/mcp", "oauth": {"clientId": "abc", "scopes": ["read", "write"]}}`), nil},
		{"plain http", entry(`{"url": "http://mcp.example.com/mcp"}`),
			[]string{`mcpServers.gh.url: "http://mcp.example.com/mcp" is not encrypted: use https://`}},
		{"not a url", entry(`{"url": "mcp.example.com"}`),
			[]string{`mcpServers.gh.url: "mcp.example.com" is not an http(s) address`}},
		{"ws", entry(`{"url": "wss://mcp.example.com"}`),
			[]string{`mcpServers.gh.url: "wss://mcp.example.com" is not an http(s) address`}},
		{"credentials in url", entry(`{"url": "https://me:pw@mcp.example.com/mcp"}`),
			[]string{`mcpServers.gh.url: holds a user name or password`}},
		{"both", entry(`{"url": "https://x.example/mcp", "command": "npx"}`),
			[]string{`mcpServers.gh.command: an entry has either "url" (a remote server) or "command" (a local one), not both`}},
		{"neither", entry(`{"args": ["x"]}`),
			[]string{`mcpServers.gh.command: is required`}},
		{"type without url", entry(`{"type": "sse"}`),
			[]string{`mcpServers.gh.url: is missing`}},
		{"empty url", entry(`{"url": ""}`),
			[]string{`mcpServers.gh.url: is empty: give the server's address`}},
		{"empty url with a type", entry(`{"url": " ", "type": "sse"}`),
			[]string{`mcpServers.gh.url: " " is not an http(s) address`}},
		{"empty url and oauth", entry(`{"url": "", "type": "sse", "oauth": {}}`),
			[]string{`mcpServers.gh.url: is empty`}},
		{"local keys", entry(`{"url": "https://x.example/mcp", "env": {"A": "b"}, "cwd": "/"}`),
			[]string{`mcpServers.gh.env: is an option of a local server`, `mcpServers.gh.cwd: is an option of a local server`}},
		{"sandbox", entry(`{"url": "https://x.example/mcp", "sandbox": "strict"}`),
			[]string{`mcpServers.gh.sandbox: is an option of a local server`}},
		{"bad type", entry(`{"url": "https://x.example/mcp", "type": "ws"}`),
			[]string{`mcpServers.gh.type: "ws" is not supported`}},
		{"bad header name", entry(`{"url": "https://x.example/mcp", "headers": {"X Team": "a"}}`),
			[]string{`mcpServers.gh.headers.X Team: "X Team" is not a valid header name`}},
		{"transport header", entry(`{"url": "https://x.example/mcp", "headers": {"mcp-session-id": "a"}}`),
			[]string{`mcpServers.gh.headers.mcp-session-id: is set by the transport`}},
		{"literal token", entry(`{"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ghp_abc123"}}`),
			[]string{`mcpServers.gh.headers.Authorization: holds a literal secret: the file holds only references to the keyring: store the value with 'switchboard secret set gh-authorization' and write "Bearer ${keyring:gh-authorization}"`}},
		{"literal api key", entry(`{"url": "https://x.example/mcp", "headers": {"X-Api-Key": "abc"}}`),
			[]string{`mcpServers.gh.headers.X-Api-Key: holds a literal secret`}},
		{"bad reference", entry(`{"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${env:X}"}}`),
			[]string{`mcpServers.gh.headers.Authorization: "${env:X}" is not supported`}},
		{"header not string", entry(`{"url": "https://x.example/mcp", "headers": {"X-A": 1}}`),
			[]string{`mcpServers.gh.headers.X-A: must be a string`}},
		{"oauth and header", entry(`{"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${keyring:gh}"}, "oauth": {}}`),
			[]string{`mcpServers.gh.oauth: and headers.Authorization both authenticate`}},
		{"oauth unknown", entry(`{"url": "https://x.example/mcp", "oauth": {"secret": "x"}}`),
			[]string{`mcpServers.gh.oauth.secret: is not a known key`}},
		{"oauth literal client secret", entry(`{"url": "https://x.example/mcp", "oauth": {"clientId": "a", "clientSecret": "hunter2"}}`),
			[]string{`mcpServers.gh.oauth.clientSecret: must be a reference to the keyring, not the secret itself: store it with 'switchboard secret set gh-oauth-client'`}},
		{"oauth client secret", entry(`{"url": "https://x.example/mcp", "oauth": {"clientId": "a", "clientSecret": "${keyring:gh-client}"}}`), nil},
		{"oauth client metadata document", entry(`{"url": "https://x.example/mcp", "oauth": {"clientMetadataUrl": "https://sb.example/oauth/client.json"}}`), nil},
		{"oauth client metadata over http", entry(`{"url": "https://x.example/mcp", "oauth": {"clientMetadataUrl": "http://sb.example/client.json"}}`),
			[]string{`mcpServers.gh.oauth.clientMetadataUrl: "http://sb.example/client.json" is not an https address`}},
		{"oauth client metadata at the root", entry(`{"url": "https://x.example/mcp", "oauth": {"clientMetadataUrl": "https://sb.example/"}}`),
			[]string{`mcpServers.gh.oauth.clientMetadataUrl: "https://sb.example/" has no path`}},
		{"oauth client metadata with a dot segment", entry(`{"url": "https://x.example/mcp", "oauth": {"clientMetadataUrl": "https://sb.example/a/../client.json"}}`),
			[]string{`mcpServers.gh.oauth.clientMetadataUrl: "https://sb.example/a/../client.json" may not hold a fragment, a user or "." segments`}},
		{"oauth scope", entry(`{"url": "https://x.example/mcp", "oauth": {"scopes": ["a b"]}}`),
			[]string{`mcpServers.gh.oauth.scopes[0]: "a b" is not a scope`}},
		{"bad number", entry(`{"url": "https://x.example/mcp", "callTimeout": 0}`),
			[]string{`mcpServers.gh.callTimeout: 0 is not allowed`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problemsOf(t, tt.doc)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i, w := range tt.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("problem %d:\n got %s\nwant %s…", i, got[i], w)
				}
			}
		})
	}
}

// TestRemoteLiteralSecretRemedy: the problem of a literal token carries
// its remedy as data, and never the token.
func TestRemoteLiteralSecretRemedy(t *testing.T) {
	f, err := Parse([]byte(`{"mcpServers": {"gh": {"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ghp_TOPSECRET"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	ps := f.Report().Problems()
	if len(ps) != 1 || ps[0].Remedy == nil {
		t.Fatalf("problems = %v", ps)
	}
	if r := ps[0].Remedy; r.Kind != "keyring_ref" || r.From != "headers.Authorization" || r.To != "gh-authorization" {
		t.Errorf("remedy = %+v", r)
	}
	if strings.Contains(ps[0].Message, "TOPSECRET") || strings.Contains(ps[0].Fact, "TOPSECRET") {
		t.Errorf("the problem shows the secret: %s", ps[0].Message)
	}
}

// TestRemoteSpec: the spec the host connects with, its defaults, and its
// JSON (the fingerprint), which names secrets and never holds their
// values; a local entry has none.
func TestRemoteSpec(t *testing.T) {
	f, err := Parse([]byte(`{"mcpServers": {
	  "gh": {"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer ${keyring:gh-token}", "X-Team": "core"}, "callTimeout": 1500, "maxReconnects": 2},
	  "ev": {"url": "http://127.0.0.1:3001/sse", "type": "sse", "oauth": {"clientId": "cid", "scopes": ["read"]}},
	  "local": {"command": "node"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := f.Report(); r.Len() != 0 {
		t.Fatal(r)
	}
	gh := f.Servers["gh"]
	r, err := gh.RemoteSpec("gh")
	if err != nil || r == nil {
		t.Fatalf("RemoteSpec = %v, %v", r, err)
	}
	if r.URL != "https://x.example/mcp" || r.Type != RemoteHTTP || r.OAuth != nil {
		t.Errorf("spec = %+v", r)
	}
	if got := r.Secrets(); len(got) != 1 || got[0] != "gh-token" {
		t.Errorf("Secrets = %v", got)
	}
	if got := gh.CallTimeout(); got != 1500*time.Millisecond {
		t.Errorf("CallTimeout = %v", got)
	}
	if n, err := gh.Number("maxReconnects"), problemsErr(gh.validate("gh")); err != nil || n != 2 {
		t.Errorf("maxReconnects = %d, %v: want the numeric options, no error", n, err)
	}
	fp, _ := json.Marshal(r)
	if !strings.Contains(string(fp), `"Secret":"gh-token"`) || !strings.Contains(string(fp), "core") {
		t.Errorf("fingerprint %s does not cover the headers", fp)
	}
	ev, _ := f.Servers["ev"].RemoteSpec("ev")
	if ev == nil || ev.Type != RemoteSSE || ev.OAuth == nil || ev.OAuth.ClientID != "cid" || len(ev.OAuth.Scopes) != 1 {
		t.Errorf("ev = %+v", ev)
	}
	if l, _ := f.Servers["local"].RemoteSpec("local"); l != nil || f.Servers["local"].IsRemote() {
		t.Errorf("a local entry has a remote spec: %+v", l)
	}
}

// TestRemoteRoundTrip: a remote entry is written back as it was read, and
// a change keeps the other keys and the headers' order.
func TestRemoteRoundTrip(t *testing.T) {
	doc := `{
  "version": 1,
  "mcpServers": {
    "gh": {
      "type": "http",
      "url": "https://x.example/mcp",
      "headers": {
        "X-Z": "last",
        "Authorization": "Bearer ${keyring:gh}"
      },
      "futureKey": [
        1
      ],
      "oauth": {
        "clientId": "cid"
      }
    }
  }
}
`
	f, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != doc {
		t.Errorf("round trip:\n%s\nwant\n%s", out, doc)
	}
	if err := f.SetDisabled("gh", true); err != nil {
		t.Fatalf("SetDisabled: %v", err)
	}
	f.Servers["gh"].Headers["X-A"] = "new"
	out, _ = f.Marshal()
	for _, want := range []string{`"X-Z": "last",
        "Authorization": "Bearer ${keyring:gh}",
        "X-A": "new"`, `"futureKey": [`, `"disabled": true`} {
		if !strings.Contains(string(out), want) {
			t.Errorf("written entry lacks %s:\n%s", want, out)
		}
	}
}
