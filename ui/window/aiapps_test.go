package window

// The "AI apps" panel against a real host, with HOME and XDG_CONFIG_HOME
// in temporary directories that hold one app's config file, and its golden
// markup over fixed files.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// startApps starts a host with the servers of cfg and HOME in a temporary
// directory; the config directories are the harness's (XDG_CONFIG_HOME).
func startApps(t *testing.T, cfg map[string]any, home string) *harness {
	t.Helper()
	return start(t, cfg, "HOME", home, "CLAUDE_CONFIG_DIR", "")
}

// openApps opens the panel and waits for its rows.
func (h *harness) openApps() *appsView {
	h.t.Helper()
	test.Tap(h.w.appsBtn)
	v := h.w.apps
	if v == nil {
		h.t.Fatal("the AI apps button did not open the panel")
	}
	h.until("the apps' rows", func() bool { return v.loaded })
	return v
}

func writeFixture(t *testing.T, path string, data []byte, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, mode); err != nil {
		t.Fatal(err)
	}
}

func jsonObject(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	return m
}

// TestAppsConnect connects Claude Desktop to one of two servers: Cancel
// leaves its file byte for byte; Connect writes the bridge entry and keeps
// everything else (the other entries, the app's own keys, the file's
// mode) with a backup; Disconnect gives the original file back.
func TestAppsConnect(t *testing.T) {
	h := startApps(t, map[string]any{"alpha": helperEntry(), "beta": helperEntry()}, t.TempDir())
	h.row("alpha")
	h.row("beta")
	path := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "Claude", "claude_desktop_config.json")
	fixture := must(os.ReadFile("testdata/claude_desktop_config.json"))
	writeFixture(t, path, fixture, 0o640)

	v := h.openApps()
	r := v.rows["claude-desktop"]
	if r == nil {
		t.Fatal("no row for Claude Desktop")
	}
	if r.found.Text != "Found" || r.conn.Text != "Not connected" || r.path.Text != path || r.pathNote.Text != "" {
		t.Errorf("row: found %q, connected %q, path %q %q", r.found.Text, r.conn.Text, r.path.Text, r.pathNote.Text)
	}
	if !r.path.Selectable {
		t.Error("the config path is not selectable")
	}
	if r.own.Text != "filesystem, github: Import… moves them into Switchboard" || r.through.Text != "Nothing: not connected" {
		t.Errorf("servers: own %q, through %q", r.own.Text, r.through.Text)
	}
	if r.connect.Disabled() || !r.disconnect.Disabled() || r.importB.Disabled() || r.err.Visible() {
		t.Errorf("buttons: connect disabled %v, disconnect disabled %v, import disabled %v; error %q",
			r.connect.Disabled(), r.disconnect.Disabled(), r.importB.Disabled(), r.err.Text)
	}
	if r.connect.Text != "Connect…" {
		t.Errorf("an app not connected: the button reads %q", r.connect.Text)
	}
	if c := v.rows["cursor"]; c == nil || c.found.Text != "Not found" || c.pathNote.Text != "(no file yet)" {
		t.Errorf("an app that is not here: %+v", c)
	}
	exe := must(bridge.Executable())
	if v.exe != exe {
		t.Errorf("the entry would run %q; want %q", v.exe, exe)
	}

	// Cancel writes nothing.
	test.Tap(r.connect)
	c := v.change
	if c == nil {
		t.Fatal("Connect did not show the change")
	}
	if !slices.Equal(c.servers.Selected, []string{"alpha", "beta"}) {
		t.Errorf("servers checked at first: %q (want every enabled one)", c.servers.Selected)
	}
	if !strings.Contains(c.diffText, `+    "switchboard": {`) || !strings.Contains(c.diffText, jsonString(exe)) || strings.Contains(c.diffText, "--servers") {
		t.Errorf("the change for every server:\n%s", c.diffText)
	}
	if strings.Contains(c.diffText, "ghp_0123456789abcdef") {
		t.Errorf("the diff shows a secret of the app's file:\n%s", c.diffText)
	}
	test.Tap(c.cancel)
	if v.change != nil {
		t.Error("Cancel left the dialog")
	}
	if got := must(os.ReadFile(path)); !bytes.Equal(got, fixture) {
		t.Fatalf("Cancel changed the file:\n%s", got)
	}
	if b := aiapps.Backups(path); len(b) != 0 {
		t.Errorf("Cancel made a backup: %v", b)
	}

	// Connect to alpha only.
	test.Tap(r.connect)
	c = v.change
	c.servers.SetSelected(nil)
	if !c.ok.Disabled() {
		t.Error("Connect with no server checked is allowed")
	}
	c.servers.SetSelected([]string{"alpha"})
	if c.ok.Disabled() || !strings.Contains(c.diffText, `"--servers"`) || !strings.Contains(c.diffText, `"alpha"`) {
		t.Fatalf("the change for alpha (ok disabled %v):\n%s", c.ok.Disabled(), c.diffText)
	}
	shown := c.after
	test.Tap(c.ok)
	h.until("Claude Desktop connected", func() bool {
		r := v.rows["claude-desktop"]
		return v.change == nil && r != nil && r.conn.Text == "Connected"
	})
	r = v.rows["claude-desktop"]
	got := must(os.ReadFile(path))
	if !bytes.Equal(got, shown) {
		t.Errorf("the file is not the change shown:\n%s\nshown:\n%s", got, shown)
	}
	after := jsonObject(t, got)
	servers := after["mcpServers"].(map[string]any)
	want := map[string]any{"command": exe, "args": []any{"bridge", "--servers", "alpha"}}
	if !reflect.DeepEqual(servers[aiapps.EntryName], want) {
		t.Errorf("the bridge entry: %v; want %v", servers[aiapps.EntryName], want)
	}
	delete(servers, aiapps.EntryName)
	if orig := jsonObject(t, fixture); !reflect.DeepEqual(after, orig) {
		t.Errorf("the rest of the file changed:\n%s", got)
	}
	if fi := must(os.Stat(path)); fi.Mode().Perm() != 0o640 {
		t.Errorf("the file's mode became %v", fi.Mode().Perm())
	}
	if b := aiapps.Backups(path); len(b) != 1 || !bytes.Equal(must(os.ReadFile(b[0])), fixture) {
		t.Errorf("backups: %v", b)
	}
	if r.through.Text != "alpha" || !strings.Contains(r.note.Text, "Connected: ") || !strings.Contains(r.note.Text, "Quit Claude Desktop completely") {
		t.Errorf("after connect: through %q, note %q", r.through.Text, r.note.Text)
	}
	if r.disconnect.Disabled() {
		t.Error("Disconnect is disabled for a connected app")
	}
	if r.connect.Text != "Change…" {
		t.Errorf("a connected app: the button reads %q", r.connect.Text)
	}

	// Disconnect: Cancel keeps the file; confirmed, the original comes back.
	test.Tap(r.disconnect)
	c = v.change
	if c == nil {
		t.Fatal("Disconnect did not show the change")
	}
	if !strings.Contains(c.diffText, `-    "switchboard": {`) {
		t.Fatalf("the change of Disconnect:\n%s", c.diffText)
	}
	test.Tap(c.cancel)
	if !bytes.Equal(must(os.ReadFile(path)), got) {
		t.Fatal("Cancel of Disconnect changed the file")
	}
	test.Tap(r.disconnect)
	test.Tap(v.change.ok)
	h.until("Claude Desktop disconnected", func() bool {
		r := v.rows["claude-desktop"]
		return v.change == nil && r != nil && r.conn.Text == "Not connected"
	})
	if got := must(os.ReadFile(path)); !bytes.Equal(got, fixture) {
		t.Errorf("connect then disconnect did not give the file back:\n%s", got)
	}
}

