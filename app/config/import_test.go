package config

import (
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
)

func TestParseImportClaudeDesktop(t *testing.T) {
	data, err := os.ReadFile("testdata/claude_desktop_config.json")
	if err != nil {
		t.Fatal(err)
	}
	servers, skipped, secrets, err := ParseImport(data)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	if want := []string{"Postgres DB", "acme-api", "brave-search", "filesystem", "github", "linear", "sentry", "slack", "weather"}; !reflect.DeepEqual(names, want) {
		t.Errorf("servers = %v, want %v", names, want)
	}
	if len(skipped) > 0 {
		t.Errorf("skipped =\n%s\nwant none (remote entries are imported)", strings.Join(skipped, "\n"))
	}
	wantSecrets := []SecretCandidate{
		{"github", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghp_FAKEFAKEFAKEFAKEFAKEFAKEFAKEFAKE0000", "github-github_personal_access_token", false},
		{"brave-search", "BRAVE_API_KEY", "BSAfakefakefakefake", "brave-search-brave_api_key", false},
		{"Postgres DB", "PGPASSWORD", "hunter2", "postgres-db-pgpassword", false},
		{Server: "acme-api", Var: "Authorization", Value: "FAKE", Secret: "acme-api-authorization", Header: true},
		{"slack", "SLACK_BOT_TOKEN", "xoxb-fake-fake-fake", "slack-slack_bot_token", false},
	}
	if !reflect.DeepEqual(secrets, wantSecrets) {
		t.Errorf("secrets =\n%+v\nwant\n%+v", secrets, wantSecrets)
	}

	// The import flow: normalize names, move each literal into the keyring,
	// add the entries; the file then holds no secret and loads cleanly.
	f := New()
	for _, c := range secrets {
		if err := servers[c.Server].ReferenceSecret(c.Var, c.Secret); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		f.SetServer(NormalizeName(n), servers[n])
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range wantSecrets {
		if strings.Contains(string(out), c.Value) {
			t.Errorf("the file still holds the literal %s", c.Var)
		}
	}
	g, err := Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Report().Err(); err != nil {
		t.Errorf("imported file has problems:\n%v", err)
	}
	if got, want := g.Servers["postgres-db"].SecretRefs(), []string{"postgres-db-pgpassword"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SecretRefs = %v, want %v", got, want)
	}
	if got := g.Servers["github"].Env["GITHUB_PERSONAL_ACCESS_TOKEN"]; got != "${keyring:github-github_personal_access_token}" {
		t.Errorf("env = %q", got)
	}
	if got := g.Servers["acme-api"].Headers["Authorization"]; got != "Bearer ${keyring:acme-api-authorization}" {
		t.Errorf("acme-api headers.Authorization = %q", got)
	}
	if got := g.Servers["linear"].URL; got != "https://mcp.linear.app/sse" {
		t.Errorf("linear url = %q", got)
	}
	if err := g.Servers["acme-api"].ReferenceSecret("X-None", "x"); err == nil {
		t.Error("ReferenceSecret of a missing header")
	}
	if err := g.Servers["github"].ReferenceSecret("NOPE", "x"); err == nil {
		t.Error("ReferenceSecret of a missing variable")
	}
	if err := g.Servers["github"].ReferenceSecret("GITHUB_PERSONAL_ACCESS_TOKEN", "bad name"); err == nil {
		t.Error("ReferenceSecret with an invalid name")
	}
}

func TestParseImportForms(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		servers  []string
		skipped  []string
		nSecrets int
		wantErr  string
	}{
		{"bare object", `{"a": {"command": "x"}, "b": {"command": "y", "env": {"API_KEY": "k"}}}`, []string{"a", "b"}, nil, 1, ""},
		{"snippet without braces", `"time": {"command": "uvx", "args": ["mcp-server-time"]},`, []string{"time"}, nil, 0, ""},
		{"VS Code servers", `{"inputs": [], "servers": {"fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]}}}`, []string{"fetch"}, nil, 0, ""},
		{"BOM and spaces", "\ufeff  {\"mcpServers\": {\"a\": {\"command\": \"x\"}}}  ", []string{"a"}, nil, 0, ""},
		{"bad entries", `{"mcpServers": {"a": "npx x", "b": {"command": "x", "args": "y"}, "c": {"args": ["x"]}, "d": {"command": "ok"}}}`,
			[]string{"d"}, []string{
				`"a": not imported: an entry must be an object with a command`,
				`"b": not imported: mcpServers.b.args: must be a list of strings, like ["-y", "@modelcontextprotocol/server-filesystem"]`,
				`"c": not imported: it has no command, so it is not a stdio server`,
			}, 0, ""},
		{"empty value is no candidate; references are none", `{"a": {"command": "x", "env": {"TOKEN": "", "SECRET_KEY": "${keyring:s}", "PASSWORD_FILE": "$${x}"}}}`, []string{"a"}, nil, 1, ""},
		{"mcp-remote", `{"a": {"command": "npx", "args": ["-y", "mcp-remote@0.1.29", "https://a.example/mcp", "--header", "Authorization: Bearer ${T}", "--transport", "sse-only"], "env": {"T": "tok123"}}}`, []string{"a"}, nil, 1, ""},
		{"mcp-remote not understood", `{"a": {"command": "npx", "args": ["mcp-remote", "https://a.example/mcp", "--header", "X-Key:${NOPE}"]}, "b": {"command": "npx", "args": ["mcp-remote", "https://a.example/mcp"], "env": {"DEBUG": "1"}}, "c": {"command": "npx", "args": ["-y", "mcp-remote"]}, "d": {"type": "sse"}, "e": {"url": ""}}`,
			nil, []string{
				`"a": not imported: an mcp-remote entry: its header X-Key uses ${NOPE}, which the entry's env does not set (it would come from the app's environment): it stays with your AI client (or write it as a "url" entry: docs/remote.md)`,
				`"b": not imported: an mcp-remote entry: its env sets DEBUG, which no header uses (a remote server has no process to pass it to): it stays with your AI client (or write it as a "url" entry: docs/remote.md)`,
				`"c": not imported: an mcp-remote entry: mcp-remote is given no server address (its first argument after the package): it stays with your AI client (or write it as a "url" entry: docs/remote.md)`,
				`"d": not imported: a remote entry (type "sse") with no "url": give the server's address`,
				`"e": not imported: a remote entry with an empty "url": give the server's address`,
			}, 0, ""},
		{"nothing", `{}`, nil, nil, 0, `no servers found: paste the "mcpServers" block, or entries like {"name": {"command": "npx", "args": [...]}}`},
		{"not JSON", "{\n  \"a\": {command: 1}}", nil, nil, 0, "line 2, column 9: invalid character 'c' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			servers, skipped, secrets, err := ParseImport([]byte(tt.in))
			if errString(err) != tt.wantErr {
				t.Fatalf("err = %v, want %q", err, tt.wantErr)
			}
			var names []string
			for n := range servers {
				names = append(names, n)
			}
			sort.Strings(names)
			if !reflect.DeepEqual(names, tt.servers) || !reflect.DeepEqual(skipped, tt.skipped) || len(secrets) != tt.nSecrets {
				t.Errorf("got servers %v, skipped %q, %d secrets; want %v, %q, %d", names, skipped, len(secrets), tt.servers, tt.skipped, tt.nSecrets)
			}
		})
	}
}

