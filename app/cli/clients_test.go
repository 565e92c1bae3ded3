//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/tailscale/hujson"
)

const fakeExe = "/opt/switchboard/bin/switchboard"

// clientsUnit is a unit (no host, in-memory keyring) with a fresh HOME and
// the bridge's binary at fakeExe.
func clientsUnit(t *testing.T) (*unit, string) {
	t.Helper()
	u := newUnit(t)
	home := filepath.Join(u.dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	old := bridgeExecutable
	bridgeExecutable = func() (string, error) { return fakeExe, nil }
	t.Cleanup(func() { bridgeExecutable = old })
	return u, home
}

// appFile returns the app's config file under the unit's HOME (and
// XDG_CONFIG_HOME), as the command finds it.
func appFile(t *testing.T, id string) string {
	t.Helper()
	app, err := aiapps.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := app.Locate(aiapps.OSEnv(nil), pathExists)
	if err != nil {
		t.Fatal(err)
	}
	return loc.Path
}

func writeApp(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// appContent is a config file for app with an unrelated server holding a
// token, another top-level key, and (where the format has them) comments
// and trailing commas.
func appContent(app *aiapps.App) string {
	switch app.ID {
	case "codex":
		return "# keep me\r\ntheme = \"dark\"\r\n\r\n[mcp_servers.github]\r\ncommand = \"npx\" # inline\r\n\r\n[mcp_servers.github.env]\r\nGITHUB_TOKEN = \"ghp_secretvalue123\"\r\n\r\n[tui] # trailing\r\nnotifications = true\r\n"
	case "goose":
		return "# keep me\r\ntheme: dark\r\nextensions:\r\n  github:\r\n    cmd: npx # inline\r\n    args: []\r\n    type: stdio\r\n    enabled: true\r\n    name: github\r\n    envs:\r\n      GITHUB_TOKEN: ghp_secretvalue123\r\n# trailing\r\nGOOSE_MODE: auto\r\n"
	case "continue":
		return "# keep me\r\nname: mine\r\nversion: 1.0.0\r\ntheme: dark\r\nmcpServers:\r\n  - name: github\r\n    command: npx # inline\r\n    env:\r\n      GITHUB_TOKEN: ghp_secretvalue123\r\n# trailing\r\nrules: []\r\n"
	}
	if app.Comments {
		return "// keep me\n{\n\t\"" + app.Key + "\": {\n\t\t\"github\": {\n\t\t\t\"command\": \"npx\", /* inline */\n" +
			"\t\t\t\"env\": {\"GITHUB_TOKEN\": \"ghp_secretvalue123\"},\n\t\t},\n\t},\n\t\"theme\": \"dark\", // trailing\n}\n"
	}
	return "{\r\n  \"theme\": \"dark\",\r\n  \"" + app.Key + "\": {\r\n    \"github\": {\r\n      \"command\": \"npx\",\r\n" +
		"      \"env\": {\"GITHUB_TOKEN\": \"ghp_secretvalue123\"}\r\n    }\r\n  }\r\n}\r\n"
}

// TestClientsConnectEveryApp: for every app, end to end through Main: a
// dry run shows the change and leaves the file alone (bytes and mtime);
// connect backs the file up, keeps its mode and everything else in it, and
// writes one entry that runs the bridge by the absolute path and holds no
// secret; a second connect changes nothing; disconnect gives the original
// back, comments included.
func TestClientsConnectEveryApp(t *testing.T) {
	u, _ := clientsUnit(t)
	for _, app := range aiapps.Apps() {
		t.Run(app.ID, func(t *testing.T) {
			path := appFile(t, app.ID)
			orig := appContent(app)
			writeApp(t, path, orig, 0o640)
			fi0, _ := os.Stat(path)

			out := u.ok(t, "", "clients", "connect", app.ID, "--dry-run")
			if !strings.Contains(out, "+++ "+path) || !strings.Contains(out, `+    "switchboard": {`) && !strings.Contains(out, "+\t\t\"switchboard\": {") &&
				!strings.Contains(out, "+[mcp_servers.switchboard]") && !strings.Contains(out, "+  switchboard:") && !strings.Contains(out, "+  - name: switchboard") ||
				!strings.Contains(out, fakeExe) || !strings.Contains(out, "dry run: "+path+" was not changed") {
				t.Fatalf("dry run printed:\n%s", out)
			}
			if strings.Contains(out, "ghp_secretvalue123") {
				t.Fatalf("the dry run printed a secret of the file:\n%s", out)
			}
			fi1, _ := os.Stat(path)
			if b, _ := os.ReadFile(path); string(b) != orig || !fi1.ModTime().Equal(fi0.ModTime()) {
				t.Fatal("the dry run changed the file")
			}
			if bs := aiapps.Backups(path); len(bs) != 0 {
				t.Fatalf("the dry run made a backup: %v", bs)
			}

			out = u.ok(t, "", "clients", "connect", app.ID, "--servers", "github,files")
			if !strings.Contains(out, "connected "+app.Name) || !strings.Contains(out, fakeExe+" bridge --servers github,files") ||
				!strings.Contains(out, app.Restart) {
				t.Fatalf("connect printed:\n%s", out)
			}
			got, _ := os.ReadFile(path)
			checkAppFile(t, app, got, []string{"bridge", "--servers", "github,files"})
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Fatalf("mode %v after connect", fi.Mode().Perm())
			}
			bs := aiapps.Backups(path)
			if len(bs) != 1 {
				t.Fatalf("backups %v", bs)
			}
			if b, _ := os.ReadFile(bs[0]); string(b) != orig || !strings.Contains(out, "backed up "+path+" to "+bs[0]) {
				t.Fatalf("backup %s holds %q; output:\n%s", bs[0], b, out)
			}
			if app.ID == "claude-desktop" && !strings.Contains(out, "may overwrite its config file") {
				t.Fatalf("no warning about Claude Desktop overwriting its file:\n%s", out)
			}

			// Again: nothing to do, no new backup.
			out = u.ok(t, "", "clients", "connect", app.ID, "--servers", "github,files")
			if !strings.Contains(out, "already connected") || len(aiapps.Backups(path)) != 1 {
				t.Fatalf("a second connect: %s", out)
			}
			// Without --servers: the entry is updated to every server.
			u.ok(t, "", "clients", "connect", app.ID)
			got, _ = os.ReadFile(path)
			checkAppFile(t, app, got, []string{"bridge"})

			out = u.ok(t, "", "clients", "disconnect", app.ID)
			if !strings.Contains(out, "disconnected "+app.Name) {
				t.Fatalf("disconnect printed:\n%s", out)
			}
			if b, _ := os.ReadFile(path); string(b) != orig {
				t.Fatalf("disconnect did not restore the file:\n%s", aiapps.Diff("orig", "now", []byte(orig), b))
			}
			if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
				t.Fatalf("mode %v after disconnect", fi.Mode().Perm())
			}
			if out := u.ok(t, "", "clients", "disconnect", app.ID); !strings.Contains(out, "is not connected") {
				t.Fatalf("a second disconnect: %s", out)
			}
		})
	}
}

