package config

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// watched runs a Watcher the way a host does: on each call it reloads the
// file and keeps the last good configuration when the new one does not
// parse (an editor may be half-way through a write).
type watched struct {
	t     *testing.T
	path  string
	w     *Watcher
	calls chan struct{}

	mu     sync.Mutex
	n      int
	good   *File
	broken int // reloads that found a file that does not parse
}

// watch starts a watcher of path (after prepare, which may call Ignore) and
// returns once the directory is watched.
func watch(t *testing.T, path string, prepare func(*watched)) *watched {
	t.Helper()
	h := &watched{t: t, path: path, calls: make(chan struct{}, 100)}
	h.w = NewWatcher(path, 0, func() {
		h.mu.Lock()
		f, err := Load(path)
		h.n++
		if err == nil {
			h.good = f
		} else if !os.IsNotExist(err) {
			h.broken++
		}
		h.mu.Unlock()
		h.calls <- struct{}{}
	})
	if prepare != nil {
		prepare(h)
	}
	ready := make(chan struct{})
	h.w.ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	case <-time.After(5 * time.Second):
		t.Fatal("the watch did not start")
	}
	return h
}

// wait waits for a call, failing after 5 s.
func (h *watched) wait(what string) {
	h.t.Helper()
	select {
	case <-h.calls:
	case <-time.After(5 * time.Second):
		h.t.Fatalf("no callback after %s", what)
	}
}

// quiet checks that no call comes within 5 debounce periods.
func (h *watched) quiet(what string) {
	h.t.Helper()
	select {
	case <-h.calls:
		h.t.Fatalf("a callback after %s", what)
	case <-time.After(5 * DefaultDebounce):
	}
}

// settle waits for a call, then for the quiet after it, and returns how many
// calls there were in all.
func (h *watched) settle(what string) int {
	h.t.Helper()
	h.wait(what)
	for {
		select {
		case <-h.calls:
		case <-time.After(5 * DefaultDebounce):
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.n
		}
	}
}

// update is a host's own change: written through the watcher, and taken
// as the host's configuration (the host knows what it wrote), in turn with
// reloads.
func (h *watched) update(name string) {
	h.t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	var written *File
	if err := h.w.Update(func(f *File) error {
		f.SetServer(name, &Server{Command: "node"})
		written = f
		return nil
	}); err != nil {
		h.t.Fatal(err)
	}
	h.good = written
}

// has reports whether the last good configuration has server name.
func (h *watched) has(name string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.good != nil && h.good.Servers[name] != nil
}

func content(names ...string) []byte {
	f := New()
	for _, n := range names {
		f.SetServer(n, &Server{Command: "node", Args: []string{n + ".js"}})
	}
	data, _ := f.Marshal()
	return data
}

