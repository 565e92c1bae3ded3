//go:build unix

package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReadRefusesNonRegular: a FIFO (which no program writes), a link to
// /dev/zero and a directory are refused at once by every reader and by
// Update, never read.
func TestReadRefusesNonRegular(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo", "config.json")
	zero := filepath.Join(dir, "zero", "config.json")
	sub := filepath.Join(dir, "dir", "config.json")
	for _, p := range []string{fifo, zero, sub} {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	for path, kind := range map[string]string{fifo: "a named pipe", zero: "a character device", sub: "a directory"} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err := Load(path)
			var fe *FileError
			if !errors.As(err, &fe) || !strings.Contains(err.Error(), "is not a regular file ("+kind+")") {
				t.Errorf("Load(%s): %v", kind, err)
			}
			err = Update(path, func(f *File) error {
				f.SetServer("x", &Server{Command: "node"})
				return nil
			})
			if !errors.As(err, &fe) {
				t.Errorf("Update(%s): %v", kind, err)
			}
			if _, _, err := readSum(path); !errors.As(err, &fe) {
				t.Errorf("the watcher's read of %s: %v", kind, err)
			}
		}()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("reading %s hangs", kind)
		}
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}

// TestWatchFollowsSymlink: when config.json is a symbolic link, an edit
// of its target and a re-pointing of the link are changes.
func TestWatchFollowsSymlink(t *testing.T) {
	root := t.TempDir()
	dots := filepath.Join(root, "dotfiles")
	other := filepath.Join(root, "other")
	for _, d := range []string{dots, other, filepath.Join(root, "cfg")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	targetA := filepath.Join(dots, "switchboard.json")
	targetB := filepath.Join(other, "switchboard.json")
	tmpWrite(t, targetA, content("a"))
	tmpWrite(t, targetB, content("b"))
	path := filepath.Join(root, "cfg", "config.json")
	if err := os.Symlink(targetA, path); err != nil {
		t.Fatal(err)
	}
	h := watch(t, path, func(h *watched) {
		f, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		h.good = f
		h.w.Ignore(f.Sum())
	})
	if !h.has("a") {
		t.Fatal("the link's target was not loaded")
	}

	// An edit of the target.
	tmpWrite(t, targetA, content("a", "a2"))
	h.wait("an edit of the link's target")
	if !h.has("a2") {
		t.Error("the edit of the target was not loaded")
	}

	// The link re-pointed (ln -sfn: a new link renamed over the old).
	tmp := filepath.Join(root, "cfg", ".config.json.new")
	if err := os.Symlink(targetB, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	h.wait("the link re-pointed")
	if !h.has("b") || h.has("a") {
		t.Error("the new target was not loaded")
	}

	// The new target's edits are seen, the old one's are not.
	tmpWrite(t, targetB, content("b", "b2"))
	h.wait("an edit of the new target")
	if !h.has("b2") {
		t.Error("the edit of the new target was not loaded")
	}
	tmpWrite(t, targetA, content("stale"))
	h.quiet("an edit of the old target")

	// A host write goes through the link, to the target, and is no change.
	h.update("c")
	h.quiet("the host's own write through the link")
	if b, _ := os.ReadFile(targetB); !strings.Contains(string(b), `"c"`) {
		t.Errorf("the write did not reach the target:\n%s", b)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
}

// TestWatchUnreadableThenSame: a file that could not be read (here a
// FIFO) and then has the content the host had before is a change: the
// host, which kept its config while showing the error, must hear that the
// file is good again.
func TestWatchUnreadableThenSame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	tmpWrite(t, path, content("a"))
	h := watch(t, path, func(h *watched) {
		f, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		h.good = f
		h.w.Ignore(f.Sum())
	})
	// Renamed over the file, so that the file is never missing between.
	fifo := path + ".fifo"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(fifo, path); err != nil {
		t.Fatal(err)
	}
	h.settle("a FIFO in its place")
	h.mu.Lock()
	broken := h.broken
	h.mu.Unlock()
	if broken == 0 {
		t.Fatal("the FIFO was not reported as a file that cannot be used")
	}
	tmpWrite(t, path+".new", content("a"))
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	h.wait("the same content as before, back")
}