// TestAppsBrokenFile shows why a file that is not JSON cannot be used,
// in the app's row, and never writes it.
func TestAppsBrokenFile(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "mcp.json")
	broken := []byte("{\"mcpServers\": {\n  \"files\": {\"command\": \"npx\"\n")
	writeFixture(t, path, broken, 0o600)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	h := startApps(t, map[string]any{"alpha": helperEntry()}, home)
	v := h.openApps()
	r := v.rows["cursor"]
	if !r.err.Visible() || !strings.Contains(r.err.Text, path) || !strings.Contains(r.err.Text, "is not valid JSON") ||
		!strings.Contains(r.err.Text, "fix it, or move it away, first") {
		t.Errorf("the row's error: %q", r.err.Text)
	}
	if r.found.Text != "Found" || r.conn.Text != "Unknown" || !r.connect.Disabled() || !r.disconnect.Disabled() || !r.importB.Disabled() {
		t.Errorf("row: found %q, connected %q, buttons enabled: %v %v %v", r.found.Text, r.conn.Text,
			!r.connect.Disabled(), !r.disconnect.Disabled(), !r.importB.Disabled())
	}
	// Asked anyway (the file broke after the list was read): no dialog,
	// the error in the row, nothing written.
	v.askConnect(r)
	v.askDisconnect(r)
	v.askImport(r)
	if v.change != nil || v.imp != nil {
		t.Error("a dialog offers to change a file that does not parse")
	}
	if !strings.Contains(r.err.Text, "is not valid JSON") {
		t.Errorf("the row's error after Connect: %q", r.err.Text)
	}
	if got := must(os.ReadFile(path)); !bytes.Equal(got, broken) {
		t.Errorf("the broken file was changed:\n%s", got)
	}
	if fi := must(os.Stat(path)); !fi.ModTime().Equal(old) {
		t.Errorf("the broken file was written (mtime %v)", fi.ModTime())
	}
	if ents := must(os.ReadDir(filepath.Dir(path))); len(ents) != 1 {
		t.Errorf("files beside the broken one: %v", ents)
	}
	if v.rows["claude-desktop"].err.Visible() {
		t.Errorf("another app's row shows an error: %q", v.rows["claude-desktop"].err.Text)
	}

	// A file the user may not read.
	t.Run("unreadable file", func(t *testing.T) {
		if os.Geteuid() == 0 {
			// Root reads any file (mode 000 too), and CI runs as root.
			asNobody(t, "^TestAppsBrokenFile$/^unreadable_file$", "--- PASS: TestAppsBrokenFile/unreadable_file")
			return
		}
		parent := h.t
		h.t = t // h.until fails this subtest
		defer func() { h.t = parent }()
		path2 := filepath.Join(home, ".gemini", "settings.json")
		writeFixture(t, path2, []byte(`{"mcpServers": {}}`), 0o000)
		// No Refresh: the page follows the apps' files.
		h.until("the unreadable file's row", func() bool {
			r := v.rows["gemini-cli"]
			return r != nil && r.err.Visible()
		})
		if msg := v.rows["gemini-cli"].err.Text; !strings.Contains(msg, path2) || !strings.Contains(msg, "permission denied: give your user read and write access") {
			t.Errorf("an unreadable file: %q", msg)
		}
	})
}