// checkAppFile: the app's file holds its github server as before, the
// theme, and the bridge entry with exactly command and args (and the
// app's type or source): no env, nothing secret.
func checkAppFile(t *testing.T, app *aiapps.App, data []byte, args []string) {
	t.Helper()
	if app.ID == "codex" || app.ID == "goose" || app.ID == "continue" {
		checkTextAppFile(t, app, data, args)
		return
	}
	if app.Comments {
		for _, c := range []string{"// keep me", "/* inline */", "// trailing"} {
			if !bytes.Contains(data, []byte(c)) {
				t.Fatalf("comment %q lost:\n%s", c, data)
			}
		}
	} else if bytes.Count(data, []byte("\n")) != bytes.Count(data, []byte("\r\n")) {
		t.Fatalf("CRLF line endings not kept:\n%q", data)
	}
	std, err := hujson.Standardize(bytes.Clone(data))
	if err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	var m map[string]map[string]json.RawMessage
	var top map[string]any
	json.Unmarshal(std, &top)
	if top["theme"] != "dark" {
		t.Fatalf("theme lost: %v", top)
	}
	if err := json.Unmarshal(std, &struct{}{}); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(std, &m)
	servers := map[string]map[string]any{}
	raw, _ := json.Marshal(top[app.Key])
	if err := json.Unmarshal(raw, &servers); err != nil {
		t.Fatal(err)
	}
	if gh := servers["github"]; gh == nil || gh["command"] != "npx" {
		t.Fatalf("the github server changed: %v", servers)
	}
	entry := servers["switchboard"]
	var gotArgs []string
	for _, a := range entry["args"].([]any) {
		gotArgs = append(gotArgs, a.(string))
	}
	if entry["command"] != fakeExe || !slices.Equal(gotArgs, args) {
		t.Fatalf("entry %v", entry)
	}
	for k := range entry {
		if k != "command" && k != "args" && k != "type" && k != "source" && !(k == "tools" && app.ID == "copilot-cli") {
			t.Fatalf("entry has %q: %v", k, entry)
		}
	}
	eb, _ := json.Marshal(entry)
	if bytes.Contains(eb, []byte("ghp_")) || bytes.Contains(eb, []byte("token")) {
		t.Fatalf("a secret in the entry: %s", eb)
	}
}

