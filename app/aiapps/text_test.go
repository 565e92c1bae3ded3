package aiapps

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// textApps are the apps whose files are not JSON.
func textApps(t *testing.T) []*App {
	var out []*App
	for _, a := range Apps() {
		if a.format != nil {
			out = append(out, a)
		}
	}
	if len(out) != 3 {
		t.Fatalf("%d apps with a text format, want 3 (codex, continue, goose)", len(out))
	}
	return out
}

func textExt(app *App) string {
	if _, ok := app.format.(tomlTables); ok {
		return ".toml"
	}
	return ".yaml"
}

// textCases are the inputs of testdata/edit/APP/*.toml|yaml, and
// "missing" (no file).
func textCases(t *testing.T, app *App) []editCase {
	t.Helper()
	cases := []editCase{{name: "missing"}}
	files, _ := filepath.Glob(filepath.Join("testdata", "edit", app.ID, "*"+textExt(app)))
	for _, p := range files {
		name := strings.TrimSuffix(filepath.Base(p), textExt(app))
		if strings.Contains(name, ".") {
			continue // a golden file
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, editCase{name, b})
	}
	if len(cases) < 8 {
		t.Fatalf("%s: only %d inputs", app.ID, len(cases))
	}
	return cases
}

// hashComments returns what follows a '#' on each line of a TOML or YAML
// text (comments, and values with a '#'), in order.
func hashComments(b []byte) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n") {
		if i := strings.Index(l, "#"); i >= 0 {
			out = append(out, l[i:])
		}
	}
	return out
}

// TestEditGoldenText: connect, for Codex (TOML), Goose and Continue
// (YAML), against golden files; the result parses, its entry is the
// bridge and nothing else, the rest of the file means what it meant and
// keeps its comments, byte order mark and line endings; a second connect
// changes nothing; disconnect gives the input back byte for byte (except
// where noted in restoredExactlyText).
func TestEditGoldenText(t *testing.T) {
	for _, app := range textApps(t) {
		for _, c := range textCases(t, app) {
			t.Run(app.ID+"/"+c.name, func(t *testing.T) {
				b := bridgeFor(c.name)
				doc, err := app.Parse(c.input)
				if err != nil {
					t.Fatal(err)
				}
				if !doc.SetBridge(b) {
					t.Fatal("connect changed nothing")
				}
				out := doc.Bytes()
				golden(t, filepath.Join("testdata", "edit", app.ID, c.name+".connected"+textExt(app)), out)
				checkConnectedText(t, app, b, c.input, out)

				again, err := app.Parse(out)
				if err != nil {
					t.Fatalf("the result does not parse: %v\n%s", err, out)
				}
				if again.SetBridge(b) || !bytes.Equal(again.Bytes(), out) {
					t.Fatal("a second connect changed the file")
				}
				if got, _, ok := again.Connected(); !ok || got.Command != b.Command || !slices.Equal(got.Servers, b.Servers) {
					t.Fatalf("Connected() = %+v %v, want %+v", got, ok, b)
				}
				if !again.Disconnect() {
					t.Fatal("disconnect found no entry")
				}
				back := again.Bytes()
				if restoredExactlyText(c.name) {
					if !bytes.Equal(back, c.input) {
						t.Fatalf("disconnect did not restore the input:\n%s\n%q\n%q", Diff("input", "after disconnect", c.input, back), c.input, back)
					}
				} else {
					golden(t, filepath.Join("testdata", "edit", app.ID, c.name+".disconnected"+textExt(app)), back)
				}
				if _, _, ok := again.Connected(); ok || again.Disconnect() {
					t.Fatal("still connected after disconnect")
				}
				if !strings.HasPrefix(c.name, "stale") && !slices.Equal(hashComments(back), hashComments(c.input)) {
					t.Fatalf("comments after disconnect: %q, want %q", hashComments(back), hashComments(c.input))
				}
			})
		}
	}
}

// restoredExactlyText: the exceptions by design are a file that was
// missing or empty (it now holds the key, or Continue's name and
// version), a servers' key that held nothing ("extensions: {}",
// "mcpServers: []": the key goes), and an entry that was there before
// connect (stale).
func restoredExactlyText(name string) bool {
	return name != "missing" && !strings.HasPrefix(name, "empty") && !strings.HasPrefix(name, "stale")
}

