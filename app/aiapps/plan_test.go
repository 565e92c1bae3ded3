package aiapps

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// planEnv is the environment of the import in these tests: HOME and a few
// variables set, SB_TEST_UNSET_VARIABLE and MEMORY_DIR not.
func planEnv() Env {
	vars := map[string]string{
		"HOME":           "/home/user",
		"NOTES_TOKEN":    "tok_notes_0123456789",
		"SEARCH_API_KEY": "sk-search-0123456789",
		"DATABASE_URL":   "postgres://db.internal/app",
		"SB_GEMINI_DIR":  "/srv/gem",
	}
	return Env{GOOS: "linux", Getenv: func(k string) string { return vars[k] }}
}

func readFixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "import", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func parseFixture(t *testing.T, app *App, name string) *Doc {
	t.Helper()
	doc, err := app.Parse(readFixture(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// want is what the plan must say of one entry: "import" (with the
// command, args and env it is imported with, when given), "same" (taken
// with an earlier entry of the same name and command), or a substring
// of the reason it stays.
type want struct {
	skip    string // "" for an imported entry
	same    bool
	command string
	args    []string
	env     map[string]string
	notIn   string // must not appear in the reason (a secret of the URL)
	url     string // a remote entry's
	typ     string
	headers map[string]string
}

func checkPlan(t *testing.T, p *ImportPlan, wants map[string]want) {
	t.Helper()
	seen := map[string]bool{}
	for i, e := range p.Entries {
		key := e.Name + p.Where(i)
		seen[key] = true
		w, ok := wants[key]
		if !ok {
			t.Errorf("%s: not expected in the plan (skip %q)", key, e.Skip)
			continue
		}
		if w.skip != "" {
			if e.Skip == "" || !strings.Contains(e.Skip, w.skip) {
				t.Errorf("%s: skip %q, want it to say %q", key, e.Skip, w.skip)
			}
			if e.Server != nil {
				t.Errorf("%s: skipped but has a server", key)
			}
			if w.notIn != "" && strings.Contains(e.Skip, w.notIn) {
				t.Errorf("%s: the reason shows %q: %s", key, w.notIn, e.Skip)
			}
			continue
		}
		if e.Skip != "" {
			t.Errorf("%s: skipped (%s), want it imported", key, e.Skip)
			continue
		}
		if w.same != (e.SameAs >= 0) {
			t.Errorf("%s: SameAs %d, want same=%v", key, e.SameAs, w.same)
		}
		if w.command != "" && e.Server.Command != w.command {
			t.Errorf("%s: command %q, want %q", key, e.Server.Command, w.command)
		}
		if w.args != nil && !slices.Equal(e.Server.Args, w.args) {
			t.Errorf("%s: args %q, want %q", key, e.Server.Args, w.args)
		}
		if w.url != "" && (e.Server.URL != w.url || e.Server.Type != w.typ || e.Server.Command != "") {
			t.Errorf("%s: url %q type %q command %q, want url %q type %q", key, e.Server.URL, e.Server.Type, e.Server.Command, w.url, w.typ)
		}
		for k, v := range w.headers {
			if e.Server.Headers[k] != v {
				t.Errorf("%s: headers %s = %q, want %q", key, k, e.Server.Headers[k], v)
			}
		}
		for k, v := range w.env {
			if e.Server.Env[k] != v {
				t.Errorf("%s: env %s = %q, want %q", key, k, e.Server.Env[k], v)
			}
		}
		if len(e.Server.Problems()) > 0 {
			t.Errorf("%s: problems %v", key, e.Server.Problems())
		}
	}
	for k := range wants {
		if !seen[k] {
			t.Errorf("%s: missing from the plan", k)
		}
	}
	// Skipped lists exactly the entries with a reason, each once.
	n := 0
	for _, e := range p.Entries {
		if e.Skip != "" {
			n++
		}
	}
	if got := p.Skipped(); len(got) != n {
		t.Errorf("Skipped has %d lines, %d entries are skipped", len(got), n)
	}
}

// TestPlanImport: table tests over real-looking files: VS Code's mcp.json
// with inputs and workspace variables, Claude Code's ~/.claude.json with
// projects, a project's .mcp.json, and apps whose variables Switchboard
// does not know.
func TestPlanImport(t *testing.T) {
	vscode, _ := Lookup("vscode")
	cc, _ := Lookup("claude-code")
	ccDoc := func(t *testing.T) *Doc { return parseFixture(t, cc, "claude.json") }
	project := func(d *Doc, key, hold string) ImportSource {
		return ImportSource{Doc: d.ClaudeProject(key), Path: "/home/user/.claude.json", Project: key, Hold: hold}
	}
	userScope := map[string]want{
		"memory":   {command: "npx", env: map[string]string{"MEMORY_FILE_PATH": "/var/tmp/memory.json"}},
		"search":   {env: map[string]string{"SEARCH_API_KEY": "sk-search-0123456789"}},
		"broken":   {skip: "${SB_TEST_UNSET_VARIABLE}: SB_TEST_UNSET_VARIABLE is not set in this environment"},
		"linear":   {url: "https://mcp.linear.app/mcp", typ: "http"},
		"streamed": {url: "https://stream.example.com/mcp", typ: "streamable-http"},
	}
	with := func(base map[string]want, more map[string]want) map[string]want {
		out := map[string]want{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range more {
			out[k] = v
		}
		return out
	}
	cases := []struct {
		name    string
		app     *App
		sources func(t *testing.T) []ImportSource
		wants   map[string]want
	}{
		{
			name: "vscode mcp.json with inputs",
			app:  vscode,
			sources: func(t *testing.T) []ImportSource {
				return []ImportSource{{Doc: parseFixture(t, vscode, "vscode-mcp.json"), Path: "mcp.json"}}
			},
			wants: map[string]want{
				"github":      {skip: "${input:github-token} is asked of you by VS Code when it starts the server: it only has a value inside VS Code"},
				"files":       {skip: "${workspaceFolder} is the open folder, file or editor state of VS Code"},
				"folder-name": {skip: "${workspaceFolderBasename}"},
				"picked":      {skip: "${command:extension.pickFile} runs a command of VS Code"},
				"notes": {
					command: "/home/user/bin/notes-mcp", args: []string{"--dir", "/home/user/notes"},
					env: map[string]string{"NOTES_TOKEN": "tok_notes_0123456789", "PATTERN": "a$${b"},
				},
				"needs-unset":    {skip: "SB_TEST_UNSET_VARIABLE is not set in this environment"},
				"dotenv":         {skip: `"envFile"`},
				"web":            {skip: "${input:github-token} is asked of you by VS Code", notIn: "abc123secret"},
				"events":         {url: "https://events.example.com/sse", typ: "sse"},
				"proxied":        {url: "https://remote.example.com/mcp"},
				"proxied-pinned": {url: "https://pinned.example.com/sse", headers: map[string]string{"X": "y"}},
				"plain":          {command: "/usr/local/bin/plain-mcp", args: []string{"serve"}},
			},
		},
		{
			name: "claude.json: user scope, projects held",
			app:  cc,
			sources: func(t *testing.T) []ImportSource {
				d := ccDoc(t)
				return []ImportSource{{Doc: d, Path: "/home/user/.claude.json"},
					project(d, "/home/user/work/api", "held: ask with --project"),
					project(d, "/home/user/work/web", "held: ask with --project")}
			},
			wants: with(userScope, map[string]want{
				"postgres (project /home/user/work/api)": {skip: "held: ask with --project"},
				"memory (project /home/user/work/api)":   {skip: "held: ask with --project"},
				"memory (project /home/user/work/web)":   {skip: "held: ask with --project"},
				"sentry (project /home/user/work/web)":   {skip: "held: ask with --project"},
			}),
		},
		{
			name: "claude.json: every project",
			app:  cc,
			sources: func(t *testing.T) []ImportSource {
				d := ccDoc(t)
				return []ImportSource{{Doc: d, Path: "/home/user/.claude.json"},
					project(d, "/home/user/work/api", ""), project(d, "/home/user/work/web", "")}
			},
			wants: with(userScope, map[string]want{
				"postgres (project /home/user/work/api)": {args: []string{"-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/api"}},
				"memory (project /home/user/work/api)":   {same: true},
				"memory (project /home/user/work/web)":   {skip: `"memory" is also imported as memory and runs another command`},
				"sentry (project /home/user/work/web)":   {url: "https://mcp.sentry.dev/sse", typ: "sse"},
			}),
		},
		{
			name: "a project's .mcp.json",
			app:  cc,
			sources: func(t *testing.T) []ImportSource {
				papp, path := ClaudeProjectFile("/home/user/work/api")
				return []ImportSource{{Doc: parseFixture(t, papp, "project-mcp.json"), Path: path, Project: "/home/user/work/api"}}
			},
			wants: map[string]want{
				"playwright (/home/user/work/api/.mcp.json)":  {command: "npx", args: []string{"@playwright/mcp@latest"}},
				"db (/home/user/work/api/.mcp.json)":          {command: "db-mcp", args: []string{"--url", "postgres://db.internal/app"}},
				"remote-docs (/home/user/work/api/.mcp.json)": {url: "https://docs.example.com/mcp"},
			},
		},
		{
			name: "an app whose variables are not known",
			app:  mustLookup(t, "claude-desktop"),
			sources: func(t *testing.T) []ImportSource {
				d, err := mustLookup(t, "claude-desktop").Parse([]byte(`{"mcpServers": {
					"a": {"command": "tool", "args": ["${HOME}/x"]},
					"b": {"command": "tool", "env": {"K": "$HOME"}},
					"c": {"command": "pnpm", "args": ["dlx", "mcp-remote", "http://localhost:3000/mcp"]}}}`))
				if err != nil {
					t.Fatal(err)
				}
				return []ImportSource{{Doc: d, Path: "claude_desktop_config.json"}}
			},
			wants: map[string]want{
				"a": {skip: "${HOME}: Switchboard does not know what Claude Desktop puts in its place"},
				"b": {env: map[string]string{"K": "$HOME"}},
				"c": {url: "http://localhost:3000/mcp"}, // pnpm dlx runs mcp-remote as npx does
			},
		},
		{
			name: "gemini $VAR and ${VAR}",
			app:  mustLookup(t, "gemini-cli"),
			sources: func(t *testing.T) []ImportSource {
				d, err := mustLookup(t, "gemini-cli").Parse([]byte(`{"mcpServers": {
					"a": {"command": "$SB_GEMINI_DIR/bin/a", "args": ["${SB_GEMINI_DIR}", "cost$5"]},
					"b": {"command": "b", "args": ["$SB_TEST_UNSET_VARIABLE"]},
					"c": {"httpUrl": "https://gem.example.com/mcp"}}}`))
				if err != nil {
					t.Fatal(err)
				}
				return []ImportSource{{Doc: d, Path: "settings.json"}}
			},
			wants: map[string]want{
				"a": {command: "/srv/gem/bin/a", args: []string{"/srv/gem", "cost$5"}},
				"b": {skip: "$SB_TEST_UNSET_VARIABLE: SB_TEST_UNSET_VARIABLE is not set"},
				"c": {url: "https://gem.example.com/mcp", typ: "http"},
			},
		},
		{
			name: "windsurf serverUrl and ${file:}",
			app:  mustLookup(t, "windsurf"),
			sources: func(t *testing.T) []ImportSource {
				d, err := mustLookup(t, "windsurf").Parse([]byte(`{"mcpServers": {
					"a": {"serverUrl": "https://user:pw@ws.example.com/mcp#frag"},
					"b": {"command": "b", "env": {"TOKEN": "${file:/home/user/.secrets/token}"}},
					"c": {"command": "c", "env": {"TOKEN": "${env:NOTES_TOKEN}"}}}}`))
				if err != nil {
					t.Fatal(err)
				}
				return []ImportSource{{Doc: d, Path: "mcp_config.json"}}
			},
			wants: map[string]want{
				"a": {skip: "holds a user name or password", notIn: "pw@"},
				"b": {skip: "is read from a file by Windsurf"},
				"c": {env: map[string]string{"TOKEN": "tok_notes_0123456789"}},
			},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := PlanImport(c.app, planEnv(), c.sources(t))
			checkPlan(t, p, c.wants)
		})
	}
}

func mustLookup(t *testing.T, id string) *App {
	t.Helper()
	a, err := Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestPlanImportDetails: what the plan records besides the verdict: the
// variables expanded (never their values), the literal secrets of an
// imported entry, and none of a skipped one.
func TestPlanImportDetails(t *testing.T) {
	vscode, _ := Lookup("vscode")
	p := PlanImport(vscode, planEnv(), []ImportSource{{Doc: parseFixture(t, vscode, "vscode-mcp.json"), Path: "mcp.json"}})
	for i, e := range p.Entries {
		switch e.Name {
		case "notes":
			if !slices.Equal(e.Expanded, []string{"${userHome}", "${/}", "${env:NOTES_TOKEN}"}) {
				t.Errorf("expanded %q", e.Expanded)
			}
			if len(e.Secrets) != 1 || e.Secrets[0].Var != "NOTES_TOKEN" || e.Secrets[0].Value != "tok_notes_0123456789" {
				t.Errorf("secrets %+v", e.Secrets)
			}
		case "github":
			if len(e.Secrets) != 0 || e.Server != nil {
				t.Errorf("a skipped entry has secrets or a server")
			}
			if l := p.Label(i); l != `"github"` {
				t.Errorf("label %s", l)
			}
		}
	}
	if got := p.Importable(); len(got) != 5 { // notes, plain, and the remote events, proxied, proxied-pinned
		t.Errorf("importable %v", got)
	}
}

// TestClaudeProjects: the projects Claude Code knows, and a
// project's block edited through its own Doc: the rest of ~/.claude.json
// stays byte for byte, and an emptied mcpServers stays as {} (as Claude
// Code writes it).
func TestClaudeProjects(t *testing.T) {
	cc, _ := Lookup("claude-code")
	in := readFixture(t, "claude.json")
	doc, err := cc.Parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := doc.ClaudeProjects(); !slices.Equal(got, []string{"/home/user/work/api", "/home/user/work/web", "/home/user/empty"}) {
		t.Fatalf("projects %q", got)
	}
	if doc.ClaudeProject("/nowhere") != nil {
		t.Fatal("a project that is not there")
	}
	api := doc.ClaudeProject("/home/user/work/api")
	api.Remove("postgres", "memory")
	out := doc.Bytes()
	// Exactly the two entries went; the block's mcpServers is {}.
	start := bytes.Index(in, []byte(`"mcpServers": {`+"\n        \"postgres\""))
	end := bytes.Index(in, []byte(`      "enabledMcpjsonServers"`))
	if start < 0 || end < 0 {
		t.Fatal("fixture changed")
	}
	want := string(in[:start]) + `"mcpServers": {}` + ",\n" + string(in[end:])
	if string(out) != want {
		t.Fatalf("after removing the project's servers:\n%s", Diff("want", "got", []byte(want), out))
	}
	// The user-scope servers and the other project are untouched.
	if n := len(doc.Servers()); n != 5 {
		t.Fatalf("user scope has %d servers", n)
	}
	if n := len(doc.ClaudeProject("/home/user/work/web").Servers()); n != 2 {
		t.Fatalf("web has %d servers", n)
	}

	// A bridge entry put in a project's block takes the block's style.
	doc, _ = cc.Parse(in)
	web := doc.ClaudeProject("/home/user/work/web")
	web.Replace([]string{"memory"}, Bridge{Command: "/opt/switchboard/bin/switchboard"})
	after, err := cc.Parse(doc.Bytes())
	if err != nil {
		t.Fatalf("%v:\n%s", err, doc.Bytes())
	}
	b, _, ok := after.ClaudeProject("/home/user/work/web").Connected()
	if !ok || b.Command != "/opt/switchboard/bin/switchboard" {
		t.Fatalf("web's bridge: %+v %v\n%s", b, ok, doc.Bytes())
	}
	if _, _, ok := after.Connected(); ok {
		t.Fatal("the user scope got a bridge")
	}
}

// TestRemoteURL: which entries are remote, and their URLs as a report
// shows them (no user info, query or fragment).
func TestRemoteURL(t *testing.T) {
	for in, want := range map[string]string{
		`{"url": "https://a.example/mcp?token=x"}`:     "https://a.example/mcp",
		`{"serverUrl": "https://u:p@b.example/sse#f"}`: "https://b.example/sse",
		`{"httpUrl": "http://localhost:8080/mcp"}`:     "http://localhost:8080/mcp",
		`{"type": "sse"}`:                       "type sse",
		`{"type": "streamable-http", "url": 5}`: "type streamable-http",
		`{"command": "npx", "args": ["-y", "mcp-remote", "https://c.example/mcp"]}`:          "mcp-remote https://c.example/mcp",
		`{"command": "npx", "args": ["mcp-remote@latest", "https://d.example/mcp?k=v"]}`:     "mcp-remote https://d.example/mcp",
		`{"command": "C:\\nodejs\\npx.cmd", "args": ["-y", "mcp-remote", "http://e/mcp"]}`:   "mcp-remote http://e/mcp",
		`{"command": "yarn", "args": ["dlx", "mcp-remote", "https://f.example/mcp"]}`:        "mcp-remote https://f.example/mcp",
		`{"command": "npm", "args": ["exec", "--yes", "mcp-remote", "https://g.example/x"]}`: "mcp-remote https://g.example/x",
		`{"command": "/usr/local/bin/mcp-remote", "args": ["https://h.example/mcp"]}`:        "mcp-remote https://h.example/mcp",
		`{"command": "npx", "args": ["-y", "mcp-remote"]}`:                                   "mcp-remote (no URL)",
		`{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}`:      "",
		`{"command": "npx", "args": ["-y", "some-server", "mcp-remote", "https://i/x"]}`:     "",
		`{"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]}`:                  "",
		`{"command": "mcp-remote"}`: "",
	} {
		got, ok := remoteURL([]byte(in))
		if ok != (want != "") || got != want {
			t.Errorf("%s: %q %v, want %q", in, got, ok, want)
		}
	}
}

// TestExpandStyles: each app's forms of variables, expanded or stuck.
func TestExpandStyles(t *testing.T) {
	env := planEnv()
	win := Env{GOOS: "windows", Getenv: func(k string) string {
		return map[string]string{"USERPROFILE": `C:\Users\me`}[k]
	}}
	for _, c := range []struct {
		app, in, out string
		env          Env
		stuck        string
	}{
		{"vscode", "${userHome}${/}x${pathSeparator}y", `C:\Users\me\x\y`, win, ""},
		{"vscode", "${env:DATABASE_URL}", "postgres://db.internal/app", env, ""},
		{"vscode", "${env:}", "${env:}", env, "is not set"},
		{"vscode", "${workspaceFolder:api}/x", "${workspaceFolder:api}/x", env, "only has a value inside VS Code"},
		{"vscode", "${nonsense}", "${nonsense}", env, "does not know this variable"},
		{"cursor", "${userHome}/.cursor", "/home/user/.cursor", env, ""},
		{"claude-code", "${SB_TEST_UNSET_VARIABLE:-fallback}", "fallback", env, ""},
		{"claude-code", "$HOME/x", "$HOME/x", env, ""}, // Claude Code does not expand $VAR
		{"claude-code", "${env:HOME}", "${env:HOME}", env, "does not know this form"},
		{"copilot-cli", "$HOME ${HOME} ${SB_TEST_UNSET_VARIABLE:-d}", "/home/user /home/user d", env, ""},
		{"copilot-cli", "${SB_TEST_UNSET_VARIABLE}", "${SB_TEST_UNSET_VARIABLE}", env, "is not set"},
		{"kiro-cli", "${HOME}/k", "/home/user/k", env, ""},
		{"kiro-cli", "${X:-d}", "${X:-d}", env, "does not know this form"},
		{"lm-studio", "a ${HOME}", "a ${HOME}", env, "does not know what LM Studio puts in its place"},
		{"lm-studio", "$HOME", "$HOME", env, ""},
	} {
		app := &App{ID: c.app, Name: c.app}
		if a, err := Lookup(c.app); err == nil {
			app = a
		}
		x := newExpander(app, c.env)
		got := x.expand(c.in)
		stuck := strings.Join(x.stuck, "; ")
		if got != c.out || (c.stuck == "") != (stuck == "") || !strings.Contains(stuck, c.stuck) {
			t.Errorf("%s %q: %q (stuck %q), want %q (stuck %q)", c.app, c.in, got, stuck, c.out, c.stuck)
		}
	}
}

// A Goose extension whose variables come from Goose's secret store stays
// in Goose through the plan too (the import, the dry run and the window).
func TestPlanImportGooseSecretStore(t *testing.T) {
	goose, err := Lookup("goose")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := goose.Parse([]byte("extensions:\n  gh:\n    enabled: true\n    type: stdio\n    name: gh\n    cmd: gh-mcp\n    args: []\n    env_keys:\n      - GITHUB_TOKEN\n  fs:\n    enabled: true\n    type: stdio\n    name: fs\n    cmd: fs-mcp\n    args: []\n"))
	if err != nil {
		t.Fatal(err)
	}
	p := PlanImport(goose, planEnv(), []ImportSource{{Doc: doc, Path: "config.yaml"}})
	got := map[string]string{}
	for _, e := range p.Entries {
		got[e.Name] = e.Skip
	}
	if !strings.Contains(got["gh"], "Goose's secret store") || got["fs"] != "" || len(got) != 2 {
		t.Fatalf("plan: %q", got)
	}
}