// checkTextAppFile is checkAppFile for the apps whose files are TOML or
// YAML, through the clients package's reading of them.
func checkTextAppFile(t *testing.T, app *aiapps.App, data []byte, args []string) {
	t.Helper()
	for _, c := range []string{"# keep me", "# inline", "# trailing", "theme"} {
		if !bytes.Contains(data, []byte(c)) {
			t.Fatalf("%q lost:\n%s", c, data)
		}
	}
	if bytes.Count(data, []byte("\n")) != bytes.Count(data, []byte("\r\n")) {
		t.Fatalf("CRLF line endings not kept:\n%q", data)
	}
	doc, err := app.Parse(data)
	if err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	var names []string
	for _, s := range doc.Servers() {
		names = append(names, s.Name)
		if s.Name == "switchboard" && (bytes.Contains(s.JSON, []byte("ghp_")) || bytes.Contains(s.JSON, []byte("env"))) {
			t.Fatalf("a secret or an env in the entry: %s", s.JSON)
		}
		if s.Name == "github" && !bytes.Contains(s.JSON, []byte(`"command":"npx"`)) {
			t.Fatalf("the github server changed: %s", s.JSON)
		}
	}
	if !slices.Equal(names, []string{"github", "switchboard"}) {
		t.Fatalf("servers %q", names)
	}
	b, gotArgs, ok := doc.Connected()
	if !ok || b.Command != fakeExe || !slices.Equal(gotArgs, args) {
		t.Fatalf("entry %v %q", b, gotArgs)
	}
}

// TestClientsConnectNewFile: an app without a config file gets one (0600);
// disconnect leaves an empty servers object or none.
func TestClientsConnectNewFile(t *testing.T) {
	u, home := clientsUnit(t)
	out := u.ok(t, "", "clients", "connect", "cursor")
	path := filepath.Join(home, ".cursor", "mcp.json")
	if !strings.Contains(out, "connected Cursor") || !strings.Contains(out, "does not look installed") || strings.Contains(out, "backed up") {
		t.Fatalf("connect printed:\n%s", out)
	}
	want := "{\n  \"mcpServers\": {\n    \"switchboard\": {\n      \"command\": \"" + fakeExe + "\",\n      \"args\": [\"bridge\"]\n    }\n  }\n}\n"
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("new file:\n%s", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode().Perm())
	}
	// The dry run of a missing file shows a new file and creates nothing.
	out = u.ok(t, "", "clients", "connect", "gemini-cli", "-n")
	if !strings.Contains(out, "--- /dev/null") {
		t.Fatalf("dry run: %s", out)
	}
	if _, err := os.Stat(filepath.Join(home, ".gemini")); !os.IsNotExist(err) {
		t.Fatalf("the dry run created the app's folder: %v", err)
	}
	u.ok(t, "", "clients", "disconnect", "cursor")
	if b, _ := os.ReadFile(path); string(b) != "{\n  \"mcpServers\": {}\n}\n" {
		t.Fatalf("after disconnect:\n%s", b)
	}
}