// tmpWrite writes a file in one go, as tests set things up.
func tmpWrite(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestWatcher(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, path string)
	}{
		{"rename-save, twice (the watch survives)", func(t *testing.T, path string) {
			tmpWrite(t, path, content("a"))
			h := watch(t, path, nil)
			for i, name := range []string{"b", "c"} {
				tmp := filepath.Join(filepath.Dir(path), ".config.json.swp")
				tmpWrite(t, tmp, content("a", name))
				if err := os.Rename(tmp, path); err != nil {
					t.Fatal(err)
				}
				if n := h.settle("rename-save"); n < i+1 || n > 2*(i+1) {
					t.Errorf("%d callbacks after %d saves", n, i+1)
				}
				if !h.has(name) {
					t.Errorf("the reload after save %d does not have %q", i+1, name)
				}
			}
		}},
		{"vim backup rename, then a new file", func(t *testing.T, path string) {
			tmpWrite(t, path, content("a"))
			h := watch(t, path, nil)
			if err := os.Rename(path, path+"~"); err != nil {
				t.Fatal(err)
			}
			tmpWrite(t, path, content("a", "b"))
			os.Remove(path + "~")
			if n := h.settle("backup-rename save"); n > 2 {
				t.Errorf("%d callbacks", n)
			}
			if !h.has("b") {
				t.Error("the reload does not have the new content")
			}
		}},
		{"in place, truncate and rewrite in chunks", func(t *testing.T, path string) {
			tmpWrite(t, path, content("a"))
			h := watch(t, path, nil)
			writeChunks(t, path, content("a", "b"), 4, 20*time.Millisecond)
			if n := h.settle("a chunked write"); n > 2 {
				t.Errorf("%d callbacks for one write", n)
			}
			if !h.has("b") {
				t.Error("the reload does not have the new content")
			}
		}},
		{"in place, chunks slower than the debounce", func(t *testing.T, path string) {
			tmpWrite(t, path, content("a"))
			h := watch(t, path, nil)
			writeChunks(t, path, content("a", "b"), 3, 3*DefaultDebounce/2)
			h.settle("a slow chunked write")
			if !h.has("a") || !h.has("b") {
				t.Error("the last good configuration is not the complete new file")
			}
			h.mu.Lock()
			t.Logf("%d callbacks, %d saw a half-written file", h.n, h.broken)
			h.mu.Unlock()
		}},
		{"a burst of writes is one callback", func(t *testing.T, path string) {
			tmpWrite(t, path, content("a"))
			h := watch(t, path, nil)
			for i := range 20 { // back to back: TestDebounce has the timing
				tmpWrite(t, path, content("a", "s-"+itoa(i)))
			}
			if n := h.settle("a burst"); n < 1 || n > 2 {
				t.Errorf("%d callbacks for a burst of 20 writes, want 1 (2 at most)", n)
			}
			if !h.has("s-19") {
				t.Error("the reload does not have the last write")
			}
		}},
		{"the host's own writes are ignored", func(t *testing.T, path string) {
			tmpWrite(t, path, content("a"))
			h := watch(t, path, func(h *watched) {
				f, _ := Load(path)
				h.w.Ignore(f.Sum())
			})
			h.update("b")
			h.update("c")
			h.quiet("the host's own writes")
			// Ignore covers content written by other means too.
			data := content("x")
			h.w.Ignore(SumOf(data))
			tmpWrite(t, path, data)
			h.quiet("writing ignored content")
			// Another writer's change is still seen.
			if err := Update(path, func(f *File) error { f.SetServer("cli", &Server{Command: "node"}); return nil }); err != nil {
				t.Fatal(err)
			}
			h.wait("another program's Update")
			if !h.has("cli") {
				t.Error("the reload does not have the other program's change")
			}
		}},
		{"a host write on top of an unseen change is reported", func(t *testing.T, path string) {
			tmpWrite(t, path, content("a"))
			h := watch(t, path, func(h *watched) {
				f, _ := Load(path)
				h.w.Ignore(f.Sum())
			})
			tmpWrite(t, path, content("a", "editor")) // not yet seen: the debounce has not passed
			h.update("host")
			h.settle("an editor's save then a host write")
			if !h.has("editor") || !h.has("host") {
				t.Error("the reload does not have both changes")
			}
		}},
		{"a change between load and watch is reported", func(t *testing.T, path string) {
			tmpWrite(t, path, content("a"))
			h := watch(t, path, func(h *watched) {
				f, _ := Load(path)
				h.w.Ignore(f.Sum())
				tmpWrite(t, path, content("a", "late"))
			})
			h.wait("a change before the watch")
			if !h.has("late") {
				t.Error("the reload does not have the change")
			}
		}},
		{"the file does not exist yet", func(t *testing.T, path string) {
			h := watch(t, path, nil)
			h.quiet("starting without a file")
			tmpWrite(t, path, content("first"))
			h.wait("creating the file")
			if !h.has("first") {
				t.Error("the reload does not have the new file")
			}
			os.Remove(path)
			h.wait("removing the file")
		}},
		{"the directory does not exist yet", func(t *testing.T, path string) {
			path = filepath.Join(filepath.Dir(path), "new", "switchboard", "config.json")
			h := watch(t, path, nil)
			if fi, err := os.Stat(filepath.Dir(path)); err != nil || (runtime.GOOS != "windows" && fi.Mode().Perm() != 0o700) {
				t.Fatalf("the directory was not created 0700: %v %v", fi, err)
			}
			if err := Update(path, func(f *File) error { f.SetServer("a", &Server{Command: "x"}); return nil }); err != nil {
				t.Fatal(err)
			}
			h.wait("the first Update")
		}},
		{"other files and unchanged content are ignored", func(t *testing.T, path string) {
			tmpWrite(t, path, content("a"))
			h := watch(t, path, nil)
			dir := filepath.Dir(path)
			tmpWrite(t, filepath.Join(dir, "other.json"), content("b"))
			tmpWrite(t, path+".lock", nil)
			tmpWrite(t, filepath.Join(dir, ".config.json.tmp-1"), content("c"))
			tmpWrite(t, path, content("a")) // same bytes
			os.Chtimes(path, time.Now(), time.Now())
			h.quiet("writes to other files and a rewrite of the same content")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, filepath.Join(t.TempDir(), "config.json"))
		})
	}
}

// writeChunks truncates the file and writes data in n pieces, pausing
// between them, as an editor that saves in place can.
func writeChunks(t *testing.T, path string, data []byte, n int, pause time.Duration) {
	t.Helper()
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	size := (len(data) + n - 1) / n
	for off := 0; off < len(data); off += size {
		if off > 0 {
			time.Sleep(pause)
		}
		if _, err := fh.Write(data[off:min(off+size, len(data))]); err != nil {
			t.Fatal(err)
		}
	}
}

// A write that never pauses long enough still gets looked at.
func TestWatcherMaxWait(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	tmpWrite(t, path, content("a"))
	h := watch(t, path, nil)
	deadline := time.Now().Add(25 * DefaultDebounce)
	first := time.Time{}
	for i := 0; time.Now().Before(deadline); i++ {
		tmpWrite(t, path, content("a", "s-"+itoa(i)))
		select {
		case <-h.calls:
			if first.IsZero() {
				first = time.Now()
			}
		case <-time.After(DefaultDebounce / 4):
		}
	}
	if first.IsZero() {
		t.Fatal("no callback during a continuous stream of writes")
	}
}
