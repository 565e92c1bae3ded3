package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
)

// DefaultDebounce is the quiet time a [Watcher] waits for after the last
// event of a burst before it looks at the file.
const DefaultDebounce = 100 * time.Millisecond

// maxKnown bounds the contents a Watcher remembers as known.
const maxKnown = 8

// Watcher calls a function when the content of a config file changes. See
// the package comment for how a host uses it.
type Watcher struct {
	path     string
	debounce time.Duration
	onChange func()

	mu    sync.Mutex
	known []Sum // contents the host has: the last one seen, and its own writes since
	init  bool  // known holds a baseline

	ready func() // tests: called once the directory is watched
}

// NewWatcher returns a Watcher of the file at path that calls onChange
// (from the goroutine of [Watcher.Run], one call at a time) once the file
// has been quiet for debounce (0 means [DefaultDebounce]) after a change.
func NewWatcher(path string, debounce time.Duration, onChange func()) *Watcher {
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	return &Watcher{path: filepath.Clean(path), debounce: debounce, onChange: onChange}
}

// Watch watches the file at path until ctx is done: it is
// NewWatcher(path, debounce, onChange).Run(ctx).
func Watch(ctx context.Context, path string, debounce time.Duration, onChange func()) error {
	return NewWatcher(path, debounce, onChange).Run(ctx)
}

// Ignore tells the watcher that the host already has the content whose Sum
// is sum (it loaded or wrote it): the file having that content is not a
// change. Call it with the loaded [File.Sum] before Run, so that a change
// made between the load and the start of the watch is still reported.
func (w *Watcher) Ignore(sum Sum) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.remember(sum)
	w.init = true
}

// remember adds sum to the known contents. Called with mu held.
func (w *Watcher) remember(sum Sum) {
	if !slices.Contains(w.known, sum) {
		w.known = append(w.known, sum)
	}
	if len(w.known) > maxKnown {
		w.known = w.known[len(w.known)-maxKnown:]
	}
}

// Update is [Update] for the host: the content it writes does not call
// onChange, provided the host had the content it started from. If the file
// had changed without the host having seen it yet (an editor saved it a
// moment ago), the write still calls onChange, so that the host loads the
// editor's change too.
func (w *Watcher) Update(fn func(*File) error) error {
	return w.UpdateOr(nil, fn)
}

// UpdateOr is [Watcher.Update], except that fn starts from a copy of
// missing (if not nil) when the file does not exist: a host whose file was
// removed keeps its last good config in force, and a change made through
// the host applies to that config (writing the file again) rather than to
// an empty one that would stop every other server.
func (w *Watcher) UpdateOr(missing *File, fn func(*File) error) error {
	var replaced, wrote Sum
	ours := false
	err := update(w.path, fn, updateOptions{missing: missing, beforeRename: func(before, after Sum) {
		w.mu.Lock()
		defer w.mu.Unlock()
		if w.init && slices.Contains(w.known, before) {
			w.remember(after)
			replaced, wrote, ours = before, after, true
		}
	}})
	if err == nil && ours && replaced != wrote {
		// The content the write replaced is no longer the host's: an
		// editor that saves it again (a buffer opened before the write, an
		// undo) changes the file, and must be seen.
		w.mu.Lock()
		w.known = slices.DeleteFunc(w.known, func(s Sum) bool { return s == replaced })
		w.mu.Unlock()
	}
	return err
}

// Run watches until ctx is done, then returns nil; it returns an error only
// if the watch cannot be set up. It watches the file's directory (created,
// 0700, if missing) rather than the file, so that the watch survives editors
// that save by writing a new file and renaming it over the old one, and a
// file that does not exist yet. Events of other files are ignored; a burst
// of events is debounced, but a file written continuously is still looked at
// every ten debounce periods. A file that is a symbolic link is followed: its
// target's directory is watched too (see follow below). onChange is called when the file's content
// (or its absence) differs from every content the host is known to have.
func (w *Watcher) Run(ctx context.Context) error {
	dir, base := filepath.Dir(w.path), filepath.Base(w.path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	if err := fw.Add(dir); err != nil {
		return err
	}
	// A config.json that is a symbolic link (a dotfiles manager's) is
	// followed: the directory of its target is watched too, so that an
	// edit of the target is seen, and the link is resolved again whenever
	// it changes (re-pointed), moving that second watch.
	var target, targetDir string
	follow := func() {
		t, err := filepath.EvalSymlinks(w.path)
		if err != nil || filepath.Clean(t) == w.path {
			t = ""
		}
		t = filepath.Clean(t)
		if t == "." {
			t = ""
		}
		newDir := ""
		if t != "" {
			newDir = filepath.Dir(t)
		}
		if newDir != targetDir {
			if targetDir != "" && targetDir != dir {
				_ = fw.Remove(targetDir)
			}
			if newDir != "" && newDir != dir {
				if err := fw.Add(newDir); err != nil {
					newDir, t = "", "" // a target we cannot watch: the link's own changes are still seen
				}
			}
			targetDir = newDir
		}
		target = t
	}
	follow()

	w.mu.Lock()
	if !w.init {
		sum, _, _ := readSum(w.path)
		w.known, w.init = []Sum{sum}, true
	}
	w.mu.Unlock()
	w.check() // a change between the host's load and the watch
	if w.ready != nil {
		w.ready()
	}

	db := newDebounce(w.debounce)
	defer db.stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return errors.New("the file watcher stopped")
			}
			switch name := filepath.Clean(ev.Name); {
			case filepath.Base(name) == base:
				follow()
				db.change()
			case target != "" && name == target:
				db.change()
			}
		case _, ok := <-fw.Errors:
			if !ok {
				return errors.New("the file watcher stopped")
			}
			db.change() // an overflow may have lost events: look anyway
		case <-db.C():
			db.fired()
			w.check()
		}
	}
}

// check reads the file and calls onChange if its content is not known.
func (w *Watcher) check() {
	sum, _, err := readSum(w.path)
	w.mu.Lock()
	changed := err != nil || !slices.Contains(w.known, sum)
	switch {
	case err != nil:
		// The file cannot be read (not a regular file, too large): the
		// host keeps its config, and whatever readable content comes next,
		// the same as before included, is a change to look at.
		w.known = nil
	case changed:
		w.known = []Sum{sum}
	}
	w.mu.Unlock()
	if changed {
		w.onChange()
	}
}
