//go:build unix

package sandbox

// The parts of the macOS launch that touch the file system (links,
// modes): run on Linux and macOS, not under Wine.

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// SeatbeltLaunch resolves every path's links before writing the profile
// (Seatbelt matches real paths), and refuses a command sandbox-exec would
// look up in PATH.
func TestSeatbeltLaunch(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "cellar", "node", "bin")
	sock := filepath.Join(dir, "run")
	for _, d := range []string{real, sock, filepath.Join(dir, "tmp-real")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(real, "node"), []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"node": filepath.Join(real, "node"), "sock-link": sock, "tmp": filepath.Join(dir, "tmp-real"), "read": real} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	rdir, err := filepath.EvalSymlinks(dir) // macOS's TMPDIR is itself under a link
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Enabled: true, Read: []string{filepath.Join(dir, "read")}, Unix: []string{filepath.Join(dir, "sock-link", "db.sock")}}
	n := Needs{Temp: filepath.Join(dir, "tmp"), Write: []string{filepath.Join(dir, "tmp")}, Deny: []string{filepath.Join(dir, "read", "secret")}}
	argv := []string{filepath.Join(dir, "node"), "server.js"}
	path, args, err := SeatbeltLaunch(p, n, argv)
	if err != nil {
		t.Fatal(err)
	}
	if path != SeatbeltExec || len(args) != 6 || args[3] != "--" || args[4] != argv[0] || args[5] != "server.js" {
		t.Fatalf("launch %s %q", path, args)
	}
	prof := args[2]
	for _, want := range []string{
		`(literal "` + darwinPath(filepath.Join(rdir, "cellar", "node", "bin", "node")) + `")`,
		`(subpath "` + darwinPath(filepath.Join(rdir, "cellar", "node", "bin")) + `")`,
		`(remote unix-socket (path-literal "` + darwinPath(filepath.Join(rdir, "run", "db.sock")) + `"))`,
		`(local unix-socket (subpath "` + darwinPath(filepath.Join(rdir, "tmp-real")) + `"))`,
		`(subpath "` + darwinPath(filepath.Join(rdir, "cellar", "node", "bin", "secret")) + `")`,
	} {
		if !strings.Contains(prof, want) {
			t.Errorf("the profile lacks %s:\n%s", want, prof)
		}
	}
	if strings.Contains(prof, "sock-link") || strings.Contains(prof, darwinPath(filepath.Join(rdir, "tmp"))+`"`) ||
		strings.Contains(prof, darwinPath(filepath.Join(rdir, "node"))+`"`) || strings.Contains(prof, darwinPath(filepath.Join(rdir, "read"))+`"`) {
		t.Errorf("a path is written through its link:\n%s", prof)
	}

	if _, _, err := SeatbeltLaunch(p, n, []string{"node", "x"}); err == nil || !strings.Contains(err.Error(), "PATH") {
		t.Errorf("a bare command name: %v, want a refusal naming PATH", err)
	}
	if _, _, err := SeatbeltLaunch(p, n, nil); err == nil {
		t.Error("no argv: no error")
	}
	if path, args, err := SeatbeltLaunch(Policy{}, n, argv); err != nil || path != argv[0] || !slices.Equal(args, argv) {
		t.Errorf("off: %s %q %v", path, args, err)
	}
}
