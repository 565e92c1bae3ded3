//go:build linux

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// unit is an in-process command line with no host: a fresh runtime
// directory (so no host is found), config and cache homes, and the
// in-memory keyring.
type unit struct {
	dir   string
	store *secrets.Store
}

func newUnit(t *testing.T) *unit {
	t.Helper()
	root, err := os.MkdirTemp("", "sbu")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	u := &unit{dir: root, store: secrets.NewMemoryStore(filepath.Join(root, "cfg", "switchboard", "secrets.json"))}
	t.Setenv("SWITCHBOARD_RUNTIME_DIR", filepath.Join(root, "run"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "cfg"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(root, "cache"))
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("SWITCHBOARD_CONFIG", "")
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("SHELL", "/bin/sh")
	old := newStore
	newStore = func() *secrets.Store { return u.store }
	t.Cleanup(func() { newStore = old })
	return u
}

func (u *unit) configPath() string { return filepath.Join(u.dir, "cfg", "switchboard", "config.json") }

func (u *unit) main(stdin string, args ...string) result {
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(stdin), &out, &errb)
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// ok runs the command and fails the test unless it exits 0.
func (u *unit) ok(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	r := u.main(stdin, args...)
	if r.code != 0 {
		t.Fatalf("switchboard %s: %s", strings.Join(args, " "), r)
	}
	return r.stdout
}

func (u *unit) load(t *testing.T, path string) *config.File {
	t.Helper()
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		cmd  string
		rest []string
	}{
		{[]string{"status"}, "status", []string{}},
		{[]string{"--json", "status"}, "status", []string{"--json"}},
		{[]string{"status", "--json"}, "status", []string{"--json"}},
		{[]string{"--config", "/x.json", "servers", "add", "a"}, "servers", []string{"--config", "/x.json", "add", "a"}},
		{[]string{"--config=/x.json", "servers", "add"}, "servers", []string{"--config=/x.json", "add"}},
		{[]string{"--", "status"}, "", []string{"--", "status"}},
		{[]string{"--json"}, "", []string{"--json"}},
	} {
		cmd, rest := splitCommand(tc.args)
		if cmd != tc.cmd || !slices.Equal(rest, tc.rest) {
			t.Errorf("splitCommand(%q) = %q %q, want %q %q", tc.args, cmd, rest, tc.cmd, tc.rest)
		}
	}
}

