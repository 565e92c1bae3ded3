package secrets

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"

	"github.com/gofrs/flock"
)

// indexFile is the JSON of the index: names only, never a value.
type indexFile struct {
	Version int      `json:"version"`
	Service string   `json:"service"`
	Names   []string `json:"names"`
}

// pathLocks serializes, within this process, the users of one index file
// (the file lock serializes processes).
var pathLocks = struct {
	sync.Mutex
	m map[string]*sync.RWMutex
}{m: map[string]*sync.RWMutex{}}

func pathLock(path string) *sync.RWMutex {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	pathLocks.Lock()
	defer pathLocks.Unlock()
	mu := pathLocks.m[path]
	if mu == nil {
		mu = &sync.RWMutex{}
		pathLocks.m[path] = mu
	}
	return mu
}

// readIndex reads the names in the index at path; a missing file is an
// empty index.
func readIndex(path string) (map[string]bool, error) {
	names := map[string]bool{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return names, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the index of secret names %s cannot be read: %w", path, err)
	}
	var f indexFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("the index of secret names %s is damaged (%v): remove it and set the secrets again (their values are still in the keyring)", path, err)
	}
	for _, n := range f.Names {
		if ValidName(n) == nil {
			names[n] = true
		}
	}
	return names, nil
}

func sortedNames(names map[string]bool) []string {
	out := make([]string, 0, len(names))
	for n := range names {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// writeIndex replaces the index at path atomically: a temporary file in the
// same directory (mode 0600), fsync, rename, fsync of the directory.
func writeIndex(path, service string, names map[string]bool) (err error) {
	b, err := json.MarshalIndent(indexFile{Version: 1, Service: service, Names: sortedNames(names)}, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("the index of secret names %s cannot be written: %w", path, err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
			err = fmt.Errorf("the index of secret names %s cannot be written: %w", path, err)
		}
	}()
	if err = tmp.Chmod(0o600); err != nil && runtime.GOOS != "windows" {
		return err
	}
	if _, err = tmp.Write(b); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	if runtime.GOOS != "windows" {
		if d, derr := os.Open(dir); derr == nil {
			_ = d.Sync()
			_ = d.Close()
		}
	}
	return nil
}

// lockIndex takes the in-process lock and the file lock of the index at
// path (exclusive or shared), creating its directory with mode 0700 when
// create is set. It returns the function that releases both.
func lockIndex(path string, exclusive, create bool) (func(), error) {
	mu := pathLock(path)
	if exclusive {
		mu.Lock()
	} else {
		mu.RLock()
	}
	unlockMu := func() {
		if exclusive {
			mu.Unlock()
		} else {
			mu.RUnlock()
		}
	}
	dir := filepath.Dir(path)
	if create {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			unlockMu()
			return nil, fmt.Errorf("the directory of the index of secret names %s cannot be created: %w", dir, err)
		}
	} else if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return unlockMu, nil // nothing to lock: no index yet
	}
	fl := flock.New(path+".lock", flock.SetPermissions(0o600))
	var err error
	if exclusive {
		err = fl.Lock()
	} else {
		err = fl.RLock()
	}
	if err != nil {
		unlockMu()
		return nil, fmt.Errorf("the lock file %s of the index of secret names cannot be locked: %w", path+".lock", err)
	}
	return func() {
		_ = fl.Close()
		unlockMu()
	}, nil
}