// TestClientsList: installed by folder or file, connected by entry, a
// stale entry, the app's own servers, a broken file; --json too.
func TestClientsList(t *testing.T) {
	u, home := clientsUnit(t)
	os.MkdirAll(filepath.Dir(appFile(t, "zed")), 0o700)                                              // installed, no file
	writeApp(t, filepath.Join(home, ".cursor", "mcp.json"), appContent(mustApp(t, "cursor")), 0o600) // its own server
	writeApp(t, filepath.Join(home, ".gemini", "settings.json"),
		`{"mcpServers": {"switchboard": {"command": "/old/switchboard", "args": ["bridge"]}}}`, 0o600) // stale
	writeApp(t, filepath.Join(home, ".lmstudio", "mcp.json"), `{"mcpServers": `, 0o600) // broken
	u.ok(t, "", "clients", "connect", "windsurf")

	out := u.ok(t, "", "clients", "list")
	for _, want := range []string{
		"APP             NAME                    INSTALLED  CONNECTED    SERVERS  CONFIG",
		"claude-desktop  Claude Desktop          no         no           0        " + filepath.Join(u.dir, "cfg", "Claude", "claude_desktop_config.json") + " (no file yet)",
		"cursor          Cursor                  yes        no           1        " + filepath.Join(home, ".cursor", "mcp.json") + "\n",
		"windsurf        Windsurf                yes        yes          0        ",
		"gemini-cli      Gemini CLI              yes        yes (stale)  0        ",
		"lm-studio       LM Studio               yes        ?            0        ",
		"zed             Zed                     yes        no           0        ",
		"goose           Goose                   no         no           0        " + filepath.Join(u.dir, "cfg", "goose", "config.yaml") + " (no file yet)",
		"junie           JetBrains Junie         no         no           0        " + filepath.Join(home, ".junie", "mcp", "mcp.json") + " (no file yet)",
		"gemini-cli: its entry runs /old/switchboard, not this switchboard (" + fakeExe + "): run 'switchboard clients connect gemini-cli' to update it",
		"cursor has its own servers (github): 'switchboard clients import cursor' moves them into Switchboard",
		"lm-studio: LM Studio's config " + filepath.Join(home, ".lmstudio", "mcp.json") + ": it is not valid JSON",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	var st []clientStatus
	if err := json.Unmarshal([]byte(u.ok(t, "", "clients", "list", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	byID := map[string]clientStatus{}
	for _, s := range st {
		byID[s.ID] = s
	}
	if len(st) != len(aiapps.Apps()) || !byID["windsurf"].Connected || byID["windsurf"].Command != fakeExe || !slices.Equal(byID["windsurf"].Args, []string{"bridge"}) ||
		!byID["gemini-cli"].Stale || byID["zed"].ConfigExists || !byID["zed"].Installed || byID["lm-studio"].Error == "" ||
		!slices.Equal(byID["cursor"].Servers, []string{"github"}) || byID["claude-code"].Installed {
		t.Fatalf("list --json: %+v", st)
	}
}

func mustApp(t *testing.T, id string) *aiapps.App {
	t.Helper()
	a, err := aiapps.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestClientsBrokenFile: a file that does not parse is never rewritten.
func TestClientsBrokenFile(t *testing.T) {
	u, home := clientsUnit(t)
	path := filepath.Join(home, ".cursor", "mcp.json")
	writeApp(t, path, `{"mcpServers": {"a": }`, 0o600)
	for _, verb := range []string{"connect", "disconnect", "import"} {
		r := u.main("", "clients", verb, "cursor")
		if r.code != 1 || !strings.Contains(r.stderr, "Cursor's config "+path+": it is not valid JSON") {
			t.Fatalf("%s: %s", verb, r)
		}
	}
	if b, _ := os.ReadFile(path); string(b) != `{"mcpServers": {"a": }` || len(aiapps.Backups(path)) != 0 {
		t.Fatal("a broken file was touched")
	}
}

func TestClientsUsageErrors(t *testing.T) {
	u, _ := clientsUnit(t)
	for _, args := range [][]string{
		{"clients", "frob"},
		{"clients", "connect"},
		{"clients", "connect", "notepad"},
		{"clients", "connect", "cursor", "zed"},
		{"clients", "connect", "cursor", "--servers", "Bad Name"},
		{"clients", "connect", "cursor", "--servers", ","},
		{"clients", "connect", "cursor", "--bogus"},
		{"clients", "disconnect"},
		{"clients", "import"},
		{"clients", "list", "x"},
		{"clients", "connect", "cursor", "--project", "/"},
		{"clients", "connect", "claude-code", "--project", "/no/such/dir"},
		{"clients", "list", "--project", "/no/such/dir"},
	} {
		if r := u.main("", args...); r.code != 2 || r.stderr == "" {
			t.Errorf("%q: %s", args, r)
		}
	}
	if out := u.ok(t, "", "clients", "help"); !strings.Contains(out, "clients connect APP [--servers a,b]... [--project DIR] [--dry-run]") {
		t.Errorf("clients help: %s", out)
	}
}

const cursorWithServers = `{
  "mcpServers": {
    "github": {
      "command": "/bin/cat",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_literal_0123456789", "LOG_LEVEL": "debug"}
    },
    "remote-thing": {"command": "npx", "args": ["mcp-remote", "https://example.com/mcp", "--static-oauth-client-info", "{}"]},
    "My Files": {"command": "/bin/cat", "args": ["/tmp"]}
  },
  "other": true
}
`

// TestClientsImport: without a host, the app's servers go into the config
// file and the literal token into the keyring; the app's file then holds
// the remote entry it kept and the bridge entry; no output shows the
// token; the backup keeps the old file.
func TestClientsImport(t *testing.T) {
	u, home := clientsUnit(t)
	path := filepath.Join(home, ".cursor", "mcp.json")
	writeApp(t, path, cursorWithServers, 0o600)

	// A dry run changes nothing anywhere.
	out := u.ok(t, "", "clients", "import", "cursor", "--dry-run", "--move-secrets")
	if !strings.Contains(out, "would import github as github") || !strings.Contains(out, "would import My Files as my-files") ||
		!strings.Contains(out, "dry run: "+path+" was not changed") || strings.Contains(out, "ghp_literal") {
		t.Fatalf("dry run:\n%s", out)
	}
	if _, err := os.Stat(u.configPath()); !os.IsNotExist(err) {
		t.Fatal("the dry run wrote the config")
	}
	if names, _ := u.store.List(); len(names) != 0 {
		t.Fatalf("the dry run stored secrets: %v", names)
	}

	out = u.ok(t, "", "clients", "import", "cursor", "--move-secrets", "--yes")
	for _, want := range []string{
		`skipped: "remote-thing": not imported: an mcp-remote entry (mcp-remote https://example.com/mcp): mcp-remote's option "--static-oauth-client-info" is not one Switchboard understands: it stays in Cursor`,
		"moved github.env.GITHUB_PERSONAL_ACCESS_TOKEN into the keyring as ",
		"imported github\n",
		"imported My Files as my-files\n",
		`-    "github": {`,
		"replaced 2 servers in " + path + ` with the "switchboard" entry`,
		"the backup still holds the old entries with their secrets in plain text",
		"Restart Cursor",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("import output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ghp_literal") {
		t.Fatalf("the token is in the output:\n%s", out)
	}
	f := u.load(t, u.configPath())
	if f.Servers["github"] == nil || f.Servers["my-files"] == nil || len(f.Servers) != 2 {
		t.Fatalf("imported: %v", f.Names())
	}
	refs := f.Servers["github"].SecretRefs()
	if v, err := u.store.Get(refs[0]); err != nil || v.Reveal() != "ghp_literal_0123456789" {
		t.Fatalf("keyring %v: %v", refs, err)
	}
	want := `{
  "mcpServers": {
    "remote-thing": {"command": "npx", "args": ["mcp-remote", "https://example.com/mcp", "--static-oauth-client-info", "{}"]},
    "switchboard": {
      "command": "` + fakeExe + `",
      "args": ["bridge"]
    }
  },
  "other": true
}
`
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("cursor's file:\n%s", b)
	}
	if bs := aiapps.Backups(path); len(bs) != 1 {
		t.Fatalf("backups %v", bs)
	} else if b, _ := os.ReadFile(bs[0]); string(b) != cursorWithServers {
		t.Fatal("the backup is not the old file")
	}

	// Again: nothing of its own left to import.
	if out := u.ok(t, "", "clients", "import", "cursor"); !strings.Contains(out, "skipped: \"remote-thing\"") || !strings.Contains(out, "Cursor has no servers of its own that Switchboard can run") {
		t.Fatalf("a second import:\n%s", out)
	}
}

// TestClientsImportDeclineAndExisting: the answer "no" leaves the app's
// file alone; a server Switchboard already has with the same command
// counts as taken, one with another command is not replaced; an app with
// a --servers entry gets the imported servers added to it.
func TestClientsImportDeclineAndExisting(t *testing.T) {
	u, _ := clientsUnit(t)
	path := appFile(t, "zed")
	orig := `// zed
{
  "context_servers": {
    "cat": {"source": "custom", "command": "/bin/cat", "args": []},
    "other": {"command": "/bin/echo", "args": ["x"]},
    "switchboard": {"source": "custom", "command": "/old/switchboard", "args": ["bridge", "--servers", "a"]},
  },
}
`
	writeApp(t, path, orig, 0o600)
	u.ok(t, "", "servers", "add", "cat", "--", "/bin/cat")
	u.ok(t, "", "servers", "add", "other", "--", "/bin/true")

	r := u.main("n\n", "clients", "import", "zed")
	out := r.stdout
	if r.code != 1 || !strings.Contains(out, "cat is already in Switchboard as cat") || !strings.Contains(out, "not imported: other: Switchboard has another server named other") ||
		!strings.Contains(out, "Replace them in "+path+"? [y/N]") || !strings.Contains(out, path+" was not changed") {
		t.Fatalf("import:\n%s", out)
	}
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatal("the file changed though the answer was no")
	}
	r = u.main("y\n", "clients", "import", "zed")
	if r.code != 1 { // "other" was not imported
		t.Fatalf("import: %s", r)
	}
	want := `// zed
{
  "context_servers": {
    "other": {"command": "/bin/echo", "args": ["x"]},
    "switchboard": {"source": "custom", "command": "` + fakeExe + `", "args": ["bridge", "--servers", "a,cat"]},
  },
}
`
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Fatalf("zed's file:\n%s", b)
	}
}

// TestE2EClientsImportThroughHost: the real binary with a host running:
// `clients import` puts the app's server into Switchboard through the
// host's API (which starts it), and the app's entry now runs this very
// binary's bridge by its absolute path; `clients list` says so.
func TestE2EClientsImportThroughHost(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program)")
	sb := newSandbox(t)
	sb.serve(t)
	appPath := filepath.Join(sb.configHome, "Claude", "claude_desktop_config.json")
	entry := map[string]any{"mcpServers": map[string]any{
		"Echo Helper": map[string]any{"command": testExe, "env": map[string]string{
			helperEnv: "modern", markEnv: sb.mark, "GORACE": "atexit_sleep_ms=0"}},
	}, "preferences": map[string]any{"menuBarEnabled": true}}
	writeApp(t, appPath, string(mustJSON(t, entry)), 0o600)

	out := sb.cli(t, "clients", "import", "claude-desktop", "--yes")
	if !strings.Contains(out, "imported Echo Helper as echo-helper") || !strings.Contains(out, "Quit Claude Desktop completely") {
		t.Fatalf("import printed:\n%s", out)
	}
	sb.waitRunning(t, "echo-helper")
	if out := sb.cli(t, "call", "echo-helper", "echo", `{"message":"hi"}`); strings.TrimSpace(out) != "echo: hi" {
		t.Fatalf("call printed %q", out)
	}
	// The entry names switchboard-bridge, installed next to switchboard.
	exe, err := filepath.EvalSymlinks(sbBridge)
	if err != nil {
		t.Fatal(err)
	}
	var app struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
		Preferences map[string]any `json:"preferences"`
	}
	b, _ := os.ReadFile(appPath)
	if err := json.Unmarshal(b, &app); err != nil {
		t.Fatal(err)
	}
	e, ok := app.MCPServers["switchboard"]
	if len(app.MCPServers) != 1 || !ok || e.Command != exe || !filepath.IsAbs(e.Command) || !slices.Equal(e.Args, []string{"bridge"}) || app.Preferences["menuBarEnabled"] != true {
		t.Fatalf("Claude Desktop's file:\n%s", b)
	}
	var st []clientStatus
	if err := json.Unmarshal([]byte(sb.cli(t, "clients", "list", "--json")), &st); err != nil {
		t.Fatal(err)
	}
	if st[0].ID != "claude-desktop" || !st[0].Connected || st[0].Stale || len(st[0].Servers) != 0 {
		t.Fatalf("list: %+v", st[0])
	}
	sb.cli(t, "clients", "disconnect", "claude-desktop")
	var left map[string]any
	b, _ = os.ReadFile(appPath)
	if err := json.Unmarshal(b, &left); err != nil || len(left) != 1 || left["preferences"] == nil {
		t.Fatalf("after disconnect:\n%s", b)
	}
}

// TestClientsProject: --project DIR connects, lists and disconnects a
// Claude Code project's .mcp.json (a file of its own: the emptied
// mcpServers stays), and leaves the user's ~/.claude.json alone.
func TestClientsProject(t *testing.T) {
	u, home := clientsUnit(t)
	proj := filepath.Join(u.dir, "proj")
	path := filepath.Join(proj, ".mcp.json")
	orig := "{\n  \"mcpServers\": {\n    \"db\": {\"command\": \"uvx\", \"args\": [\"mcp-server-sqlite\"]}\n  }\n}\n"
	writeApp(t, path, orig, 0o644)

	out := u.ok(t, "", "clients", "connect", "claude-code", "--project", proj, "--dry-run")
	if !strings.Contains(out, "+++ "+path) || !strings.Contains(out, `"type": "stdio"`) {
		t.Fatalf("dry run: %s", out)
	}
	out = u.ok(t, "", "clients", "connect", "claude-code", "--project", proj)
	if !strings.Contains(out, "connected Claude Code (project "+proj+")") || !strings.Contains(out, "asks once") {
		t.Fatalf("connect: %s", out)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); !os.IsNotExist(err) {
		t.Fatalf("the user's file was written: %v", err)
	}
	var st []clientStatus
	if err := json.Unmarshal([]byte(u.ok(t, "", "clients", "list", "--json", "--project", proj)), &st); err != nil {
		t.Fatal(err)
	}
	if len(st) != 1 || st[0].ID != "claude-code" || st[0].Config != path || !st[0].Connected || !slices.Equal(st[0].Servers, []string{"db"}) {
		t.Fatalf("list --project: %+v", st)
	}
	u.ok(t, "", "clients", "disconnect", "claude-code", "--project", proj)
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatalf("disconnect did not restore the project's file:\n%s", aiapps.Diff("orig", "now", []byte(orig), b))
	}
	// A project without the file yet: connect makes it.
	empty := filepath.Join(u.dir, "empty")
	os.MkdirAll(empty, 0o700)
	u.ok(t, "", "clients", "connect", "claude-code", "--project", empty)
	if b, _ := os.ReadFile(filepath.Join(empty, ".mcp.json")); !bytes.Contains(b, []byte(fakeExe)) {
		t.Fatalf("new .mcp.json: %s", b)
	}
}
