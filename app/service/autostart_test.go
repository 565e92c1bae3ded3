package service

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

type fakeRunKey map[string]string

func (f fakeRunKey) Get(n string) (string, bool, error) { v, ok := f[n]; return v, ok, nil }
func (f fakeRunKey) Set(n, d string) error              { f[n] = d; return nil }
func (f fakeRunKey) Delete(n string) error              { delete(f, n); return nil }

// TestAutostartRoundTrip turns the setting on and off for Linux and macOS,
// the files in a temporary HOME.
func TestAutostartRoundTrip(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix paths cannot be written here")
	}
	home := t.TempDir()
	cfg := filepath.Join(home, "xdg")
	for _, tc := range []struct {
		name string
		env  Env
		path string
	}{
		{"linux", envOf("linux", map[string]string{"HOME": home}, "/usr/bin/switchboard"), filepath.Join(home, ".config/autostart/switchboard.desktop")},
		{"linux XDG_CONFIG_HOME", envOf("linux", map[string]string{"HOME": home, "XDG_CONFIG_HOME": cfg}, "/usr/bin/switchboard"), filepath.Join(cfg, "autostart/switchboard.desktop")},
		{"darwin", envOf("darwin", map[string]string{"HOME": home}, "/Applications/Switchboard.app/Contents/MacOS/switchboard"), filepath.Join(home, "Library/LaunchAgents/io.github.switchboard-mcp.switchboard.tray.plist")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAutostart(tc.env, nil)
			if p, _ := a.Path(); p != tc.path || a.Where() != tc.path {
				t.Fatalf("path %q, want %q", p, tc.path)
			}
			if on, err := a.Enabled(); on || err != nil {
				t.Fatalf("enabled before on: %v %v", on, err)
			}
			if err := a.Disable(); err != nil { // off when off: no error
				t.Fatal(err)
			}
			for range 2 { // on twice: replaced, no error
				if err := a.Enable(); err != nil {
					t.Fatal(err)
				}
			}
			want, _ := a.Content()
			if b, err := os.ReadFile(tc.path); err != nil || string(b) != want {
				t.Fatalf("entry: %v\n%s", err, b)
			}
			if fi, _ := os.Stat(tc.path); fi.Mode().Perm() != 0o644 {
				t.Fatalf("mode %v", fi.Mode())
			}
			if on, err := a.Enabled(); !on || err != nil {
				t.Fatalf("enabled after on: %v %v", on, err)
			}
			if err := a.Disable(); err != nil {
				t.Fatal(err)
			}
			if on, _ := a.Enabled(); on {
				t.Fatal("enabled after off")
			}
			if ents, _ := os.ReadDir(filepath.Dir(tc.path)); len(ents) != 0 {
				t.Fatalf("left behind: %v", ents)
			}
		})
	}
}

// TestAutostartRunKey turns the setting on and off for Windows, with a fake
// Run key (registry_windows_test.go has the real one).
func TestAutostartRunKey(t *testing.T) {
	reg := fakeRunKey{}
	a := NewAutostart(windowsEnv, reg)
	if a.Where() != `HKEY_CURRENT_USER\Software\Microsoft\Windows\CurrentVersion\Run\Switchboard` {
		t.Fatalf("where: %s", a.Where())
	}
	if err := a.Enable(); err != nil {
		t.Fatal(err)
	}
	if reg["Switchboard"] != `"C:\Program Files\Switchboard\switchboard.exe" --background` {
		t.Fatalf("run value: %q", reg["Switchboard"])
	}
	if on, _ := a.Enabled(); !on {
		t.Fatal("not enabled")
	}
	if err := a.Disable(); err != nil || len(reg) != 0 {
		t.Fatalf("disable: %v %v", err, reg)
	}
}