func checkConnectedText(t *testing.T, app *App, b Bridge, in, out []byte) {
	t.Helper()
	f := app.format
	outDoc, _, err := f.scan(bytes.TrimPrefix(out, utf8BOM))
	if err != nil {
		t.Fatalf("the result does not parse: %v\n%s", err, out)
	}
	src := bytes.TrimPrefix(in, utf8BOM)
	if len(bytes.TrimSpace(src)) == 0 && app.seed != "" {
		src = []byte(app.seed)
	}
	inDoc, _, err := f.scan(src)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(f.without(outDoc, EntryName), f.without(inDoc, EntryName)) {
		t.Fatalf("the rest of the file changed:\n in: %v\nout: %v", f.without(inDoc, EntryName), f.without(outDoc, EntryName))
	}
	v, ok := f.entryValue(outDoc, EntryName)
	if !ok {
		t.Fatalf("no %q entry: %v", EntryName, outDoc)
	}
	raw, _ := json.Marshal(jsonable(v))
	var entry map[string]any
	if err := json.Unmarshal(raw, &entry); err != nil {
		t.Fatal(err)
	}
	checkEntry(t, app, b, entry)
	if bytes.HasPrefix(in, utf8BOM) != bytes.HasPrefix(out, utf8BOM) {
		t.Fatal("the byte order mark was not kept")
	}
	if bytes.Contains(in, []byte("\r\n")) && bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
		t.Fatalf("CRLF in, a bare LF out:\n%q", out)
	}
	if got, want := hashComments(out), hashComments(in); !isSubsequence(want, got) {
		t.Fatalf("comments: %q, want %q among them", got, want)
	}
	if len(in) > 0 && !bytes.HasSuffix(in, []byte("\n")) && bytes.HasSuffix(out, []byte("\n")) {
		t.Fatal("a file without a line break at its end got one")
	}
}

func isSubsequence(sub, seq []string) bool {
	i := 0
	for _, s := range seq {
		if i < len(sub) && sub[i] == s {
			i++
		}
	}
	return i == len(sub)
}

// TestImportGoldenText: what `clients import --yes` does to a Codex,
// Goose or Continue file: the entries Switchboard takes go, the bridge
// entry comes, the rest stays (golden NAME.imported.toml|yaml).
func TestImportGoldenText(t *testing.T) {
	for _, app := range textApps(t) {
		for _, c := range textCases(t, app) {
			doc, err := app.Parse(c.input)
			if err != nil {
				t.Fatal(err)
			}
			block, names, _ := doc.ImportBlock()
			if len(names) == 0 {
				continue
			}
			t.Run(app.ID+"/"+c.name, func(t *testing.T) {
				servers, _, _, err := config.ParseImport(block)
				if err != nil {
					t.Fatal(err)
				}
				var taken []string
				for _, n := range names {
					if servers[n] != nil {
						taken = append(taken, n)
					}
				}
				doc.Replace(taken, Bridge{Command: "/opt/switchboard/bin/switchboard"})
				out := doc.Bytes()
				golden(t, filepath.Join("testdata", "edit", app.ID, c.name+".imported"+textExt(app)), out)
				after, err := app.Parse(out)
				if err != nil {
					t.Fatal(err)
				}
				var left []string
				for _, s := range after.Servers() {
					left = append(left, s.Name)
				}
				for _, n := range taken {
					if slices.Contains(left, n) {
						t.Errorf("%s is still in the app", n)
					}
				}
				if !slices.Contains(left, EntryName) {
					t.Error("no bridge entry")
				}
			})
		}
	}
}