// TestParseImportSkipsAsData: an entry left out for its problems carries
// them, each with its key and remedy (a misspelled key: rename_key), and
// the same line as ParseImport's.
func TestParseImportSkipsAsData(t *testing.T) {
	in := []byte(`{"mcpServers": {"typo": {"command": "/bin/cat", "arsg": ["x"]}, "far": {"command": "npx", "args": ["mcp-remote", "https://example.com/mcp", "--ignore-tool", "x"]}}}`)
	_, skips, _, err := ParseImportSkips(in)
	_, lines, _, _ := ParseImport(in)
	if err != nil || len(skips) != 2 || len(lines) != 2 {
		t.Fatalf("skips %+v, lines %q, %v", skips, lines, err)
	}
	for i, s := range skips {
		if s.String() != lines[i] {
			t.Errorf("skip %d says %q; ParseImport %q", i, s, lines[i])
		}
	}
	typo := skips[1]
	if typo.Name != "typo" {
		typo = skips[0]
	}
	if len(typo.Problems) != 1 || typo.Problems[0].Server != "typo" || typo.Problems[0].Key != "arsg" ||
		typo.Problems[0].Remedy == nil || typo.Problems[0].Remedy.Kind != "rename_key" || typo.Problems[0].Remedy.To != "args" {
		t.Errorf("typo: %+v", typo)
	}
	for _, s := range skips {
		if s.Name == "far" && (len(s.Problems) != 0 || s.Why == "") {
			t.Errorf("far: %+v", s)
		}
	}
}

