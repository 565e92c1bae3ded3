//go:build unix

package host

import (
	"os"
	"path/filepath"
	"testing"
)

// TestShimPath: the packages' /usr/libexec/switchboard/switchboard-sandbox
// first, then one beside the executable, else the executable itself; a
// file that is not executable is not taken.
func TestShimPath(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "usr", "bin")
	libexec := filepath.Join(root, "usr", "libexec", "switchboard")
	for _, d := range []string{bin, libexec} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe := filepath.Join(bin, "switchboard")
	put := func(p string, mode os.FileMode) {
		if err := os.WriteFile(p, []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
	}
	put(exe, 0o755)
	if got := shimPathFor(exe, "linux"); got != exe {
		t.Errorf("no shim installed: %s, want the executable", got)
	}
	put(filepath.Join(bin, "switchboard-sandbox"), 0o644)
	if got := shimPathFor(exe, "linux"); got != exe {
		t.Errorf("a shim that is not executable was taken: %s", got)
	}
	os.Chmod(filepath.Join(bin, "switchboard-sandbox"), 0o755)
	if got := shimPathFor(exe, "linux"); got != filepath.Join(bin, "switchboard-sandbox") {
		t.Errorf("beside the executable: %s", got)
	}
	put(filepath.Join(libexec, "switchboard-sandbox"), 0o755)
	if got := shimPathFor(exe, "linux"); got != filepath.Join(libexec, "switchboard-sandbox") {
		t.Errorf("installed in libexec: %s, want it first", got)
	}
}