// TestImportBlockText: the apps' own keys become Switchboard's.
func TestImportBlockText(t *testing.T) {
	for _, tc := range []struct {
		app, in string
		want    map[string]string // server: its entry in the block, as JSON
		skipped []string
	}{
		{"codex", "[mcp_servers.gh]\ncommand = \"npx\"\nargs = [\"-y\", \"gh\"]\nenv_vars = [\"HTTPS_PROXY\"]\nstartup_timeout_sec = 20\ntool_timeout_sec = 90\nenabled = false\nenabled_tools = [\"a\"]\n[mcp_servers.gh.tools.a]\napproval_mode = \"approve\"\n",
			map[string]string{"gh": `{"args":["-y","gh"],"callTimeout":90000,"command":"npx","disabled":true,"handshakeTimeout":20000,"inheritEnv":["HTTPS_PROXY"],"tools":{"allow":["a"]}}`}, nil},
		{"goose", "extensions:\n  dev:\n    type: builtin\n    name: developer\n    enabled: true\n  gh:\n    type: stdio\n    name: gh\n    cmd: npx\n    args: [-y, gh]\n    envs: {TOKEN_X: abc}\n    enabled: false\n    timeout: 300\n",
			map[string]string{"gh": `{"args":["-y","gh"],"callTimeout":300000,"command":"npx","disabled":true,"env":{"TOKEN_X":"abc"}}`}, nil},
		{"goose", "extensions:\n  gh:\n    type: stdio\n    name: gh\n    cmd: npx\n    args: [gh]\n    env_keys: [GITHUB_TOKEN]\n    enabled: true\n  ok:\n    type: stdio\n    name: ok\n    cmd: uvx\n    args: [ok]\n    env_keys: []\n    enabled: true\n",
			map[string]string{"ok": `{"args":["ok"],"command":"uvx"}`}, []string{`"gh": not imported: its variable GITHUB_TOKEN comes from Goose's secret store`}},
		{"continue", "mcpServers:\n  - name: fs\n    command: npx\n    args: [-y, fs]\n    env: {A: b}\n  - name: remote\n    type: sse\n    url: https://x.example/sse\n",
			map[string]string{"fs": `{"args":["-y","fs"],"command":"npx","env":{"A":"b"}}`, "remote": `{"type":"sse","url":"https://x.example/sse"}`}, nil},
		{"codex", "[mcp_servers.docs]\nurl = \"https://docs.example.com/mcp\"\nbearer_token_env_var = \"DOCS_TOKEN\"\n[mcp_servers.web]\nurl = \"https://web.example.com/mcp\"\n",
			map[string]string{"web": `{"url":"https://web.example.com/mcp"}`}, []string{`"docs": not imported: its bearer token comes from the variable DOCS_TOKEN`}},
		{"copilot-cli", `{"mcpServers": {"gh": {"type": "local", "command": "npx", "args": ["gh"], "tools": ["*"]}, "pw": {"type": "local", "command": "npx", "args": ["pw"], "tools": ["nav"], "timeout": 5000}}}`,
			map[string]string{"gh": `{"args":["gh"],"command":"npx","type":"stdio"}`, "pw": `{"args":["pw"],"callTimeout":5000,"command":"npx","tools":{"allow":["nav"]},"type":"stdio"}`}, nil},
		{"cline", `{"mcpServers": {"fs": {"command": "npx", "args": ["fs"], "timeout": 60, "autoApprove": []}, "sq": {"transport": {"type": "stdio", "command": "uvx", "args": ["sq"]}}}}`,
			map[string]string{"fs": `{"args":["fs"],"callTimeout":60000,"command":"npx"}`, "sq": `{"args":["sq"],"command":"uvx","type":"stdio"}`}, nil},
		{"kiro-cli", `{"mcpServers": {"aws": {"command": "uvx", "args": ["aws"], "disabledTools": ["x"], "autoApprove": ["y"]}}}`,
			map[string]string{"aws": `{"args":["aws"],"command":"uvx","tools":{"deny":["x"]}}`}, nil},
	} {
		app, err := Lookup(tc.app)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := app.Parse([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.app, err)
		}
		block, _, skipped0 := doc.ImportBlock()
		var got struct {
			MCPServers map[string]json.RawMessage `json:"mcpServers"`
		}
		if err := json.Unmarshal(block, &got); err != nil {
			t.Fatalf("%s: %v: %s", tc.app, err, block)
		}
		for name, want := range tc.want {
			var a, b any
			_ = json.Unmarshal(got.MCPServers[name], &a)
			_ = json.Unmarshal([]byte(want), &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s %s: %s, want %s", tc.app, name, got.MCPServers[name], want)
			}
		}
		servers, skipped, _, err := config.ParseImport(block)
		if err != nil {
			t.Fatalf("%s: %v", tc.app, err)
		}
		skipped = append(skipped, skipped0...)
		if len(servers) != len(tc.want) {
			t.Errorf("%s: imported %d servers, want %d (skipped %q)", tc.app, len(servers), len(tc.want), skipped)
		}
		for _, s := range tc.skipped {
			if !slices.ContainsFunc(skipped, func(x string) bool { return strings.Contains(x, s) }) {
				t.Errorf("%s: %s not skipped: %q", tc.app, s, skipped)
			}
		}
	}
}

