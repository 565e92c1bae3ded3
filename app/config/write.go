package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/gofrs/flock"
)

// updateOptions are the knobs of update: the lock wait, and a hook called
// with the lock held right before the rename (the Watcher records its own
// writes there).
type updateOptions struct {
	lockTimeout  time.Duration
	beforeRename func(before, after Sum)
	// missing, if not nil, is what fn starts from when the file does not
	// exist (instead of New).
	missing *File
}

const defaultLockTimeout = 10 * time.Second

// Update changes the file at path for a writer that is not the host (the
// command line, an installer): it takes the lock path+".lock" (so writers
// take turns), reads the file (a missing or empty file is [New]), calls fn,
// checks the result and writes it atomically (see [WriteFile]). Before the
// rename it checks that the file has not changed since it was read (an
// editor does not take the lock); if it has, it starts over once, calling fn
// again on the new content, and then fails with nothing written. fn may thus
// run twice; an error from fn is returned and nothing is written. A file
// that does not parse, or has a newer version, is not overwritten.
//
// The result is written even if it has problems: fn can call f.Check() and
// refuse. The *File last passed to fn is what was written.
func Update(path string, fn func(*File) error) error {
	return update(path, fn, updateOptions{})
}

func update(path string, fn func(*File) error, o updateOptions) error {
	if o.lockTimeout <= 0 {
		o.lockTimeout = defaultLockTimeout
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return unwritable(path, err)
	}
	lock := flock.New(path + ".lock")
	ctx, cancel := context.WithTimeout(context.Background(), o.lockTimeout)
	defer cancel()
	if ok, err := lock.TryLockContext(ctx, 10*time.Millisecond); !ok {
		if err == nil || errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("another program has been updating %s for %s (it holds %s): try again when it is done", path, o.lockTimeout, lock.Path())
		}
		return unwritable(path, err)
	}
	defer lock.Unlock()

	// Write through a symbolic link (a dotfiles manager's), not over it.
	target := path
	if t, err := filepath.EvalSymlinks(path); err == nil {
		target = t
	}
	for attempt := 1; ; attempt++ {
		before, data, err := readSum(target)
		if err != nil {
			return err
		}
		f := New()
		if data == nil && o.missing != nil {
			if f, err = clone(o.missing); err != nil {
				return err
			}
		}
		if len(bytes.TrimSpace(bytes.TrimPrefix(data, utf8BOM))) > 0 {
			if f, err = Parse(data); err != nil {
				var se *SyntaxError
				if errors.As(err, &se) {
					se.Path = path
				}
				return fmt.Errorf("%s is not changed until it can be read: %w", path, err)
			}
		}
		if err := fn(f); err != nil {
			return err
		}
		f.Check()
		out, err := f.Marshal()
		if err != nil {
			return err
		}
		tmp, err := writeTemp(target, out)
		if err != nil {
			return unwritable(target, err)
		}
		now, _, err := readSum(target)
		if err != nil || now != before {
			os.Remove(tmp)
			if err != nil {
				return err
			}
			if attempt < 2 {
				continue
			}
			return fmt.Errorf("%s changed while it was being updated (another program is writing it): nothing was written; try again", path)
		}
		if o.beforeRename != nil {
			o.beforeRename(before, SumOf(out))
		}
		if err := os.Rename(tmp, target); err != nil {
			os.Remove(tmp)
			return unwritable(target, err)
		}
		syncDir(filepath.Dir(target))
		return nil
	}
}

// unwritable words an error of writing in the directory of the config
// file at path (creating it, the lock beside the file, the temporary file,
// the rename) as what cannot be done, and the remedy: a read-only
// directory is a question of its permissions, anything else of the disk.
func unwritable(path string, err error) error {
	dir := filepath.Dir(path)
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%s cannot be changed: you may not write in its directory %s (%w): make the directory writable for you, or use a config file elsewhere (--config PATH, or SWITCHBOARD_CONFIG)", path, dir, err)
	}
	return fmt.Errorf("%s cannot be changed: writing in its directory %s failed (%w): check that the disk is neither full nor read-only, or use a config file elsewhere (--config PATH, or SWITCHBOARD_CONFIG)", path, dir, err)
}

// clone returns a copy of f, through its JSON.
func clone(f *File) (*File, error) {
	data, err := f.Marshal()
	if err != nil {
		return nil, err
	}
	return Parse(data)
}

// readSum reads the file and its Sum; a missing file is the zero Sum.
func readSum(path string) (Sum, []byte, error) {
	data, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Sum{}, nil, nil
	}
	if err != nil {
		return Sum{}, nil, err
	}
	return SumOf(data), data, nil
}

// WriteFile writes data to path atomically: to a temporary file in the same
// directory (mode 0600), synced, renamed over path, and the directory synced,
// so that a reader sees the old content or the new, never a mix. The
// directory is created (0700) if needed. It takes no lock: use [Update].
func WriteFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := writeTemp(path, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(path))
	return nil
}

// writeTemp writes data to a new file beside path, mode 0600, synced and
// closed, and returns its name.
func writeTemp(path string, data []byte) (string, error) {
	t, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	name := t.Name()
	err = t.Chmod(0o600)
	if runtime.GOOS == "windows" {
		err = nil // only the read-only bit exists there
	}
	if err == nil {
		_, err = t.Write(data)
	}
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
		return "", fmt.Errorf("writing %s: %w", name, err)
	}
	return name, nil
}

// syncDir makes a rename in dir durable. Best effort: some file systems
// refuse to sync a directory, and Windows cannot open one for it.
func syncDir(dir string) {
	if runtime.GOOS == "windows" {
		return
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
