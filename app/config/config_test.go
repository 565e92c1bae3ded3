package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestDefaultPath(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	dir := func(d string, err error) func() (string, error) { return func() (string, error) { return d, err } }
	tests := []struct {
		name    string
		getenv  func(string) string
		ucd     func() (string, error)
		want    string
		wantErr string
	}{
		{"linux", env(nil), dir("/home/ann/.config", nil), "/home/ann/.config/switchboard/config.json", ""},
		{"linux xdg", env(nil), dir("/xdg", nil), "/xdg/switchboard/config.json", ""},
		{"darwin", env(nil), dir("/Users/ann/Library/Application Support", nil), "/Users/ann/Library/Application Support/switchboard/config.json", ""},
		{"windows", env(nil), dir(`C:\Users\ann\AppData\Roaming`, nil), filepath.Join(`C:\Users\ann\AppData\Roaming`, "switchboard", "config.json"), ""},
		{"env wins", env(map[string]string{"SWITCHBOARD_CONFIG": "/etc/sb/../sb/c.json"}), dir("/home/ann/.config", nil), "/etc/sb/c.json", ""},
		{"env wins over a failing dir", env(map[string]string{"SWITCHBOARD_CONFIG": "/c.json"}), dir("", errors.New("$HOME is not defined")), "/c.json", ""},
		{"no dir", env(nil), dir("", errors.New("$HOME is not defined")), "", "finding the config directory: $HOME is not defined: set SWITCHBOARD_CONFIG or pass --config"},
		{"empty dir", env(nil), dir("", nil), "", "the user has no config directory: set SWITCHBOARD_CONFIG or pass --config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DefaultPath(tt.getenv, tt.ucd)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("DefaultPath = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// problemsOf parses a file with one entry "s" (body) and returns its
// problems' texts.
func problemsOf(t *testing.T, doc string) []string {
	t.Helper()
	f, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	var out []string
	for _, p := range f.Report().Problems() {
		out = append(out, p.Error())
	}
	return out
}

func TestValidationMessages(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	entry := func(body string) string { return `{"mcpServers": {"files": ` + body + `}}` }
	tests := []struct {
		name string
		doc  string
		want []string // exact, or a prefix when it ends with "…"
	}{
		{"cwd missing", entry(`{"command": "node", "cwd": "/srv/x-does-not-exist"}`),
			[]string{`mcpServers.files.cwd: "/srv/x-does-not-exist" does not exist: create it or choose another directory`}},
		{"cwd relative", entry(`{"command": "node", "cwd": "srv"}`),
			[]string{`mcpServers.files.cwd: "srv" is not absolute: give an absolute path`}},
		{"cwd a file", entry(`{"command": "node", "cwd": ` + jsonString(file) + `}`),
			[]string{`mcpServers.files.cwd: "` + file + `" is not a directory`}},
		{"command missing", entry(`{"args": ["x"]}`),
			[]string{`mcpServers.files.command: is required: name the executable (a name found in PATH, or an absolute path)`}},
		{"command with args", entry(`{"command": "npx -y pkg"}`),
			[]string{`mcpServers.files.command: "npx -y pkg" contains whitespace: put only the executable in command ("npx") and the rest in args…`}},
		{"command relative path", entry(`{"command": "bin/server"}`),
			[]string{`mcpServers.files.command: "bin/server" is a relative path: give an absolute path, or a bare name to look up in PATH`}},
		{"command not a string", entry(`{"command": ["npx"]}`),
			[]string{`mcpServers.files.command: must be a string naming the executable, not ["npx"]`}},
		{"args not a list", entry(`{"command": "node", "args": "server.js"}`),
			[]string{`mcpServers.files.args: must be a list of strings, like ["-y", "@modelcontextprotocol/server-filesystem"]`}},
		{"args number", entry(`{"command": "node", "args": ["--port", 3000, true]}`),
			[]string{`mcpServers.files.args[1]: must be a string: write "3000"`, `mcpServers.files.args[2]: must be a string: write "true"`}},
		{"env number", entry(`{"command": "node", "env": {"PORT": 3000, "T": "${keyring:}"}}`),
			[]string{`mcpServers.files.env.PORT: must be a string: write "3000"`, `mcpServers.files.env.T: "${keyring:}" names no secret: write ${keyring:NAME}`}},
		{"env bad name beside a bad value", entry(`{"command": "node", "env": {"PORT": 3000, "BAD KEY": "1"}}`),
			[]string{`mcpServers.files.env.PORT: must be a string: write "3000"`,
				`mcpServers.files.env: variable name "BAD KEY" is invalid: a name is not empty and has no space, '=' or control character (letters, digits and '_' are safe: GITHUB_TOKEN)`}},
		{"env not an object", entry(`{"command": "node", "env": ["A=1"]}`),
			[]string{`mcpServers.files.env: must be an object of strings, like {"NAME": "value"}`}},
		{"env unterminated", entry(`{"command": "node", "env": {"AUTH": "Bearer ${keyring:gh"}}`),
			[]string{`mcpServers.files.env.AUTH: "${keyring:" at byte 7 is not closed: end the reference with "}"`}},
		{"env other form", entry(`{"command": "node", "env": {"H": "${HOME}/x"}}`),
			[]string{`mcpServers.files.env.H: "${HOME}" is not supported: only ${keyring:NAME} references are; write $${ for a literal "${"`}},
		{"env bad variable name", entry(`{"command": "node", "env": {"A=B": "1"}}`),
			[]string{`mcpServers.files.env: variable name "A=B" is invalid: a name is not empty and has no space, '=' or control character (letters, digits and '_' are safe: GITHUB_TOKEN)`}},
		{"env name with a space", entry(`{"command": "node", "env": {"BAD KEY": "1", "GOOD": "2", "TAB\tKEY": "3"}}`),
			[]string{`mcpServers.files.env: variable name "BAD KEY" is invalid: a name is not empty and has no space, '=' or control character (letters, digits and '_' are safe: GITHUB_TOKEN)`,
				`mcpServers.files.env: variable name "TAB\tKEY" is invalid: a name is not empty and has no space, '=' or control character (letters, digits and '_' are safe: GITHUB_TOKEN)`}},
		{"stderr kind", entry(`{"command": "node", "stderr": "syslog"}`),
			[]string{`mcpServers.files.stderr: "syslog" is not one of inherit, discard, capture, or {"file": "/absolute/path"}`}},
		{"stderr file relative", entry(`{"command": "node", "stderr": {"file": "log.txt"}}`),
			[]string{`mcpServers.files.stderr.file: "log.txt" is not an absolute path: give an absolute path to append to`}},
		{"stderr file dir missing", entry(`{"command": "node", "stderr": {"file": "/no/such/dir/log"}}`),
			[]string{`mcpServers.files.stderr.file: the directory of "/no/such/dir/log" does not exist: create it first`}},
		{"stderr bare file", entry(`{"command": "node", "stderr": "file"}`),
			[]string{`mcpServers.files.stderr: "file" needs a path: write {"file": "/absolute/path"}`}},
		{"stderr object key", entry(`{"command": "node", "stderr": {"path": "/tmp/x"}}`),
			[]string{`mcpServers.files.stderr.path: is not a known key: the object form is {"file": "/absolute/path"}`}},
		{"inheritEnv", entry(`{"command": "node", "inheritEnv": ["HTTPS_PROXY", ""]}`),
			[]string{`mcpServers.files.inheritEnv: variable name "" is invalid: a name is not empty and has no space, '=' or control character (letters, digits and '_' are safe: GITHUB_TOKEN)`}},
		{"inheritEnv with a space", entry(`{"command": "node", "inheritEnv": ["HTTPS PROXY"]}`),
			[]string{`mcpServers.files.inheritEnv: variable name "HTTPS PROXY" is invalid: a name is not empty and has no space, '=' or control character (letters, digits and '_' are safe: GITHUB_TOKEN)`}},
		{"bool", entry(`{"command": "node", "disabled": "yes"}`),
			[]string{`mcpServers.files.disabled: must be true or false, not "yes"`}},
		{"not a whole number", entry(`{"command": "node", "probeTimeout": "3s", "maxJunkLines": 1.5}`),
			[]string{`mcpServers.files.maxJunkLines: 1.5 is not a whole number: give a number of lines, like 10`,
				`mcpServers.files.probeTimeout: "3s" is not a whole number: give a number of milliseconds, like 3000`}},
		{"zero not allowed", entry(`{"command": "node", "maxMessageBytes": 0, "handshakeTimeout": 0}`),
			[]string{`mcpServers.files.maxMessageBytes: 0 is not allowed: give a positive number of bytes, or remove the key for the default (8388608)`,
				`mcpServers.files.handshakeTimeout: 0 is not allowed: give a positive number of ms, or remove the key for the default (60000)`}},
		{"negative", entry(`{"command": "node", "termGrace": -1, "maxReconnects": -3}`),
			[]string{`mcpServers.files.maxReconnects: -3 is negative: give a number of attempts (0 or more), or remove the key for the default (5)`,
				`mcpServers.files.termGrace: -1 is negative: give a number of ms (0 or more), or remove the key for the default (2000)`}},
		{"engine range", entry(`{"command": "node", "maxMessageBytes": 10, "termGrace": 3600000}`),
			[]string{`mcpServers.files.maxMessageBytes: 10 is out of range: use 1024 to 1073741824 bytes, or remove the key for the default (8388608)`,
				`mcpServers.files.termGrace: 3600000 ms is out of range: use 0 to 600000 ms, or remove the key for the default (2000)`}},
		{"callTimeout range", entry(`{"command": "node", "callTimeout": 100000000}`),
			[]string{`mcpServers.files.callTimeout: 100000000 ms is out of range: use 1 to 86400000 ms, or remove the key for the default (300000)`}},
		{"huge duration", entry(`{"command": "node", "stdinGrace": 9000000000000000}`),
			[]string{`mcpServers.files.stdinGrace: 9000000000000000 ms is out of range: use 0 to 600000 ms, or remove the key for the default (2000)`}},
		{"tools pattern", entry(`{"command": "node", "tools": {"allow": ["read_*", "[a"], "deny": ["x\\"]}}`),
			[]string{`mcpServers.files.tools.allow[1]: "[a" is not a valid pattern: use * and ? wildcards, and close every [`,
				`mcpServers.files.tools.deny[0]: "x\\" is not a valid pattern: use * and ? wildcards, and close every [`}},
		{"tools key", entry(`{"command": "node", "tools": {"only": ["a"]}}`),
			[]string{`mcpServers.files.tools.only: is not a known key: use "allow" or "deny"`}},
		{"typo", entry(`{"comand": "node", "TermGrace": 5}`),
			[]string{`mcpServers.files.command: is required: name the executable (a name found in PATH, or an absolute path)`,
				`mcpServers.files.comand: is not a known key: did you mean "command"? Rename it, or remove it`,
				`mcpServers.files.TermGrace: is not a known key: did you mean "termGrace"? Rename it, or remove it`}},
		{"unknown key kept quietly", entry(`{"command": "node", "description": "mine"}`), nil},
		{"type stdio", entry(`{"type": "stdio", "command": "node"}`), nil},
		{"type other", entry(`{"type": "websocket", "command": "node"}`),
			[]string{`mcpServers.files.type: "websocket" is not supported: use "http" or "sse" for a remote server ("url"), "stdio" or no type for a local one`}},
		{"remote url", entry(`{"url": "https://mcp.example.com/sse", "headers": {"Authorization": "x"}}`),
			[]string{`mcpServers.files.headers.Authorization: holds a literal secret: the file holds only references to the keyring: store the value with 'switchboard secret set files-authorization' and write "${keyring:files-authorization}"`}},
		{"remote type", entry(`{"type": "http", "command": "ignored"}`),
			[]string{`mcpServers.files.url: is missing: a remote entry ("type" "http") needs the server's address, like "https://mcp.example.com/mcp"`,
				`mcpServers.files.command: an entry has either "url" (a remote server) or "command" (a local one), not both: remove one`}},
		{"entry not an object", entry(`"npx server"`),
			[]string{`mcpServers.files: must be an object, like {"command": "npx", "args": ["-y", "some-server"]}`}},
		{"duplicate key", entry(`{"command": "a", "command": "node"}`),
			[]string{`mcpServers.files.command: appears more than once: keep one (the last one is used)`}},
		{"bad name", `{"mcpServers": {"My_Server": {"command": "node"}}}`,
			[]string{`mcpServers["My_Server"]: the name "My_Server" is not valid: use 1 to 31 lower-case letters, digits or '-', starting with a letter or digit (for example "my-server")`}},
		{"name too long", `{"mcpServers": {"a23456789012345678901234567890123": {"command": "node"}}}`,
			[]string{`mcpServers["a23456789012345678901234567890123"]: the name "a23456789012345678901234567890123" is not valid: use 1 to 31 lower-case letters, digits or '-', starting with a letter or digit (for example "a234567890123456789012345678901")`}},
		{"duplicate server", `{"mcpServers": {"a": {"command": "x"}, "a": {"command": "node"}}}`,
			[]string{`mcpServers: the server "a" appears more than once: keep one (the last one is used)`}},
		{"no servers", `{}`, nil},
		{"valid", entry(`{"command": "/usr/bin/node", "args": [], "env": {}, "cwd": "/", "stderr": "discard", "termGrace": 0, "tools": {"deny": ["rm*"]}}`), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problemsOf(t, tt.doc)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(tt.want), strings.Join(got, "\n"))
			}
			for i, w := range tt.want {
				if p, ok := strings.CutSuffix(w, "…"); ok && strings.HasPrefix(got[i], p) {
					continue
				}
				if got[i] != w {
					t.Errorf("problem %d:\n got %s\nwant %s", i, got[i], w)
				}
			}
		})
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// One bad entry leaves the good ones usable, and the report has every
// problem of every entry.
func TestLoadKeepsGoodServers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	writeFile(t, path, `{
  "mcpServers": {
    "good": {"command": "node", "args": ["server.js"]},
    "bad": {"command": "", "cwd": "relative", "termGrace": "soon"},
    "off": {"command": "node", "disabled": true},
    "web": {"url": "https://example.com/mcp"},
    "worse": {"args": 1}
  }
}`)
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	r := f.Report()
	if got := r.Len(); got != 5 {
		t.Errorf("Len = %d, want 5:\n%v", got, r)
	}
	// A remote entry is a server like the others (remote.go).
	if len(r.Servers["bad"]) != 3 || len(r.Servers["worse"]) != 2 || len(r.Servers["web"]) != 0 || len(r.File) != 0 {
		t.Errorf("report by server = %v", r.Servers)
	}
	if !strings.HasPrefix(r.Error(), "mcpServers.bad.command: is required") {
		t.Errorf("report does not start with the first entry's first problem:\n%s", r.Error())
	}
	if r.Err() == nil || (&Report{}).Err() != nil {
		t.Error("Err")
	}
	if f.Servers["good"].Problems() != nil || !f.Servers["good"].Valid() || f.Servers["bad"].Valid() {
		t.Error("Valid/Problems")
	}
	if err := problemsErr(f.Servers["good"].validate("good")); err != nil {
		t.Errorf("good: %v", err)
	}
	var p Problem
	if err := problemsErr(f.Servers["bad"].validate("bad")); !errors.As(err, &p) || p.Server != "bad" {
		t.Errorf("bad: error = %v, want a Problem", err)
	}
	if got := f.Servers["web"].Remote(); got != "https://example.com/mcp" {
		t.Errorf("Remote = %q", got)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "none.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestSyntaxErrors(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		line, col int
		msg       string
	}{
		{"missing value", "{\n  \"mcpServers\": {\n    \"a\": }\n}", 3, 10, "invalid character '}' looking for beginning of value"},
		{"trailing comma", "{\n  \"mcpServers\": {},\n}", 3, 1, "invalid character '}' looking for beginning of object key string"},
		{"half written", "{\n  \"mcpServers\": {\n    \"a\": {\"comm", 3, 15, "unexpected end of JSON input"},
		{"empty", "", 1, 1, `the file is empty: write {"mcpServers": {}} for a configuration without servers`},
		{"whitespace", " \n ", 1, 1, `the file is empty: write {"mcpServers": {}} for a configuration without servers`},
		{"array", "\n  []", 2, 3, `the top level must be an object, like {"mcpServers": {}}`},
		{"comment", "{\n  // servers\n}", 2, 3, "invalid character '/' looking for beginning of object key string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.json")
			writeFile(t, path, tt.doc)
			_, err := Load(path)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want a *SyntaxError", err)
			}
			if se.Line != tt.line || se.Column != tt.col || se.Msg != tt.msg || se.Path != path {
				t.Errorf("got %s:%d:%d %q, want %d:%d %q", se.Path, se.Line, se.Column, se.Msg, tt.line, tt.col, tt.msg)
			}
			if want := path + ": line " + itoa(tt.line) + ", column " + itoa(tt.col) + ": " + tt.msg; err.Error() != want {
				t.Errorf("Error() = %q, want %q", err, want)
			}
		})
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func TestVersion(t *testing.T) {
	tests := []struct{ doc, wantErr string }{
		{`{"version": 1, "mcpServers": {}}`, ""},
		{`{"version": 0}`, ""},
		{`{"version": 2, "mcpServers": {}}`, "version: 2 is newer than this Switchboard understands (1): update Switchboard"},
		{`{"version": "1"}`, `version: "1" is not a version: write "version": 1`},
		{`{"version": -1}`, `version: -1 is not a version: write "version": 1`},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.doc))
		if got := errString(err); got != tt.wantErr {
			t.Errorf("%s: err = %q, want %q", tt.doc, got, tt.wantErr)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// Every version's fixture loads to the same servers, and writes as the
// current version.
func TestMigrations(t *testing.T) {
	want, err := os.ReadFile("testdata/migrate/want.json")
	if err != nil {
		t.Fatal(err)
	}
	for v := 0; v <= CurrentVersion; v++ {
		name := "testdata/migrate/v" + itoa(v) + ".json"
		t.Run(name, func(t *testing.T) {
			f, err := Load(name)
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Report().Err(); err != nil {
				t.Fatalf("problems:\n%v", err)
			}
			got, err := f.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("migrated file:\n%s\nwant:\n%s", got, want)
			}
		})
	}
	if len(migrations) != CurrentVersion || migrations[len(migrations)-1].to != CurrentVersion {
		t.Errorf("the migrations do not end at version %d", CurrentVersion)
	}
}