// TestAppsPermissionDenied shows a file that cannot be read, and one that
// cannot be written, in their apps' rows with the remedy (the errors are
// made up: the tests run as root in CI, who may read and write anything).
func TestAppsPermissionDenied(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CLAUDE_CONFIG_DIR", "")
	cursor := filepath.Join(home, ".cursor", "mcp.json")
	gemini := filepath.Join(home, ".gemini", "settings.json")
	orig := []byte("{\"mcpServers\": {}}\n")
	writeFixture(t, cursor, orig, 0o600)
	writeFixture(t, gemini, orig, 0o600)
	real := localAppFiles()
	files := real
	files.read = func(p string) ([]byte, bool, error) {
		if p == gemini {
			return nil, false, &fs.PathError{Op: "open", Path: p, Err: fs.ErrPermission}
		}
		return real.read(p)
	}
	files.write = func(p string, before, after []byte, now time.Time) (string, error) {
		if p == cursor {
			return "", &fs.PathError{Op: "open", Path: filepath.Join(filepath.Dir(p), ".mcp.json.switchboard-1.tmp"), Err: fs.ErrPermission}
		}
		return real.write(p, before, after, now)
	}
	useAppFiles(t, files)

	w, q := goldenWindow(t)
	pump := func(what string, cond func() bool) {
		t.Helper()
		pumpUntil(t, q, what, cond)
	}
	w.showPlace(placeApps)
	v := w.apps
	pump("the apps' rows", func() bool { return v.loaded })
	g := v.rows["gemini-cli"]
	if !strings.Contains(g.err.Text, "Cannot read the config file "+gemini+": permission denied: give your user read and write access") || !g.connect.Disabled() {
		t.Errorf("an unreadable file: %q (connect disabled %v)", g.err.Text, g.connect.Disabled())
	}
	test.Tap(v.rows["cursor"].connect)
	if v.change == nil {
		t.Fatal("Connect did not show the change")
	}
	test.Tap(v.change.ok)
	pump("the write's error", func() bool { r := v.rows["cursor"]; return r != nil && r.err.Visible() })
	if msg := v.rows["cursor"].err.Text; msg != "Cannot write the config file "+cursor+": permission denied: give your user read and write access to the file and to its folder (where the backup and the new file are made). Nothing was written to it." {
		t.Errorf("an unwritable file: %q", msg)
	}
	if w.statusLine.Importance != widget.DangerImportance {
		t.Errorf("status line: %q", w.statusLine.Text)
	}
	if got := must(os.ReadFile(cursor)); !bytes.Equal(got, orig) {
		t.Errorf("the file changed:\n%s", got)
	}
}