// TestFromMCPRemote: the proxy's command line becomes the remote entry it
// stands for; the header's ${VAR} comes from the entry's env; the header's
// secret part moves to a reference.
// TestMCPRemoteByOtherRunners: pnpm dlx, yarn dlx and bun x run
// mcp-remote as npx does, and are imported as the remote entry it stands
// for; the same runners with another package stay stdio servers.
func TestMCPRemoteByOtherRunners(t *testing.T) {
	in := `{"p": {"command": "pnpm", "args": ["dlx", "mcp-remote", "https://p.example/mcp"]},
	  "y": {"command": "yarn.cmd", "args": ["dlx", "mcp-remote@0.1.29", "https://y.example/mcp"]},
	  "b": {"command": "bun", "args": ["x", "mcp-remote", "https://b.example/sse", "--transport", "sse-only"]},
	  "o": {"command": "pnpm", "args": ["dlx", "other-server"]},
	  "i": {"command": "yarn", "args": ["mcp-remote", "https://i.example/mcp"]}}`
	servers, skipped, _, err := ParseImport([]byte(in))
	if err != nil || len(skipped) != 0 {
		t.Fatalf("err %v, skipped %v", err, skipped)
	}
	for name, url := range map[string]string{"p": "https://p.example/mcp", "y": "https://y.example/mcp", "b": "https://b.example/sse"} {
		if s := servers[name]; s == nil || !s.IsRemote() || s.URL != url || s.Command != "" {
			t.Errorf("%s: %+v, want the remote entry of %s", name, s, url)
		}
	}
	if s := servers["b"]; s == nil || s.Type != RemoteSSE {
		t.Errorf("bun x with --transport sse-only: %+v", s)
	}
	for _, name := range []string{"o", "i"} {
		if s := servers[name]; s == nil || s.IsRemote() || s.Command == "" {
			t.Errorf("%s: %+v, want the stdio entry as written", name, s)
		}
	}
}

func TestFromMCPRemote(t *testing.T) {
	in := []byte(`{"mcpServers": {"Docs": {"command": "npx.cmd", "args": ["-y", "mcp-remote", "https://docs.example/sse", "--header", "Authorization:Bearer ${AUTH}", "--header", "X-Team: blue", "--transport", "sse-only", "3334"], "env": {"AUTH": "s3cr3t-tok"}, "disabled": true}}}`)
	servers, skipped, secrets, err := ParseImport(in)
	if err != nil || len(skipped) != 0 {
		t.Fatalf("skipped %q, %v", skipped, err)
	}
	s := servers["Docs"]
	if s == nil || s.URL != "https://docs.example/sse" || s.Type != "sse" || !s.Disabled || s.Command != "" || len(s.Env) != 0 {
		t.Fatalf("entry %+v", s)
	}
	want := []SecretCandidate{{Server: "Docs", Var: "Authorization", Value: "s3cr3t-tok", Secret: "docs-authorization", Header: true}}
	if !reflect.DeepEqual(secrets, want) || secrets[0].Key() != "headers.Authorization" {
		t.Fatalf("secrets %+v, want %+v", secrets, want)
	}
	if err := s.ReferenceSecret(secrets[0].Var, secrets[0].Secret); err != nil {
		t.Fatal(err)
	}
	if got := s.Headers; got["Authorization"] != "Bearer ${keyring:docs-authorization}" || got["X-Team"] != "blue" {
		t.Errorf("headers %q", got)
	}
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	checked, err := ParseServer("docs", b)
	if err != nil || len(checked.Problems()) > 0 || strings.Contains(string(b), "s3cr3t") {
		t.Errorf("%s: %v %v", b, checked.Problems(), err)
	}
}

// TestMCPRemoteTransports (issue 27 §5): mcp-remote's default, http-first,
// becomes an entry with no "type" (Streamable HTTP, then SSE: its
// RemoteSpec says HTTPFirst), as does no --transport; http-only and
// sse-only become the one transport they name.
func TestMCPRemoteTransports(t *testing.T) {
	in := `{"none": {"command": "npx", "args": ["mcp-remote", "https://a.example/sse"]},
	  "first": {"command": "npx", "args": ["mcp-remote", "https://a.example/sse", "--transport", "http-first"]},
	  "http": {"command": "npx", "args": ["mcp-remote", "https://a.example/mcp", "--transport", "http-only"]},
	  "sse": {"command": "npx", "args": ["mcp-remote", "https://a.example/sse", "--transport", "sse-only"]}}`
	servers, skipped, _, err := ParseImport([]byte(in))
	if err != nil || len(skipped) != 0 {
		t.Fatalf("err %v, skipped %v", err, skipped)
	}
	for name, want := range map[string]struct {
		typ, spec string
		first     bool
	}{"none": {"", RemoteHTTP, true}, "first": {"", RemoteHTTP, true}, "http": {RemoteHTTP, RemoteHTTP, false}, "sse": {RemoteSSE, RemoteSSE, false}} {
		s := servers[name]
		if s == nil || s.Type != want.typ {
			t.Errorf("%s: %+v, want type %q", name, s, want.typ)
			continue
		}
		r, err := s.RemoteSpec(name)
		if err != nil || r.Type != want.spec || r.HTTPFirst != want.first {
			t.Errorf("%s: spec %+v (%v), want type %s, HTTPFirst %v", name, r, err, want.spec, want.first)
		}
	}
}
