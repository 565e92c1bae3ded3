//go:build linux

package cli

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestClientsImportRemoteRealKeyring: `clients import claude-desktop` of a
// Claude Desktop config with mcp-remote entries (a literal Bearer header; a
// header from the entry's env with --transport sse-only), a url entry and
// an mcp-remote option Switchboard does not know, through the real program
// with a private gnome-keyring. The dry run prints the plan and writes
// nothing; the import moves the header tokens into the keyring, the config
// holds the remote entries with ${keyring:...} references, the app's file
// names the bridge (and keeps the entry it does not understand), and no
// file of the sandbox but the app file's backup holds a token.
func TestClientsImportRemoteRealKeyring(t *testing.T) {
	sb := newSandbox(t)
	addr := privateKeyring(t, sb)
	sb.env = sb.with("DBUS_SESSION_BUS_ADDRESS=" + addr)
	b, err := os.ReadFile(filepath.Join("..", "aiapps", "testdata", "import", "claude-desktop-remote.json"))
	if err != nil {
		t.Fatal(err)
	}
	orig := string(b)
	path := filepath.Join(sb.configHome, "Claude", "claude_desktop_config.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{ // secret name -> value
		"linear-authorization": "lin_api_FAKE0123456789abcdef",
		"docs-x-api-key":       "dk_FAKE_9876543210",
		"hf-authorization":     "hf_FAKEtoken0123456789",
	}
	var outputs []string
	run := func(args ...string) string {
		t.Helper()
		r := sb.run(t, "", args...)
		outputs = append(outputs, r.stdout, r.stderr)
		if r.code != 0 {
			t.Fatalf("switchboard %s: %s", strings.Join(args, " "), r)
		}
		return r.stdout
	}

	dry := run("clients", "import", "claude-desktop", "--dry-run", "--move-secrets")
	for _, want := range []string{
		"would import linear as linear", "would import docs as docs", "would import hf as hf", "would import files as files",
		`skipped: "odd": not imported: an mcp-remote entry (mcp-remote https://odd.example.com/mcp): mcp-remote's option "--static-oauth-client-info" is not one Switchboard understands`,
		`would move linear.headers.Authorization into the keyring as "linear-authorization"`,
		`would move docs.headers.X-Api-Key into the keyring as "docs-x-api-key"`,
		`would move hf.headers.Authorization into the keyring as "hf-authorization"`,
	} {
		if !strings.Contains(dry, want) {
			t.Errorf("the dry run lacks %q:\n%s", want, dry)
		}
	}
	if got, _ := os.ReadFile(path); string(got) != orig {
		t.Fatal("the dry run changed the app's file")
	}
	if _, err := os.Stat(sb.configPath()); !os.IsNotExist(err) {
		t.Fatal("the dry run wrote the config")
	}

	out := run("clients", "import", "claude-desktop", "--move-secrets", "--yes")
	for _, want := range []string{
		`moved linear.headers.Authorization into the keyring as "linear-authorization"`,
		`moved docs.headers.X-Api-Key into the keyring as "docs-x-api-key"`,
		`moved hf.headers.Authorization into the keyring as "hf-authorization"`,
		"imported linear", "imported docs", "imported hf", "imported files",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the import lacks %q:\n%s", want, out)
		}
	}
	f, err := config.Load(sb.configPath())
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct{ url, typ, header, value string }{
		"linear": {"https://mcp.linear.example/mcp", "", "Authorization", "Bearer ${keyring:linear-authorization}"},
		"docs":   {"https://docs.example.com/sse", "sse", "X-Api-Key", "${keyring:docs-x-api-key}"},
		"hf":     {"https://huggingface.example/mcp", "http", "Authorization", "Bearer ${keyring:hf-authorization}"},
	} {
		s := f.Servers[name]
		if s == nil || s.URL != want.url || s.Type != want.typ || s.Headers[want.header] != want.value || s.Command != "" || len(s.Env) != 0 {
			t.Errorf("%s: %+v, want %+v", name, s, want)
			continue
		}
		if len(s.Problems()) > 0 {
			t.Errorf("%s: problems %v", name, s.Problems())
		}
	}
	if s := f.Servers["hf"]; s != nil && s.Headers["X-Team"] != "blue" {
		t.Errorf("hf: X-Team %q", s.Headers["X-Team"])
	}
	if _, ok := f.Servers["odd"]; ok {
		t.Error("odd was imported")
	}
	t.Run("the keyring's values", func(t *testing.T) {
		if _, err := exec.LookPath("secret-tool"); err != nil {
			testkit.SkipOrFail(t, "the keyring's values are read back with secret-tool (Debian: apt-get install libsecret-tools): %v", err)
		}
		for name, v := range tokens {
			cmd := exec.Command("secret-tool", "lookup", "service", "switchboard", "username", name)
			cmd.Env = sb.env
			if got, err := cmd.Output(); err != nil || string(got) != v {
				t.Errorf("secret-tool lookup %s: %q %v", name, got, err)
			}
		}
	})

	// The app's file: the bridge in place of the imported entries; odd stays.
	after, _ := os.ReadFile(path)
	doc, err := mustApp(t, "claude-desktop").Parse(after)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range doc.Servers() {
		names = append(names, s.Name)
	}
	if strings.Join(names, ",") != "odd,"+aiapps.EntryName && strings.Join(names, ",") != aiapps.EntryName+",odd" {
		t.Errorf("the app's servers: %q\n%s", names, after)
	}
	if _, _, ok := doc.Connected(); !ok {
		t.Errorf("the app's file does not name the bridge:\n%s", after)
	}

	// No token in any output, nor in any file but the app file's backup
	// (which the import says holds them).
	if !strings.Contains(out, "the backup still holds the old entries with their secrets in plain text") {
		t.Errorf("no note of the backup:\n%s", out)
	}
	for _, v := range tokens {
		for _, o := range outputs {
			if strings.Contains(o, v) {
				t.Errorf("a token is in an output:\n%s", o)
			}
		}
	}
	for _, root := range []string{sb.home, sb.configHome, sb.cacheHome, sb.runtime} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(p, path+aiapps.BackupSuffix) || strings.HasPrefix(p, filepath.Join(sb.home, ".local", "share", "keyrings")) {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			for _, v := range tokens {
				if bytes.Contains(data, []byte(v)) {
					t.Errorf("%s holds a token", p)
				}
			}
			return nil
		})
	}
}