// TestFileProblem words the errors of reading and writing a file.
func TestFileProblem(t *testing.T) {
	denied := &fs.PathError{Op: "open", Path: "/x/.mcp.json.switchboard-1.tmp", Err: fs.ErrPermission}
	got := fileProblem("write", "/x/mcp.json", denied)
	if got != "Cannot write the config file /x/mcp.json: permission denied: give your user read and write access to the file and to its folder (where the backup and the new file are made). Nothing was written to it." {
		t.Errorf("permission: %q", got)
	}
	if got := fileProblem("write", "/x/mcp.json", aiapps.ErrChanged); !strings.HasPrefix(got, "/x/mcp.json changed after Switchboard read it") {
		t.Errorf("changed: %q", got)
	}
	if got := fileProblem("read", "/x/mcp.json", errors.New("disk on fire")); got != "Cannot read the config file /x/mcp.json: disk on fire. Nothing was written to it." {
		t.Errorf("other: %q", got)
	}
}

// TestAppsImport takes Cursor's own server into Switchboard through the
// host (its secret into the keyring), and its remote server too (its
// literal header token into the keyring), then puts the entry in their
// place in Cursor's file.
func TestAppsImport(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, ".cursor", "mcp.json")
	orig := []byte(`{
  "mcpServers": {
    "My Helper": {"command": ` + jsonString(testExe) + `, "env": {"` + helperEnv + `": "server", "` + tokenEnv + `": "tok-123456"}},
    "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer rtok-98765"}}
  }
}
`)
	writeFixture(t, path, orig, 0o600)
	h := startApps(t, nil, home)
	v := h.openApps()
	r := v.rows["cursor"]
	if r.own.Text != "My Helper, remote: Import… moves them into Switchboard" || r.stays.Text != "" {
		t.Errorf("own servers %q; staying %q", r.own.Text, r.stays.Text)
	}
	test.Tap(r.importB)
	d := v.imp
	if d == nil || len(d.secrets) != 2 || !d.secrets[0].check.Checked || !d.secrets[1].check.Checked {
		t.Fatalf("the import dialog: %+v", d)
	}
	hdr := d.secrets[1]
	if hdr.c.Server == "remote" && hdr.check.Text != `Move remote.headers.Authorization into the keyring as "`+hdr.c.Secret+`"` {
		t.Errorf("the header's offer: %q", hdr.check.Text)
	}
	test.Tap(d.ok)
	h.until("the offer to replace", func() bool { return v.change != nil })
	rsecret := config.SuggestSecretName("remote", "Authorization")
	if hd := h.entry("remote")["headers"].(map[string]any); hd["Authorization"] != "Bearer "+config.KeyringRef(rsecret) {
		t.Errorf("the remote entry's headers on the host: %v", hd)
	}
	if got, _ := h.store.Get(rsecret); got.Reveal() != "rtok-98765" {
		t.Errorf("keyring %s = %q", rsecret, got.Reveal())
	}
	secret := config.SuggestSecretName("my-helper", tokenEnv)
	if env := h.entry("my-helper")["env"].(map[string]any); env[tokenEnv] != config.KeyringRef(secret) {
		t.Errorf("env on the host: %v", env)
	}
	if got, _ := h.store.Get(secret); got.Reveal() != "tok-123456" {
		t.Errorf("keyring %s = %q", secret, got.Reveal())
	}
	c := v.change
	if strings.Contains(c.diffText, "tok-123456") || strings.Contains(c.diffText, "rtok-98765") || !strings.Contains(c.diffText, `-    "My Helper"`) {
		t.Errorf("the replacement:\n%s", c.diffText)
	}
	test.Tap(c.ok)
	h.until("Cursor connected", func() bool {
		r := v.rows["cursor"]
		return v.change == nil && r != nil && r.conn.Text == "Connected"
	})
	servers := jsonObject(t, must(os.ReadFile(path)))["mcpServers"].(map[string]any)
	if servers["My Helper"] != nil || servers["remote"] != nil || servers[aiapps.EntryName] == nil {
		t.Errorf("Cursor's servers after the import: %v", servers)
	}
	r = v.rows["cursor"]
	if !strings.Contains(r.note.Text, "imported My Helper as my-helper") || !strings.Contains(r.note.Text, "imported remote") ||
		!strings.Contains(r.note.Text, "Replaced My Helper, remote in "+path) || strings.Contains(r.note.Text, "rtok-98765") {
		t.Errorf("the row's note: %q", r.note.Text)
	}
	h.state("my-helper", hostapi.StateRunning)
}

