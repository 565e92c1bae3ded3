package aiapps

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// TestWriteFile: the old content is backed up (same mode), the new one
// written with the file's mode, no temporary file is left.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mcp.json")
	before := []byte(`{"mcpServers": {}}`)
	if err := os.WriteFile(p, before, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o640); err != nil { // whatever the umask
		t.Fatal(err)
	}
	after := []byte(`{"mcpServers": {"switchboard": {}}}`)
	backup, err := WriteFile(p, before, after, t0)
	if err != nil {
		t.Fatal(err)
	}
	if want := p + ".switchboard-backup-20260701-120000"; backup != want {
		t.Fatalf("backup %s, want %s", backup, want)
	}
	checkFile(t, p, after, 0o640)
	checkFile(t, backup, before, 0o640)
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("files left: %v", ents)
	}

	// A second write in the same second gets its own backup.
	b2, err := WriteFile(p, after, before, t0)
	if err != nil || b2 != backup+"-2" {
		t.Fatalf("second backup %q: %v", b2, err)
	}
	checkFile(t, b2, after, 0o640)
	checkFile(t, p, before, 0o640)
}

func checkFile(t *testing.T, p string, want []byte, mode fs.FileMode) {
	t.Helper()
	got, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s holds %q, want %q", p, got, want)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != mode {
		t.Fatalf("%s has mode %v, want %v", p, fi.Mode().Perm(), mode)
	}
}

// TestWriteFileNew: a file that did not exist is created 0600, with its
// directory (0700); there is nothing to back up.
func TestWriteFileNew(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, ".cursor", "mcp.json")
	backup, err := WriteFile(p, nil, []byte("{}\n"), t0)
	if err != nil || backup != "" {
		t.Fatalf("backup %q: %v", backup, err)
	}
	checkFile(t, p, []byte("{}\n"), 0o600)
	if fi, _ := os.Stat(filepath.Dir(p)); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode %v", fi.Mode().Perm())
	}
}

// TestWriteFileChanged: if the file no longer holds what was read (the app
// wrote it meanwhile), nothing is written and there is no backup.
func TestWriteFileChanged(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mcp.json")
	os.WriteFile(p, []byte("app wrote this"), 0o600)
	for _, before := range [][]byte{[]byte("what we read"), nil} {
		_, err := WriteFile(p, before, []byte("ours"), t0)
		if !errors.Is(err, ErrChanged) {
			t.Fatalf("before %q: %v, want ErrChanged", before, err)
		}
	}
	// A file that appeared since we saw none.
	q := filepath.Join(dir, "new.json")
	os.WriteFile(q, []byte("{}"), 0o600)
	if _, err := WriteFile(q, nil, []byte("ours"), t0); !errors.Is(err, ErrChanged) {
		t.Fatalf("a file that appeared: %v", err)
	}
	checkFile(t, p, []byte("app wrote this"), 0o600)
	if bs := Backups(p); len(bs) != 0 {
		t.Fatalf("backups: %v", bs)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Fatalf("files: %v", ents)
	}
}

// TestWriteFileSymlink: a config file that is a symbolic link (dotfiles)
// stays a link; the file it points to gets the new content.
func TestWriteFileSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude.json")
	os.MkdirAll(filepath.Dir(real), 0o700)
	os.WriteFile(real, []byte("{}"), 0o644)
	os.Chmod(real, 0o644)
	link := filepath.Join(dir, ".claude.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	backup, err := WriteFile(link, []byte("{}"), []byte(`{"a": 1}`), t0)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v %v", fi.Mode(), err)
	}
	checkFile(t, real, []byte(`{"a": 1}`), 0o644)
	if filepath.Dir(backup) != dir {
		t.Fatalf("backup %s is not next to the link", backup)
	}
	checkFile(t, backup, []byte("{}"), 0o644)
}

// TestBackupsPruned: at most KeepBackups backups of a file are kept, the
// newest.
func TestBackupsPruned(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "settings.json")
	cur := []byte("0")
	os.WriteFile(p, cur, 0o600)
	for i := 1; i <= KeepBackups+3; i++ {
		next := []byte(strings.Repeat("x", i))
		if _, err := WriteFile(p, cur, next, t0.Add(time.Duration(i/2)*time.Second)); err != nil {
			t.Fatal(err)
		}
		cur = next
	}
	bs := Backups(p)
	if len(bs) != KeepBackups {
		t.Fatalf("backups: %v", bs)
	}
	// The newest backup holds the content before the last write.
	got, _ := os.ReadFile(bs[len(bs)-1])
	if want := strings.Repeat("x", KeepBackups+2); string(got) != want {
		t.Fatalf("newest backup %s holds %q, want %q (order %v)", bs[len(bs)-1], got, want, bs)
	}
	got, _ = os.ReadFile(bs[0])
	if want := strings.Repeat("x", 3); string(got) != want {
		t.Fatalf("oldest kept backup holds %q, want %q (order %v)", got, want, bs)
	}
}

func TestDiff(t *testing.T) {
	a := []byte("a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n")
	b := []byte("a\nb\nc\nd\nE\nf\ng\nh\ni\nj\nk\n")
	want := `--- x
+++ y
@@ -2,9 +2,10 @@
 b
 c
 d
-e
+E
 f
 g
 h
 i
 j
+k
`
	if got := Diff("x", "y", a, b); got != want {
		t.Fatalf("diff:\n%s\nwant:\n%s", got, want)
	}
	if Diff("x", "y", a, a) != "" {
		t.Fatal("a diff of equal files")
	}
	// Far apart: two hunks; a new file: all added.
	far := []byte("1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n")
	far2 := []byte("one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n")
	if got := Diff("x", "y", far, far2); strings.Count(got, "@@ -") != 2 {
		t.Fatalf("two hunks expected:\n%s", got)
	}
	if got := Diff("/dev/null", "y", nil, []byte("{}\r\n")); got != "--- /dev/null\n+++ y\n@@ -0,0 +1,1 @@\n+{}\n" {
		t.Fatalf("new file:\n%q", got)
	}
}