func TestSecretRefs(t *testing.T) {
	s := &Server{Env: map[string]string{
		"A": "${keyring:b}", "B": "x ${keyring:a} ${keyring:b}", "C": "plain", "D": "${keyring:", "E": "$${keyring:c}",
	}}
	if got, want := s.SecretRefs(), []string{"a", "b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("SecretRefs = %v, want %v", got, want)
	}
	if (&Server{}).SecretRefs() != nil {
		t.Error("no env, no refs")
	}
}

func TestTools(t *testing.T) {
	tools := &Tools{Allow: []string{"read_*", "list_*"}, Deny: []string{"*_secret"}}
	for name, want := range map[string]bool{"read_file": true, "list_dir": true, "write_file": false, "read_secret": false} {
		if got := tools.Allows(name); got != want {
			t.Errorf("Allows(%q) = %v", name, got)
		}
	}
	if !(*Tools)(nil).Allows("x") || !(&Tools{Deny: []string{"a"}}).Allows("b") || (&Tools{Deny: []string{"a"}}).Allows("a") {
		t.Error("nil or deny-only Tools")
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"files": "files", "GitHub MCP": "github-mcp", "my_server": "my-server", "@scope/pkg": "scope-pkg",
		"--x--": "x", "a__b": "a-b", "???": "server", "": "server",
		"Extremely Long Server Name That Goes On": "extremely-long-server-name-that",
	} {
		got := NormalizeName(in)
		if got != want || !ValidServerName(got) {
			t.Errorf("NormalizeName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[[2]string]string{
		{"github", "GITHUB_PERSONAL_ACCESS_TOKEN"}:         "github-github_personal_access_token",
		{"brave-search", "BRAVE_API_KEY"}:                  "brave-search-brave_api_key",
		{"x", "Weird Var!"}:                                "x-weird-var",
		{strings.Repeat("s", 31), strings.Repeat("V", 60)}: strings.Repeat("s", 31) + "-" + strings.Repeat("v", 32),
	} {
		got := SuggestSecretName(in[0], in[1])
		if got != want || !ValidSecretName(got) {
			t.Errorf("SuggestSecretName(%q, %q) = %q, want %q", in[0], in[1], got, want)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