// TestParseErrorsText: a file that is not valid, or whose servers are
// written in a form the text edits do not handle, is refused with what to
// do, and never changed.
func TestParseErrorsText(t *testing.T) {
	for _, tc := range []struct{ app, in, want string }{
		{"codex", "model = \n", "not valid TOML"},
		{"codex", "mcp_servers = { a = { command = \"x\" } }\n", "does not edit"},
		{"codex", "mcp_servers = 3\n", "not a table"},
		{"goose", "extensions: [a, b]\n", "not a mapping"},
		{"goose", "extensions: {a: {cmd: x, type: stdio}}\n", "one line"},
		{"goose", "a: b\n---\nc: d\n", "more than one YAML document"},
		{"goose", "- a\n- b\n", "top level is not a mapping"},
		{"goose", "extensions:\n  a: [\n", "not valid YAML"},
		{"continue", "mcpServers:\n  fs:\n    command: x\n", "not a list"},
		{"continue", "mcpServers: [{name: a, command: x}]\n", "one line"},
	} {
		app, _ := Lookup(tc.app)
		_, err := app.Parse([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %q: %v, want %q", tc.app, tc.in, err, tc.want)
		}
	}
}

// FuzzTextEdit: whatever a TOML or YAML file holds, if Switchboard parses
// it, connect gives a file that parses, holds the entry and means what it
// meant otherwise, and disconnect gives back what it meant (the same
// bytes when the input had no entry and its servers' key held something or
// was absent). Seeds: the fixtures.
func FuzzTextEdit(f *testing.F) {
	for _, app := range Apps() {
		if app.format == nil {
			continue
		}
		files, _ := filepath.Glob(filepath.Join("testdata", "edit", app.ID, "*"+textExt(app)))
		for _, p := range files {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(app.ID, b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, id string, in []byte) {
		app, err := Lookup(id)
		if err != nil || app.format == nil {
			return
		}
		doc, err := app.Parse(in)
		if err != nil {
			return
		}
		had := len(doc.text.entries)
		if !doc.SetBridge(Bridge{Command: "/x/switchboard", Servers: []string{"a"}}) {
			if _, _, ok := doc.Connected(); !ok {
				t.Fatalf("connect changed nothing and there is no entry:\n%q", in)
			}
			return
		}
		out := doc.Bytes()
		again, err := app.Parse(out)
		if err != nil {
			t.Fatalf("the result does not parse: %v\n%q\n%q", err, in, out)
		}
		if b, _, ok := again.Connected(); !ok || b.Command != "/x/switchboard" {
			t.Fatalf("no entry after connect:\n%q", out)
		}
		if len(again.text.entries) < had {
			t.Fatalf("connect lost entries:\n%q\n%q", in, out)
		}
		again.Disconnect()
		f := app.format
		back, _, err := f.scan(bytes.TrimPrefix(again.Bytes(), utf8BOM)) // not Parse: no seed for an emptied file
		if err != nil {
			t.Fatalf("the result of disconnect does not parse: %v", err)
		}
		if !reflect.DeepEqual(f.without(back, EntryName), f.without(doc.text.doc, EntryName)) {
			t.Fatalf("connect and disconnect changed the meaning:\n%q\n%q", in, again.Bytes())
		}
	})
}
