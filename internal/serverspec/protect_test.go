//go:build unix

package serverspec

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestWideGrant: what may never be in a list, after .. and links.
func TestWideGrant(t *testing.T) {
	home := t.TempDir()
	for _, d := range []string{".ssh", "Projects/app", ".config/switchboard", ".local/share/keyrings"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(home, filepath.Join(home, "Projects", "up")); err != nil {
		t.Fatal(err)
	}
	prot := Protected(home, filepath.Join(home, ".config", "switchboard"))
	for _, p := range []string{"/", home, filepath.Dir(home), home + "/Projects/..", home + "/Projects/up", home + "/.local", home + "/.cargo", home + "/go",
		home + "/.ssh", home + "/.ssh/id_rsa", home + "/.config", home + "/.config/switchboard", home + "/.local/share", home + "/.npmrc"} {
		if WideGrant(p, home, prot) == "" {
			t.Errorf("%s was allowed", p)
		}
	}
	for _, p := range []string{home + "/Projects/app", home + "/Projects", "/srv/data", home + "/.local/share/uv/tools/x"} {
		if why := WideGrant(p, home, prot); why != "" {
			t.Errorf("%s was refused: %s", p, why)
		}
	}
}

func TestAllowPorts(t *testing.T) {
	got := AllowPorts([]string{"api.example.com:443", "[::1]:8080", "x:443", "nope", "h:0", "h:65536", "h:08"})
	if !slices.Equal(got, []uint16{443, 8080}) {
		t.Errorf("AllowPorts = %v", got)
	}
}