// useAppFiles makes the window read and write the AI apps' files through
// files for the rest of the test.
func useAppFiles(t *testing.T, files appFiles) {
	saved := localAppFiles
	localAppFiles = func() appFiles { return files }
	t.Cleanup(func() { localAppFiles = saved })
}

// goldenAppFiles is a machine with a few apps in each state.
func goldenAppFiles(t *testing.T) appFiles {
	files := map[string]string{
		"/home/me/.config/Claude/claude_desktop_config.json": `{
  "mcpServers": {
    "switchboard": {"command": "/usr/bin/switchboard", "args": ["bridge", "--servers", "everything,files,gone"]},
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/Documents"]}
  },
  "globalShortcut": "Ctrl+Space"
}
`,
		"/home/me/.claude.json": `{"numStartups": 12, "mcpServers": {"switchboard": {"type": "stdio", "command": "/opt/old/switchboard", "args": ["bridge"]}}}`,
		"/home/me/.cursor/mcp.json": `{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_example"}
    },
    "docs": {"url": "https://example.com/mcp"}
  }
}
`,
		"/home/me/.config/Code/User/mcp.json": `{"servers": {"files": {"command": "npx",`,
	}
	dirs := map[string]bool{"/home/me/.codeium/windsurf": true}
	env := map[string]string{"HOME": "/home/me"}
	return appFiles{
		env:    aiapps.Env{GOOS: "linux", Getenv: func(k string) string { return env[k] }},
		exists: func(p string) bool { _, ok := files[p]; return ok || dirs[p] },
		read: func(p string) ([]byte, bool, error) {
			s, ok := files[p]
			if !ok {
				return nil, false, nil
			}
			return []byte(s), true, nil
		},
		write: func(string, []byte, []byte, time.Time) (string, error) {
			t.Error("the golden test wrote a file")
			return "", errors.New("no writes here")
		},
		exe: func() (string, error) { return "/usr/bin/switchboard", nil },
	}
}

