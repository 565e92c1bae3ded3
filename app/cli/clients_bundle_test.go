//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestClientsConnectBundleNote: connecting Claude Desktop (and finding it
// connected) names the switchboard.mcpb installed with Switchboard, the
// .deb's /usr/share/switchboard/ beside /usr/bin, and how to add it, or
// where to get it when there is none; another app gets no such line.
func TestClientsConnectBundleNote(t *testing.T) {
	u, _ := clientsUnit(t)
	root := filepath.Join(u.dir, "usr")
	exe := filepath.Join(root, "bin", "switchboard-bridge")
	bundle := filepath.Join(root, "share", "switchboard", "switchboard.mcpb")
	if err := os.MkdirAll(filepath.Dir(bundle), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bundle, []byte("PK"), 0o644); err != nil {
		t.Fatal(err)
	}
	bridgeExecutable = func() (string, error) { return exe, nil }
	const how = "(double-click it, or in Claude Desktop: Settings > Extensions > Advanced settings > Install Extension), then 'switchboard clients disconnect claude-desktop'"

	out := u.ok(t, "", "clients", "connect", "claude-desktop")
	if !strings.Contains(out, "note: Claude Desktop can also run Switchboard as an extension") || !strings.Contains(out, "open "+bundle+" "+how) {
		t.Fatalf("connect claude-desktop printed no line naming %s:\n%s", bundle, out)
	}
	out = u.ok(t, "", "clients", "connect", "claude-desktop")
	if !strings.Contains(out, "already connected") || !strings.Contains(out, "open "+bundle+" ") {
		t.Fatalf("a second connect printed no line naming %s:\n%s", bundle, out)
	}
	if err := os.Remove(bundle); err != nil {
		t.Fatal(err)
	}
	out = u.ok(t, "", "clients", "connect", "claude-desktop")
	if !strings.Contains(out, "open switchboard.mcpb (in each release's folder for your platform; 'make mcpb' builds it) "+how) {
		t.Fatalf("without an installed bundle, connect printed:\n%s", out)
	}
	out = u.ok(t, "", "clients", "connect", "cursor")
	if strings.Contains(out, "mcpb") {
		t.Fatalf("connect cursor named the Claude Desktop bundle:\n%s", out)
	}
}

// TestBundleFile: where each package puts switchboard.mcpb, from the
// folder of the switchboard executable.
func TestBundleFile(t *testing.T) {
	in := func(paths ...string) func(string) bool {
		return func(p string) bool {
			for _, q := range paths {
				if filepath.Clean(q) == p {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct{ exe, goos, have, want string }{
		{"/usr/bin/switchboard", "linux", "/usr/share/switchboard/switchboard.mcpb", "/usr/share/switchboard/switchboard.mcpb"},
		{"/opt/sb/switchboard", "linux", "/opt/sb/switchboard.mcpb", "/opt/sb/switchboard.mcpb"},
		{"/Applications/Switchboard.app/Contents/MacOS/switchboard-bridge", "darwin",
			"/Applications/Switchboard.app/Contents/Resources/switchboard.mcpb", "/Applications/Switchboard.app/Contents/Resources/switchboard.mcpb"},
		{"/pf/Switchboard/switchboard.exe", "windows", "/pf/Switchboard/switchboard.mcpb", "/pf/Switchboard/switchboard.mcpb"},
		{"/pf/Switchboard/switchboard.exe", "windows", "/pf/share/switchboard/switchboard.mcpb", ""},
		{"/usr/bin/switchboard", "linux", "", ""},
	} {
		if got := bundleFile(c.exe, c.goos, in(c.have)); got != filepath.FromSlash(c.want) {
			t.Errorf("bundleFile(%s, %s) with %s = %q, want %q", c.exe, c.goos, c.have, got, c.want)
		}
	}
}
