package aiapps

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestClaudeFolder: Claude's folder on each OS is the folder of its
// claude_desktop_config.json: Application Support on macOS, %APPDATA% on
// Windows (no MSIX package), XDG_CONFIG_HOME elsewhere.
func TestClaudeFolder(t *testing.T) {
	none := func(string) bool { return false }
	for _, tc := range []struct {
		env  Env
		want string
	}{
		{envOf("darwin", "HOME=/Users/ann"), "/Users/ann/Library/Application Support/Claude"},
		{envOf("windows", `USERPROFILE=C:\Users\ann`, `APPDATA=C:\Users\ann\AppData\Roaming`), `C:\Users\ann\AppData\Roaming\Claude`},
		{envOf("linux", "HOME=/home/ann", "XDG_CONFIG_HOME=/home/ann/cfg"), "/home/ann/cfg/Claude"},
	} {
		got, err := ClaudeFolder(tc.env, none)
		if err != nil || got != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.env.GOOS, got, err, tc.want)
		}
	}
	if _, err := ClaudeFolder(envOf("linux"), none); err == nil {
		t.Error("no HOME: no error")
	}
}

// TestClaudeExtensions: every folder of Claude Extensions is an
// extension (a file or a link beside them is not), with its settings:
// enabled only when isEnabled is true (not when it is missing); a string, a number as written, a
// boolean and an array become text values; a sensitive value (safeStorage
// ciphertext, alone or in an array) is never a value, only named; null is
// no value; a settings file that is not JSON is an error of that
// extension, which is then disabled.
func TestClaudeExtensions(t *testing.T) {
	folder := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(folder, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := ClaudeExtensions(folder); err != nil || got != nil {
		t.Fatalf("no Claude Extensions folder: %v %v", got, err)
	}
	write("Claude Extensions/b.on/manifest.json", "{}")
	write("Claude Extensions/a.off/manifest.json", "{}")
	write("Claude Extensions/c.none/manifest.json", "{}")
	write("Claude Extensions/d.bad/manifest.json", "{}")
	write("Claude Extensions/f.noflag/manifest.json", "{}")
	write("Claude Extensions/stray.json", "{}")
	if runtime.GOOS != "windows" {
		if err := os.Symlink(filepath.Join(folder, "Claude Extensions", "b.on"), filepath.Join(folder, "Claude Extensions", "e.link")); err != nil {
			t.Fatal(err)
		}
	}
	write("Claude Extensions Settings/b.on.json", `{"isEnabled": true, "userConfig": {
		"root": "/home/ann/proj", "dirs": ["/a", "/b"], "n": 1.50, "big": 12345678901234567890, "yes": false,
		"token": "__encrypted__:djEwAAAA", "keys": ["x", "__encrypted__:djEw"], "gone": null}}`)
	write("Claude Extensions Settings/a.off.json", `{"isEnabled": false, "userConfig": {"root": "/x"}}`)
	write("Claude Extensions Settings/d.bad.json", `{"isEnabled": true,`)
	write("Claude Extensions Settings/f.noflag.json", `{"userConfig": {"root": "/y"}}`)
	got, err := ClaudeExtensions(folder)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, x := range got {
		ids = append(ids, x.ID)
	}
	if strings.Join(ids, " ") != "a.off b.on c.none d.bad f.noflag" {
		t.Fatalf("extensions %q", ids)
	}
	off, on, none, bad, noflag := got[0], got[1], got[2], got[3], got[4]
	if noflag.Enabled || noflag.Values["root"][0] != "/y" {
		t.Errorf("f.noflag (no isEnabled): %+v", noflag)
	}
	if off.Enabled || !off.HasSettings || off.Values["root"][0] != "/x" {
		t.Errorf("a.off: %+v", off)
	}
	want := map[string][]string{"root": {"/home/ann/proj"}, "dirs": {"/a", "/b"}, "n": {"1.50"}, "big": {"12345678901234567890"}, "yes": {"false"}}
	if !on.Enabled || on.SettingsErr != nil || len(on.Values) != len(want) || on.Dir != filepath.Join(folder, "Claude Extensions", "b.on") {
		t.Errorf("b.on: %+v", on)
	}
	for k, v := range want {
		if !slices.Equal(on.Values[k], v) {
			t.Errorf("b.on's %s: %q, want %q", k, on.Values[k], v)
		}
	}
	if !slices.Equal(on.Encrypted, []string{"keys", "token"}) {
		t.Errorf("b.on's encrypted keys: %q", on.Encrypted)
	}
	for _, vs := range on.Values {
		for _, v := range vs {
			if strings.HasPrefix(v, ClaudeEncrypted) {
				t.Errorf("a ciphertext is a value: %q", v)
			}
		}
	}
	if none.Enabled || none.HasSettings || none.Values != nil {
		t.Errorf("c.none (no settings file): %+v", none)
	}
	if bad.Enabled || bad.SettingsErr == nil || !strings.Contains(bad.SettingsErr.Error(), "is not Claude Desktop's settings JSON") {
		t.Errorf("d.bad: %+v", bad)
	}
}