// TestClientsImportRemoteKeepsLiteralWithoutMove: without --move-secrets a
// remote entry's literal header token is not written to the config: the
// save refuses the entry (a literal header secret is a problem) with the
// remedy, and the app keeps it.
func TestClientsImportRemoteKeepsLiteralWithoutMove(t *testing.T) {
	u, _ := clientsUnit(t)
	path := appFile(t, "cursor")
	orig := `{"mcpServers": {"hf": {"url": "https://hf.example/mcp", "headers": {"Authorization": "Bearer hf_FAKE_literal_0123"}}, "open": {"url": "https://open.example/mcp"}}}`
	writeApp(t, path, orig, 0o600)
	r := u.main("", "clients", "import", "cursor", "--yes")
	if r.code != 1 || !strings.Contains(r.stdout, "not imported: hf: headers.Authorization looks like a secret, and a secret is kept only in the keyring, never as plain text in the config: run the import with --move-secrets to move it into the keyring (it stays in Cursor)") ||
		!strings.Contains(r.stdout, "imported open") || strings.Contains(r.stdout+r.stderr, "hf_FAKE_literal") {
		t.Fatalf("%s", r)
	}
	b, _ := os.ReadFile(u.configPath())
	if bytes.Contains(b, []byte("hf_FAKE_literal")) || bytes.Contains(b, []byte(`"hf"`)) {
		t.Fatalf("the config:\n%s", b)
	}
	after, _ := os.ReadFile(path)
	if !bytes.Contains(after, []byte(`"hf": {"url"`)) || bytes.Contains(after, []byte(`"open"`)) {
		t.Fatalf("the app's file:\n%s", after)
	}
}