func TestFlagParser(t *testing.T) {
	var env []string
	var cwd string
	var js bool
	f := newFlags()
	f.Multi("env", &env)
	f.String("cwd", &cwd)
	f.Bool("json", &js, "j")
	pos, rest, err := f.parse([]string{"a", "--env", "K=V", "--env=X=Y=Z", "-", "--cwd=/d", "-j", "b", "--", "cmd", "--env", "n", "--"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(pos, []string{"a", "-", "b"}) || !slices.Equal(rest, []string{"cmd", "--env", "n", "--"}) {
		t.Fatalf("pos %q rest %q", pos, rest)
	}
	if !slices.Equal(env, []string{"K=V", "X=Y=Z"}) || cwd != "/d" || !js {
		t.Fatalf("env %q cwd %q json %v", env, cwd, js)
	}
	if _, _, err := f.parse([]string{"--json=false"}); err != nil || js {
		t.Fatalf("--json=false: %v %v", err, js)
	}
	if _, _, err := f.parse([]string{"--nope"}); err == nil || !strings.Contains(err.Error(), "unknown flag --nope") {
		t.Fatalf("unknown flag: %v", err)
	}
	if _, _, err := f.parse([]string{"--cwd"}); err == nil || !strings.Contains(err.Error(), "needs a value") {
		t.Fatalf("missing value: %v", err)
	}
}

// TestUsageErrors: mistakes in the command line exit 2 with a message.
func TestUsageErrors(t *testing.T) {
	u := newUnit(t)
	for _, args := range [][]string{
		{"frobnicate"},
		{"servers", "frob"},
		{"servers", "add"},
		{"servers", "add", "a"},
		{"servers", "add", "a", "b", "--", "/bin/cat"},
		{"servers", "add", "a", "--bogus", "--", "/bin/cat"},
		{"servers", "add", "a", "--env", "NOEQUALS", "--", "/bin/cat"},
		{"servers", "add", "a", "--secret-env", "K=bad name", "--", "/bin/cat"},
		{"servers", "remove"},
		{"servers", "start"},
		{"servers", "stop", "a", "--all"},
		{"servers", "import"},
		{"status", "--config"},
		{"status", "--nope"},
		{"logs"},
		{"tools", "a", "b"},
		{"call", "a"},
		{"call", "a", "t", "{not json"},
		{"call", "a", "t", "[1]"},   // valid JSON, but not the one object of arguments
		{"call", "a", "t", "null"},  // the same
		{"call", "a", "t", `"hi"`},  // the same
		{"call", "a", "t", "{} {}"}, // two values
		{"secret", "set"},
		{"secret", "set", "bad name!"},
		{"secret", "frob"},
		{"serve", "--bogus"},
	} {
		r := u.main("", args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "switchboard: ") || r.stdout != "" {
			t.Errorf("switchboard %q: want exit 2 with a message on stderr, got %s", args, r)
		}
	}
	for _, args := range [][]string{{}, {"help"}, {"--version"}, {"version"}} {
		r := u.main("", args...)
		if r.code != 0 || r.stdout == "" {
			t.Errorf("switchboard %q: %s", args, r)
		}
	}
	if r := u.main("", "version"); r.stdout != "switchboard "+Version+"\n" {
		t.Errorf("version printed %q", r.stdout)
	}
	if _, err := os.Stat(u.configPath()); err == nil {
		t.Fatal("a refused command wrote the config")
	}
}

// TestServersAddNoHost: with no host, servers add writes the file itself:
// mode 0600, unknown keys and the order of entries kept. Flags may stand
// before or after the subcommand; "--" ends them.
func TestServersAddNoHost(t *testing.T) {
	u := newUnit(t)
	// Into a file that does not exist yet, at the default path.
	out := u.ok(t, "", "servers", "add", "first", "--env", "K=V", "--", "/bin/cat", "--env", "-x")
	if out != "added first\n" {
		t.Fatalf("servers add printed %q", out)
	}
	fi, err := os.Stat(u.configPath())
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the new config: %v %v", fi, err)
	}
	s := u.load(t, u.configPath()).Servers["first"]
	if s == nil || s.Command != "/bin/cat" || !slices.Equal(s.Args, []string{"--env", "-x"}) || s.Env["K"] != "V" {
		t.Fatalf("first: %+v", s)
	}

	// An existing file with keys this version does not know.
	other := filepath.Join(u.dir, "other", "sb.json")
	if err := os.MkdirAll(filepath.Dir(other), 0o700); err != nil {
		t.Fatal(err)
	}
	orig := `{
  "theme": "dark",
  "version": 1,
  "mcpServers": {
    "zeta": {"command": "/bin/cat", "futureKey": {"a": [1, 2]}, "env": {"B": "2", "A": "1"}},
    "alpha": {"command": "/bin/cat"}
  },
  "trailer": true
}
`
	if err := os.WriteFile(other, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	u.ok(t, "", "--config="+other, "servers", "add", "mid", "--cwd", u.dir, "--", "/bin/cat", "a b")
	u.ok(t, "", "servers", "--config", other, "add", "--env", "LIT=${x}", "last", "--", "/bin/cat")
	u.ok(t, "", "servers", "set", "zeta", "--config", other, "--env", "C=3", "--json")
	b, err := os.ReadFile(other)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{`"theme": "dark"`, `"trailer": true`, `"futureKey": {`, `"$${x}"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the file lacks %s:\n%s", want, text)
		}
	}
	// The order of the top-level keys and of the entries is kept. (Not
	// that of the keys inside an entry that `servers set` rewrote: it
	// rebuilds the entry from a map.)
	order := []string{`"theme"`, `"version"`, `"zeta"`, `"alpha"`, `"mid"`, `"last"`, `"trailer"`}
	for i := 1; i < len(order); i++ {
		if strings.Index(text, order[i-1]) > strings.Index(text, order[i]) {
			t.Errorf("%s comes after %s:\n%s", order[i-1], order[i], text)
		}
	}
	if fi, _ := os.Stat(other); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after a write, want 0600", fi.Mode().Perm())
	}
	f := u.load(t, other)
	if m := f.Servers["mid"]; m == nil || m.Cwd != u.dir || !slices.Equal(m.Args, []string{"a b"}) {
		t.Fatalf("mid: %+v", m)
	}
	if z := f.Servers["zeta"]; z.Env["C"] != "3" || z.Env["A"] != "1" || z.Command != "/bin/cat" {
		t.Fatalf("servers set lost fields of zeta: %+v", z)
	}
	if u.load(t, u.configPath()).Servers["mid"] != nil {
		t.Fatal("--config was ignored: the default file changed")
	}

	// Refusals write nothing.
	before, _ := os.ReadFile(other)
	for _, args := range [][]string{
		{"--config", other, "servers", "add", "mid", "--", "/bin/cat"},
		{"--config", other, "servers", "add", "bad", "--cwd", "relative/dir", "--", "/bin/cat"},
		{"--config", other, "servers", "add", "Bad_Name", "--", "/bin/cat"},
		{"--config", other, "servers", "set", "nope", "--env", "A=B"},
		{"--config", other, "servers", "remove", "nope"},
	} {
		if r := u.main("", args...); r.code != 1 || r.stderr == "" {
			t.Errorf("switchboard %q: want exit 1 with a message, got %s", args, r)
		}
	}
	if r := u.main("", "--config", other, "servers", "add", "mid", "--", "/bin/cat"); !strings.Contains(r.stderr, "already exists") {
		t.Errorf("adding an existing name: %s", r)
	}
	if r := u.main("", "--config", other, "servers", "add", "bad", "--cwd", "relative/dir", "--", "/bin/cat"); !strings.Contains(r.stderr, "mcpServers.bad.cwd") {
		t.Errorf("an invalid entry: %s", r)
	}
	if after, _ := os.ReadFile(other); !bytes.Equal(before, after) {
		t.Fatalf("a refused change wrote the file:\n%s", after)
	}

	// disable, enable, remove without a host; runtime commands need one.
	u.ok(t, "", "--config", other, "servers", "disable", "alpha")
	if !u.load(t, other).Servers["alpha"].Disabled {
		t.Fatal("disable did not reach the file")
	}
	u.ok(t, "", "--config", other, "servers", "enable", "alpha")
	u.ok(t, "", "--config", other, "servers", "remove", "alpha")
	if u.load(t, other).Servers["alpha"] != nil {
		t.Fatal("remove did not reach the file")
	}
	for _, args := range [][]string{{"servers", "start", "mid"}, {"logs", "mid"}, {"tools", "mid"}, {"call", "mid", "echo"}} {
		r := u.main("", append([]string{"--config", other}, args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "needs a running host") || !strings.Contains(r.stderr, "switchboard serve") {
			t.Errorf("switchboard %q with no host: %s", args, r)
		}
	}

	// status with no host reads the file.
	out = u.ok(t, "", "--config", other, "status")
	if !strings.Contains(out, "no host is running") || !strings.Contains(out, "mid") || !strings.Contains(out, "/bin/cat") {
		t.Fatalf("status with no host:\n%s", out)
	}
	var st statusOut
	if err := json.Unmarshal([]byte(u.ok(t, "", "status", "--json", "--config", other)), &st); err != nil || st.Host != nil || len(st.Servers) != 3 {
		t.Fatalf("status --json with no host: %v %+v", err, st)
	}
	// A command not found with no host was looked up in the PATH a host
	// gives servers (the login shell's), and status says so; add warns.
	out = u.ok(t, "", "--config", other, "servers", "add", "ghost", "--", "sb-no-such-command")
	if !strings.Contains(out, "warning: the host will not find this server's command") {
		t.Errorf("servers add of a command not found printed:\n%s", out)
	}
	out = u.ok(t, "", "--config", other, "status")
	if !strings.Contains(out, `"sb-no-such-command" was not found in the PATH a host gives servers`) || strings.Contains(out, "this terminal's PATH") {
		t.Errorf("status with no host, a command not found:\n%s", out)
	}
}

// TestOneResolutionWithoutHost: with no host, status and servers add
// resolve a command in the PATH a host would give servers (the login
// shell's), not this terminal's: a command only this terminal's PATH
// has is reported as not found, and add warns (issue 27 §12).
func TestOneResolutionWithoutHost(t *testing.T) {
	u := newUnit(t)
	bin := filepath.Join(u.dir, "termbin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "sb-terminal-only"), []byte("#!/bin/sh\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A login shell that sets its own PATH (as /etc/profile or
	// path_helper do; run as SHELL -l -c SCRIPT); this terminal's has bin
	// too.
	shell := filepath.Join(u.dir, "loginsh")
	if err := os.WriteFile(shell, []byte("#!/bin/sh\nPATH=/usr/bin:/bin; export PATH; exec /bin/sh -c \"$3\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHELL", shell)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := u.ok(t, "", "servers", "add", "term", "--", "sb-terminal-only")
	if !strings.Contains(out, "warning: the host will not find this server's command") || !strings.Contains(out, "sb-terminal-only") {
		t.Errorf("servers add of a command only this terminal finds printed:\n%s", out)
	}
	out = u.ok(t, "", "status")
	if !strings.Contains(out, `"sb-terminal-only" was not found in the PATH a host gives servers`) {
		t.Errorf("status with no host resolved in this terminal's PATH:\n%s", out)
	}
	// A command the login shell's PATH has: no warning.
	out = u.ok(t, "", "servers", "add", "cat", "--", "cat")
	if strings.Contains(out, "warning") {
		t.Errorf("servers add of cat warned:\n%s", out)
	}
}

const claudeDesktop = `{
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "github": {
      "command": "/bin/cat",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_literal_0123456789", "LOG_LEVEL": "debug"}
    },
    "remote-thing": {"command": "npx", "args": ["mcp-remote", "https://example.com/mcp", "--static-oauth-client-info", "{}"]},
    "My Files": {"command": "/bin/cat", "args": ["/tmp"]}
  }
}
`

// TestServersImport: a Claude Desktop block; an mcp-remote entry with an
// option Switchboard does not know is skipped with a message; with --move-secrets --yes the literal token goes into the
// keyring and the file only refers to it.
func TestServersImport(t *testing.T) {
	u := newUnit(t)
	block := filepath.Join(u.dir, "claude_desktop_config.json")
	if err := os.WriteFile(block, []byte(claudeDesktop), 0o600); err != nil {
		t.Fatal(err)
	}
	out := u.ok(t, "", "servers", "import", block, "--move-secrets", "--yes")
	for _, want := range []string{
		`skipped: "remote-thing": not imported: an mcp-remote entry: mcp-remote's option "--static-oauth-client-info" is not one Switchboard understands`,
		"moved github.env.GITHUB_PERSONAL_ACCESS_TOKEN into the keyring as ",
		"imported github\n",
		"imported My Files as my-files\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("import output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ghp_literal") {
		t.Fatal("the token is in the output")
	}
	b, _ := os.ReadFile(u.configPath())
	if bytes.Contains(b, []byte("ghp_literal")) || bytes.Contains(b, []byte("remote-thing")) {
		t.Fatalf("the config holds the token or the remote entry:\n%s", b)
	}
	f := u.load(t, u.configPath())
	gh := f.Servers["github"]
	if gh == nil || f.Servers["my-files"] == nil || len(f.Servers) != 2 {
		t.Fatalf("imported servers: %v", f.Names())
	}
	refs := gh.SecretRefs()
	if len(refs) != 1 || gh.Env["GITHUB_PERSONAL_ACCESS_TOKEN"] != "${keyring:"+refs[0]+"}" || gh.Env["LOG_LEVEL"] != "debug" {
		t.Fatalf("github env: %v", gh.Env)
	}
	v, err := u.store.Get(refs[0])
	if err != nil || v.Reveal() != "ghp_literal_0123456789" {
		t.Fatalf("the keyring's %s: %v", refs[0], err)
	}
	if out := u.ok(t, "", "secret", "list"); !strings.Contains(out, refs[0]+"\tused by github") {
		t.Fatalf("secret list: %q", out)
	}

	// Again: every name exists now, so nothing is imported (exit 1).
	r := u.main("", "servers", "import", block)
	if r.code != 1 || !strings.Contains(r.stdout, "not imported: github") || !strings.Contains(r.stdout, "not imported: My Files") {
		t.Fatalf("a second import: %s", r)
	}

	// From stdin, without --move-secrets: one rule for env and headers
	// (issue 27 §16): the entry with a literal secret is not imported,
	// with the remedy; the others are (exit 1).
	u2 := newUnit(t)
	r = u2.main(claudeDesktop, "servers", "import", "-")
	if r.code != 1 || !strings.Contains(r.stdout, "not imported: github: env.GITHUB_PERSONAL_ACCESS_TOKEN looks like a secret, and a secret is kept only in the keyring") ||
		!strings.Contains(r.stdout, "--move-secrets") || !strings.Contains(r.stdout, "imported My Files as my-files") {
		t.Fatalf("import without --move-secrets: %s", r)
	}
	if b, _ := os.ReadFile(u2.configPath()); bytes.Contains(b, []byte("ghp_literal")) || u2.load(t, u2.configPath()).Servers["github"] != nil {
		t.Fatalf("a literal secret was imported as plain text:\n%s", b)
	}
	if names, _ := u2.store.List(); len(names) != 0 {
		t.Fatalf("secrets stored without --move-secrets: %v", names)
	}
	// --move-secrets without --yes asks; "n": not moved, so not imported.
	u3 := newUnit(t)
	r = u3.main("n\n", "servers", "import", block, "--move-secrets")
	if !strings.Contains(r.stdout, "move github.env.GITHUB_PERSONAL_ACCESS_TOKEN into the keyring as") || !strings.Contains(r.stdout, "[y/N]") ||
		!strings.Contains(r.stdout, "not imported: github: env.GITHUB_PERSONAL_ACCESS_TOKEN looks like a secret") {
		t.Fatalf("import --move-secrets answered no: %s", r)
	}
	if names, _ := u3.store.List(); len(names) != 0 {
		t.Fatalf("a secret moved though the answer was no: %v", names)
	}
	if b, _ := os.ReadFile(u3.configPath()); bytes.Contains(b, []byte("ghp_literal")) {
		t.Fatalf("a literal secret was imported as plain text:\n%s", b)
	}
}

// TestServersImportDryRun: --dry-run says what would be moved and
// imported, and writes neither the config nor the keyring.
func TestServersImportDryRun(t *testing.T) {
	u := newUnit(t)
	block := filepath.Join(u.dir, "claude_desktop_config.json")
	if err := os.WriteFile(block, []byte(claudeDesktop), 0o600); err != nil {
		t.Fatal(err)
	}
	out := u.ok(t, "", "servers", "import", block, "--move-secrets", "--yes", "--dry-run")
	for _, want := range []string{"would move github.env.GITHUB_PERSONAL_ACCESS_TOKEN into the keyring as ", "would import github as github\n",
		"would import My Files as my-files\n", "dry run: nothing was written"} {
		if !strings.Contains(out, want) {
			t.Errorf("import --dry-run lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "ghp_literal") {
		t.Error("the token is in the output")
	}
	if _, err := os.Stat(u.configPath()); err == nil {
		t.Error("import --dry-run wrote the config")
	}
	if names, _ := u.store.List(); len(names) != 0 {
		t.Errorf("import --dry-run stored secrets: %v", names)
	}
	// A name taken: would not be imported.
	u.ok(t, "", "servers", "add", "github", "--", "/bin/cat")
	if r := u.main("", "servers", "import", block, "--move-secrets", "--yes", "-n"); r.code != 1 || !strings.Contains(r.stdout, "would not import: github:") {
		t.Errorf("import --dry-run over a taken name: %s", r)
	}
}

// TestSecretSet: the value comes from stdin with one trailing newline
// stripped, never from an argument.
func TestSecretSet(t *testing.T) {
	u := newUnit(t)
	for _, tc := range []struct{ in, want string }{
		{"plain", "plain"},
		{"with-newline\n", "with-newline"},
		{"two-newlines\n\n", "two-newlines\n"},
		{"crlf\r\n", "crlf"},
		{"  spaces kept  \n", "  spaces kept  "},
	} {
		out := u.ok(t, tc.in, "secret", "set", "tok")
		if out != "secret tok stored in the keyring\n" {
			t.Fatalf("secret set printed %q", out)
		}
		if v, err := u.store.Get("tok"); err != nil || v.Reveal() != tc.want {
			t.Errorf("stdin %q: stored %q (%v), want %q", tc.in, v.Reveal(), err, tc.want)
		}
	}
	// A NUL byte: refused, named, and nothing stored.
	r := u.main("abc\x00def\n", "secret", "set", "nul")
	if r.code == 0 || !strings.Contains(r.stderr, "secret nul") || !strings.Contains(r.stderr, "NUL byte") || strings.Contains(r.stderr+r.stdout, "abc") {
		t.Fatalf("secret set with a NUL byte: %s", r)
	}
	if _, err := u.store.Get("nul"); err == nil {
		t.Fatal("a value with a NUL byte was stored")
	}
	// Never from an argument: refused, and nothing stored.
	r = u.main("", "secret", "set", "other", "the-value")
	if r.code != 2 || !strings.Contains(r.stderr, "never from an argument") || strings.Contains(r.stderr+r.stdout, "the-value") {
		t.Fatalf("secret set with the value as an argument: %s", r)
	}
	if _, err := u.store.Get("other"); err == nil {
		t.Fatal("a value given as an argument was stored")
	}
	// An empty stdin stores nothing.
	r = u.main("\n", "secret", "set", "empty")
	if r.code != 1 || !strings.Contains(r.stderr, "empty value") {
		t.Fatalf("an empty value: %s", r)
	}
	if names, _ := u.store.List(); !slices.Equal(names, []string{"tok"}) {
		t.Fatalf("secrets: %v", names)
	}
	if out := u.ok(t, "", "secret", "list", "--json"); !strings.Contains(out, `"name": "tok"`) {
		t.Fatalf("secret list --json: %s", out)
	}
	u.ok(t, "", "secret", "rm", "tok")
	if r := u.main("", "secret", "rm", "tok"); r.code != 1 || !strings.Contains(r.stderr, `secret "tok" is not set`) {
		t.Fatalf("removing a missing secret: %s", r)
	}
	if out := u.ok(t, "", "secret", "list"); !strings.Contains(out, "no secrets") {
		t.Fatalf("secret list: %q", out)
	}
}

// TestStopWhenTheHostClosesFirst: a host may close the connection (with
// "shutting down") before its answer to host.stop is written; `stop` has
// then done what it was asked, and says so with exit 0. Here a fake host
// always closes first.
func TestStopWhenTheHostClosesFirst(t *testing.T) {
	u := newUnit(t)
	dir := os.Getenv("SWITCHBOARD_RUNTIME_DIR")
	lock, err := api.AcquireInstanceLock(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	var srv *api.Server
	srv = api.NewServer(api.Methods{
		hostapi.MethodHostInfo.Name: func(ctx context.Context, _ *api.ConnInfo, _ json.RawMessage) (any, error) {
			return hostapi.Info{PID: os.Getpid(), ConfigPath: u.configPath()}, nil
		},
		hostapi.MethodHostStop.Name: func(ctx context.Context, _ *api.ConnInfo, _ json.RawMessage) (any, error) {
			go srv.Close()
			<-ctx.Done()
			return nil, ctx.Err()
		},
	}, api.Options{})
	l, err := lock.Listen(filepath.Join(dir, api.SocketName))
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() { _ = srv.Serve(l); close(served) }()
	r := u.main("", "stop")
	if r.code != 0 || r.stdout != fmt.Sprintf("stopped the host (pid %d) and its servers\n", os.Getpid()) {
		t.Fatalf("stop: %s", r)
	}
	<-served
}

// TestMisspelledServerName: with no host, a command that names a server
// the config lacks, but one near it, says which one was probably meant.
func TestMisspelledServerName(t *testing.T) {
	u := newUnit(t)
	u.ok(t, "", "servers", "add", "everything", "--", "/bin/cat")
	for _, args := range [][]string{
		{"servers", "remove", "evrything"},
		{"servers", "set", "evrything", "--env", "A=B"},
		{"servers", "disable", "everyhting"},
		{"servers", "rename", "evrything", "x"},
	} {
		r := u.main("", args...)
		if r.code != 1 || !strings.Contains(r.stderr, `is not in the config (did you mean "everything"?)`) {
			t.Errorf("switchboard %q: want exit 1 and a guess of \"everything\", got %s", args, r)
		}
	}
}

// TestSecretRmUsed: removing a secret that servers use says which, what
// happens to them, and how to store it again; an unused one says nothing
// more.
func TestSecretRmUsed(t *testing.T) {
	u := newUnit(t)
	u.ok(t, "", "servers", "add", "gh", "--secret-env", "TOKEN=tok", "--", "/bin/cat")
	u.ok(t, "", "servers", "add", "gh2", "--secret-env", "TOKEN=tok", "--", "/bin/cat")
	u.ok(t, "v1\n", "secret", "set", "tok")
	u.ok(t, "v2\n", "secret", "set", "lone")
	out := u.ok(t, "", "secret", "rm", "tok")
	want := "secret tok removed from the keyring\nnote: gh and gh2 use it: a running server keeps the value it started with, and its next start waits for the secret ('switchboard secret set tok' stores it again)\n"
	if out != want {
		t.Fatalf("secret rm of a used secret printed %q, want %q", out, want)
	}
	if out := u.ok(t, "", "secret", "rm", "lone"); out != "secret lone removed from the keyring\n" {
		t.Fatalf("secret rm of an unused secret printed %q", out)
	}
}

// TestImportUnreadable: a file that cannot be read, or stdin that holds
// no mcpServers block, is named (stdin has no name of its own in the
// parser's error) with what to give instead; nothing is written.
func TestImportUnreadable(t *testing.T) {
	u := newUnit(t)
	missing := filepath.Join(t.TempDir(), "nope.json")
	for _, tc := range []struct {
		stdin string
		args  []string
		want  string
	}{
		{"", []string{"servers", "import", missing}, "servers import: cannot read " + missing + " (open "},
		{"garbage\n", []string{"servers", "import", "-"}, `servers import: stdin is not a Claude-style "mcpServers" block (line 1, column 1: `},
	} {
		r := u.main(tc.stdin, tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) || !strings.Contains(r.stderr, "give ") {
			t.Errorf("switchboard %q: want exit 1 and %q with what to give, got %s", tc.args, tc.want, r)
		}
	}
	if _, err := os.Stat(u.configPath()); err == nil {
		t.Error("a refused import wrote the config")
	}
}

// TestUnsetEnv: servers set --unset-env removes a variable of the entry's
// env; one the env does not have (a misspelling) is refused with what it
// has, and nothing is written.
func TestUnsetEnv(t *testing.T) {
	u := newUnit(t)
	u.ok(t, "", "servers", "add", "x", "--env", "FOO=1", "--env", "BAR=2", "--", "/bin/cat")
	u.ok(t, "", "servers", "set", "x", "--unset-env", "FOO")
	before, err := os.ReadFile(u.configPath())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(before), `"BAR": "2"`) || strings.Contains(string(before), `"FOO"`) {
		t.Fatalf("after --unset-env FOO:\n%s", before)
	}
	r := u.main("", "servers", "set", "x", "--unset-env", "BRA")
	if want := `servers set x: --unset-env BRA: its env has no BRA (did you mean "BAR"?), only BAR: nothing was changed`; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Fatalf("--unset-env of a variable the env lacks: want exit 1 and %q, got %s", want, r)
	}
	if after, _ := os.ReadFile(u.configPath()); string(after) != string(before) {
		t.Fatalf("a refused --unset-env changed the file:\n%s", after)
	}
}
