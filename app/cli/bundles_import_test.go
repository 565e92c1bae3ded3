//go:build linux

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"golang.org/x/sys/unix"
)

// claudeFolder writes Claude Desktop's extensions under the config home
// (Claude's folder on Linux is $XDG_CONFIG_HOME/Claude): id → manifest,
// settings ("" for no settings file) and more files (rel → content; a
// content "@FILE" is a copy of FILE, executable).
type fakeExt struct {
	manifest, settings string
	files              map[string]string
}

func claudeFolder(t *testing.T, configHome string, exts map[string]fakeExt) string {
	t.Helper()
	folder := filepath.Join(configHome, "Claude")
	for id, x := range exts {
		dir := filepath.Join(folder, "Claude Extensions", id)
		files := map[string]string{"manifest.json": x.manifest}
		for k, v := range x.files {
			files[k] = v
		}
		for rel, body := range files {
			p := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if src, ok := strings.CutPrefix(body, "@"); ok {
				copyExe(t, src, p)
				continue
			}
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if x.settings != "" {
			p := filepath.Join(folder, "Claude Extensions Settings", id+".json")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(x.settings), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return folder
}

func copyExe(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// echoManifest is a node-less binary bundle running this test binary as
// the modern helper (one tool, echo), with a directory option, a
// sensitive one and a number.
func echoManifest(mark string) string {
	return `{"manifest_version":"0.3","name":"echo","display_name":"Echo","version":"1.0.0","description":"d","author":{"name":"Acme"},
 "server":{"type":"binary","entry_point":"server/echo","mcp_config":{"command":"${__dirname}/server/echo","args":["--root","${user_config.root}"],
  "env":{"` + helperEnv + `":"modern","` + markEnv + `":"` + mark + `","GORACE":"atexit_sleep_ms=0","TOKEN":"${user_config.token}","API_KEY":"${user_config.api_key}","N":"${user_config.n}"}}},
 "user_config":{"root":{"type":"directory","title":"Root","description":"the folder it works in","required":true},
  "token":{"type":"string","title":"Token","description":"t","sensitive":true,"required":true},
  "api_key":{"type":"string","title":"API key","description":"k","sensitive":true},
  "n":{"type":"number","title":"N","description":"n","default":3}}}`
}

// TestBundlesImportClaudeDesktop: with a fake Claude Desktop folder in the
// test's HOME holding three extensions (a binary bundle running this test
// binary as an MCP server, with a directory option, a sensitive one, a
// number, and a second sensitive one whose value Claude's settings hold in
// plain text, which is not taken; one whose manifest is refused; one
// disabled), 'bundles import claude-desktop' lists them with what must be
// given again; --all without the sensitive value skips the good one with
// the remedy; with it (--set), the good one is installed — its directory
// and number carried over from Claude's settings, the sensitive value in
// the (real, private) keyring, first started with its tool listed — while
// the bad one is refused with its manifest problem named and the disabled
// one left alone; the list then shows it in Switchboard and a second
// import skips it (not an error). The sensitive value is in no output and
// no file under the test's HOME, config and cache (gnome-keyring's own
// store aside).
func TestBundlesImportClaudeDesktop(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program, a real keyring)")
	sb := newSandbox(t)
	addr := privateKeyring(t, sb)
	sb.env = sb.with("DBUS_SESSION_BUS_ADDRESS=" + addr)
	proj := filepath.Join(sb.home, "proj")
	if err := os.MkdirAll(proj, 0o700); err != nil {
		t.Fatal(err)
	}
	const good, bad, off = "local.mcpb.acme.echo", "local.mcpb.acme.broken", "local.mcpb.acme.off"
	// Made at run time: a constant would be in this test binary, which
	// the bundle carries.
	token := fmt.Sprintf("tok-%d-SECRET-%d", os.Getpid(), time.Now().UnixNano())
	claudeFolder(t, sb.configHome, map[string]fakeExt{
		good: {manifest: echoManifest(sb.mark), files: map[string]string{"server/echo": "@" + testExe},
			settings: `{"isEnabled": true, "userConfig": {"root": "` + proj + `", "token": "__encrypted__:djEwAAAAciphertext", "api_key": "plain-legacy-key", "n": 5, "stale": "x"}}`},
		bad: {manifest: strings.Replace(echoManifest(sb.mark), `"type":"directory"`, `"type":"folder"`, 1),
			settings: `{"isEnabled": true, "userConfig": {}}`},
		off: {manifest: `{"manifest_version":"0.3","name":"off","version":"2.0.0","description":"d","author":{"name":"Acme"},
 "server":{"type":"binary","entry_point":"x","mcp_config":{"command":"/bin/true"}}}`, settings: `{"isEnabled": false}`},
	})
	var outputs []string
	run := func(args ...string) result {
		t.Helper()
		r := sb.run(t, "", args...)
		outputs = append(outputs, r.stdout, r.stderr)
		return r
	}

	r := run("bundles", "import", "claude-desktop")
	if r.code != 0 {
		t.Fatalf("the list: %s", r)
	}
	for _, want := range []string{
		"local.mcpb.acme.broken  ?     ?        yes      no              -",
		"local.mcpb.acme.echo    Echo  1.0.0    yes      no              token (required), api_key",
		"local.mcpb.acme.off     off   2.0.0    no       no              -",
		`problem: local.mcpb.acme.broken: its manifest is refused: user_config.root.type: "folder" is not a type`,
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the list lacks %q:\n%s", want, r.stdout)
		}
	}

	r = run("bundles", "import", "claude-desktop", "--all")
	if r.code != 1 || !strings.Contains(r.stdout, "not imported: local.mcpb.acme.echo: token (Token) is required and sensitive: Claude Desktop keeps it encrypted with its own keychain's key, which Switchboard does not read: give it with --set local.mcpb.acme.echo.token=VALUE") {
		t.Fatalf("--all without the sensitive value: %s", r)
	}
	if _, err := os.Stat(sb.configPath()); err == nil {
		if b, _ := os.ReadFile(sb.configPath()); bytes.Contains(b, []byte(`"echo"`)) {
			t.Fatalf("a skipped extension is in the config:\n%s", b)
		}
	}

	r = run("bundles", "import", "claude-desktop", "--all", "--set", good+".token="+token)
	if r.code != 1 {
		t.Fatalf("--all with the bad one: %s", r)
	}
	state := filepath.Join(sb.home, ".local", "state", "switchboard")
	lock, err := install.ReadLock(state)
	if err != nil || lock.Servers["echo"] == nil || lock.Servers["echo"].Bundle == nil {
		t.Fatalf("servers.lock: %+v %v\n%s", lock, err, r)
	}
	store := lock.Servers["echo"].Dir
	for _, want := range []string{
		"added echo: Claude Desktop extension local.mcpb.acme.echo (echo 1.0.0)",
		"  runs:   " + filepath.Join(store, "server", "echo") + " --root " + proj,
		"  from Claude Desktop's settings: n, root",
		"  not carried over: api_key (sensitive: given again below), stale (not an option of this version)",
		"note: local.mcpb.acme.echo: the sensitive option api_key is left unset (give it with --set local.mcpb.acme.echo.api_key=VALUE)",
		"  secret echo-token stored in the keyring (the config refers to it)",
		"1 tool",
		"echo",
		"not imported: local.mcpb.acme.broken: ",
		`user_config.root.type: "folder" is not a type: use string, number, boolean, directory or file`,
		"shared through the gateway: no AI app is connected to Switchboard yet",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the import's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if !strings.HasPrefix(store, install.BundlesRoot(state)+string(filepath.Separator)) {
		t.Errorf("the bundle's folder %s is not in the store", store)
	}
	if o := lock.Servers["echo"].Bundle.Origin; o != "Claude Desktop extension "+good {
		t.Errorf("the lock's origin %q", o)
	}
	cfg := readConfig(t, sb.configPath())
	var entry struct {
		Args []string          `json:"args"`
		Env  map[string]string `json:"env"`
	}
	raw, _ := json.Marshal(servers(cfg)["echo"])
	if err := json.Unmarshal(raw, &entry); err != nil {
		t.Fatalf("the config's echo: %v\n%s", err, servers(cfg)["echo"])
	}
	if entry.Env["TOKEN"] != "${keyring:echo-token}" || entry.Env["N"] != "5" || entry.Env["API_KEY"] != "" || strings.Join(entry.Args, " ") != "--root "+proj {
		t.Errorf("the config's entry: %+v", entry)
	}
	for _, name := range []string{"broken", "off"} {
		if _, ok := servers(cfg)[name]; ok {
			t.Errorf("%s is in the config", name)
		}
	}
	cmd := exec.Command("secret-tool", "lookup", "service", "switchboard", "username", "echo-token")
	cmd.Env = sb.env
	if got, err := cmd.Output(); err != nil || string(got) != token {
		t.Errorf("secret-tool lookup echo-token: %q %v", got, err)
	}

	r = run("bundles", "import", "claude-desktop")
	if !strings.Contains(r.stdout, "local.mcpb.acme.echo    Echo  1.0.0    yes      as echo         token (required), api_key") {
		t.Errorf("the list after the import:\n%s", r)
	}
	r = run("bundles", "import", "claude-desktop", good, "--set", "token="+token)
	if r.code != 0 || !strings.Contains(r.stdout, "local.mcpb.acme.echo is already in Switchboard as echo: skipped ('switchboard bundles remove echo' first") {
		t.Errorf("a second import: %s", r)
	}

	for _, o := range outputs {
		if strings.Contains(o, token) {
			t.Errorf("the sensitive value is in an output:\n%s", o)
		}
	}
	keyrings := filepath.Join(sb.home, ".local", "share", "keyrings")
	files := 0
	for _, root := range []string{sb.home, sb.configHome, sb.cacheHome, sb.runtime} {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasPrefix(p, keyrings) {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			files++
			if bytes.Contains(data, []byte(token)) {
				t.Errorf("%s holds the sensitive value", p)
			}
			return nil
		})
	}
	if files < 5 {
		t.Errorf("only %d files were searched", files)
	}
}

// TestBundlesImportRefusesLink: an extension folder with a symbolic link
// in it (to a file outside) is refused when imported, naming the link,
// and nothing of it is left in the config or the store; a manifest that
// is itself a link is a problem of the list.
func TestBundlesImportRefusesLink(t *testing.T) {
	u := newUnit(t)
	t.Setenv("HOME", filepath.Join(u.dir, "home"))
	t.Setenv("XDG_STATE_HOME", "")
	const id = "local.mcpb.acme.linked"
	m := `{"manifest_version":"0.3","name":"linked","version":"1.0.0","description":"d","author":{"name":"Acme"},
 "server":{"type":"binary","entry_point":"x","mcp_config":{"command":"/bin/true"}}}`
	folder := claudeFolder(t, filepath.Join(u.dir, "cfg"), map[string]fakeExt{
		id:                      {manifest: m, settings: `{"isEnabled": true}`, files: map[string]string{"data/ok.txt": "ok"}},
		"local.mcpb.acme.mlink": {manifest: m, settings: `{"isEnabled": true}`},
	})
	ext := filepath.Join(folder, "Claude Extensions")
	if err := os.Symlink("/etc/passwd", filepath.Join(ext, id, "data", "passwd")); err != nil {
		t.Fatal(err)
	}
	mlink := filepath.Join(ext, "local.mcpb.acme.mlink", "manifest.json")
	os.Remove(mlink)
	if err := os.Symlink(filepath.Join(ext, id, "manifest.json"), mlink); err != nil {
		t.Fatal(err)
	}
	out := u.ok(t, "", "bundles", "import", "claude-desktop")
	if !strings.Contains(out, "problem: local.mcpb.acme.mlink: its manifest.json is not a file (L---------): refused") {
		t.Errorf("the list:\n%s", out)
	}
	r := u.main("", "bundles", "import", "claude-desktop", id, "--no-start")
	if r.code != 1 || !strings.Contains(r.stdout, "not imported: "+id+": ") || !strings.Contains(r.stdout, "data/passwd is not a file or a folder") || !strings.Contains(r.stdout, "refused") {
		t.Fatalf("a link in the extension: %s", r)
	}
	if b, err := os.ReadFile(u.configPath()); err == nil && bytes.Contains(b, []byte("linked")) {
		t.Errorf("the config holds the refused extension:\n%s", b)
	}
	root := install.BundlesRoot(filepath.Join(u.dir, "home", ".local", "state", "switchboard"))
	if ents, _ := os.ReadDir(root); len(ents) != 0 {
		t.Errorf("the store holds %v", ents)
	}
}

// TestBundlesImportDisabledOnlyNamed: --all imports the extensions Claude
// Desktop has enabled, and a disabled one only when it is named (said so);
// an extension with no settings file is disabled (Claude Desktop does not
// start it); an ID Claude does not have is a usage error naming the ones
// it has, before anything is installed; a sensitive value Claude's settings
// hold in plain text is not taken (left unset, said so).
func TestBundlesImportDisabledOnlyNamed(t *testing.T) {
	u := newUnit(t)
	t.Setenv("HOME", filepath.Join(u.dir, "home"))
	t.Setenv("XDG_STATE_HOME", "")
	m := func(name string) string {
		return `{"manifest_version":"0.3","name":"` + name + `","version":"1.0.0","description":"d","author":{"name":"Acme"},
 "server":{"type":"binary","entry_point":"x","mcp_config":{"command":"/bin/true"}}}`
	}
	claudeFolder(t, filepath.Join(u.dir, "cfg"), map[string]fakeExt{
		"local.mcpb.acme.off": {manifest: strings.Replace(m("off"), `"command":"/bin/true"}}`,
			`"command":"/bin/true","env":{"KEY":"${user_config.api_key}"}}},"user_config":{"api_key":{"type":"string","title":"K","description":"k","sensitive":true}}`, 1),
			settings: `{"isEnabled": false, "userConfig": {"api_key": "plain-in-claude"}}`},
		"local.mcpb.acme.bare": {manifest: m("bare")},
	})
	r := u.main("", "bundles", "import", "claude-desktop", "--all", "--no-start")
	if r.code != 1 || !strings.Contains(r.stderr, "no extension of Claude Desktop is enabled: name the ones to import") {
		t.Fatalf("--all with none enabled: %s", r)
	}
	r = u.main("", "bundles", "import", "claude-desktop", "local.mcpb.acme.off", "nope", "--no-start")
	if r.code != 2 || !strings.Contains(r.stderr, `Claude Desktop has no extension "nope": it has local.mcpb.acme.bare and local.mcpb.acme.off`) {
		t.Fatalf("an unknown ID: %s", r)
	}
	if _, err := os.Stat(u.configPath()); err == nil {
		t.Fatal("an import refused for an unknown ID wrote the config")
	}
	out := u.ok(t, "", "bundles", "import", "claude-desktop", "local.mcpb.acme.off", "--no-start")
	if !strings.Contains(out, "note: local.mcpb.acme.off is disabled in Claude Desktop: imported because it was named") ||
		!strings.Contains(out, "added off: Claude Desktop extension local.mcpb.acme.off (off 1.0.0)") ||
		!strings.Contains(out, "  not carried over: api_key (sensitive: given again below)") ||
		!strings.Contains(out, "note: local.mcpb.acme.off: the sensitive option api_key is left unset") {
		t.Errorf("a disabled extension named:\n%s", out)
	}
	f := u.load(t, u.configPath())
	if _, ok := f.Servers["off"]; !ok {
		t.Errorf("off is not in the config")
	}
	if b, _ := os.ReadFile(u.configPath()); bytes.Contains(b, []byte("plain-in-claude")) || bytes.Contains(b, []byte("keyring:")) {
		t.Errorf("the sensitive value in Claude's settings was taken:\n%s", b)
	}
	if _, err := u.store.Get("off-api_key"); err == nil {
		t.Error("the sensitive value in Claude's settings was stored in the keyring")
	}
	if _, ok := f.Servers["bare"]; ok {
		t.Errorf("bare (not named) is in the config")
	}
}

// openPTY opens a pseudo-terminal: its master and its slave, the
// terminal a user would type into.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		testkit.SkipOrFail(t, "no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { master.Close() })
	if err := unix.IoctlSetPointerInt(int(master.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(master.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	slave, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { slave.Close() })
	return master, slave
}

// TestBundlesImportAsksOnTerminal: on a terminal, import asks for a
// required sensitive value Claude Desktop keeps to itself, with echo off,
// and stores what is typed in the keyring (the config refers to it).
func TestBundlesImportAsksOnTerminal(t *testing.T) {
	u := newUnit(t)
	t.Setenv("HOME", filepath.Join(u.dir, "home"))
	t.Setenv("XDG_STATE_HOME", "")
	const id = "local.mcpb.acme.asked"
	claudeFolder(t, filepath.Join(u.dir, "cfg"), map[string]fakeExt{
		id: {manifest: `{"manifest_version":"0.3","name":"asked","version":"1.0.0","description":"d","author":{"name":"Acme"},
 "server":{"type":"binary","entry_point":"x","mcp_config":{"command":"/bin/true","env":{"TOKEN":"${user_config.token}"}}},
 "user_config":{"token":{"type":"string","title":"Token","description":"t","sensitive":true,"required":true}}}`,
			settings: `{"isEnabled": true, "userConfig": {"token": "__encrypted__:djEwAAAA"}}`},
	})
	master, slave := openPTY(t)
	var out, errb bytes.Buffer
	done := make(chan int)
	go func() {
		done <- Main([]string{"bundles", "import", "claude-desktop", id, "--no-start"}, slave, &out, &errb)
	}()
	// Typed once the terminal no longer echoes: the prompt is up (or the
	// import ended without asking).
	code := -1
	testkit.Eventually(t, "the prompt turns the terminal's echo off", func() bool {
		select {
		case code = <-done:
			return true
		default:
		}
		tio, err := unix.IoctlGetTermios(int(slave.Fd()), unix.TCGETS)
		return err == nil && tio.Lflag&unix.ECHO == 0
	})
	if code != -1 {
		t.Fatalf("the import ended (exit %d) without asking:\n%s\n%s", code, out.String(), errb.String())
	}
	typed := fmt.Sprintf("typed-%d", time.Now().UnixNano())
	if _, err := master.Write([]byte(typed + "\n")); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	if !strings.Contains(errb.String(), id+": token (Token) is sensitive: Claude Desktop keeps it in its keychain; type it again (not shown; required): ") ||
		!strings.Contains(out.String(), "secret asked-token stored in the keyring") || strings.Contains(out.String()+errb.String(), typed) {
		t.Errorf("the prompt and the output:\n%s\n%s", out.String(), errb.String())
	}
	if s, err := u.store.Get("asked-token"); err != nil || s.Reveal() != typed {
		t.Errorf("the keyring's asked-token: %v", err)
	}
	if b, _ := os.ReadFile(u.configPath()); !bytes.Contains(b, []byte(`"TOKEN": "${keyring:asked-token}"`)) {
		t.Errorf("the config:\n%s", b)
	}
}