func TestGoldenApps(t *testing.T) {
	files := goldenAppFiles(t)
	useAppFiles(t, files)
	w, _ := goldenWindow(t)
	w.showPlace(placeApps)
	// The load's own result waits in the UI queue, which is never run
	// (running it would apply the unconnected Live's state too).
	w.apps.show(loadApps(files), must(files.exe()), nil)
	// The servers an app reaches, with those that do not run marked.
	if got := w.apps.rows["claude-desktop"].through.Text; got != "everything, files (failed), gone (not in Switchboard)" {
		t.Errorf("Claude Desktop reaches %q", got)
	}
	assertMarkup(t, w, "apps.xml")

	// An app connected to some servers keeps them checked, one that
	// Switchboard lacks too: connecting again changes nothing.
	test.Tap(w.apps.rows["claude-desktop"].connect)
	c := w.apps.change
	if c == nil {
		t.Fatal("Connect did not show the change")
	}
	if !slices.Equal(c.servers.Selected, []string{"everything", "files", "gone"}) || !c.ok.Disabled() || !strings.HasPrefix(c.diffText, "No change") {
		t.Fatalf("connecting Claude Desktop again: checked %q, ok disabled %v, change:\n%s", c.servers.Selected, c.ok.Disabled(), c.diffText)
	}
	test.Tap(c.cancel)

	// Cursor's change, its token hidden.
	test.Tap(w.apps.rows["cursor"].connect)
	c = w.apps.change
	if c == nil {
		t.Fatal("Connect did not show the change")
	}
	if !strings.Contains(c.diffText, "********") || strings.Contains(c.diffText, "ghp_example") {
		t.Fatalf("connecting Cursor: the token must show as ********:\n%s", c.diffText)
	}
	assertMarkup(t, w, "apps-connect.xml")
}

// TestGoldenAppsProfile: an app connected through a profile reaches the
// profile's servers, and its row says so (not "Every server: …"): a
// profile with a list of servers names them, marked by state (a sleeping
// one without doubled parentheses); a profile of every server with
// patterns says only some tools pass (issue 27 §8).
func TestGoldenAppsProfile(t *testing.T) {
	files := goldenAppFiles(t)
	read := files.read
	files.read = func(p string) ([]byte, bool, error) {
		switch p {
		case "/home/me/.claude.json":
			return []byte(`{"mcpServers": {"switchboard": {"type": "stdio", "command": "/usr/bin/switchboard", "args": ["bridge", "--profile", "research"]}}}`), true, nil
		case "/home/me/.cursor/mcp.json":
			return []byte(`{"mcpServers": {"switchboard": {"command": "/usr/bin/switchboard", "args": ["bridge", "--profile", "lean"]}}}`), true, nil
		}
		return read(p)
	}
	useAppFiles(t, files)
	w, _ := goldenWindow(t)
	snap := goldenSnapshot()
	snap.Servers = append(snap.Servers, hostapi.ServerStatus{Name: "wiki", State: hostapi.StateSleeping, Command: "wiki-server"})
	w.apply(snap)
	w.setProfiles([]hostapi.ProfileInfo{
		{Name: "research", ProfileEntry: hostapi.ProfileEntry{Servers: []string{"everything", "wiki", "files"}}},
		{Name: "lean", ProfileEntry: hostapi.ProfileEntry{Allow: []string{"*__read_*"}}},
	})
	w.showPlace(placeApps)
	w.apps.show(loadApps(files), must(files.exe()), nil)
	for id, want := range map[string]string{
		"claude-code": "Profile research: everything, wiki (sleeping, starts on first use), files (failed)",
		"cursor":      "Profile lean: every server: everything, files (failed), github (waiting for secret), memory (disabled), notes (invalid entry), time (stopped), wiki (sleeping, starts on first use); only the tools it lets through",
	} {
		if got := w.apps.rows[id].through.Text; got != want {
			t.Errorf("%s reaches %q\nwant %q", id, got, want)
		}
	}
	assertMarkup(t, w, "apps-profile.xml")
	for _, size := range []fyne.Size{{Width: 1120, Height: 720}, {Width: 800, Height: 600}} {
		shoot(t, w, "ai-apps-profile", size, func() {
			snap.Info.Config.Error = "" // the place, without the golden's broken config file
			w.apply(snap)
		})
	}
}
