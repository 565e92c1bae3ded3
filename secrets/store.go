package secrets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/zalando/go-keyring"
)

// DefaultService is the keyring service under which switchboard's secrets
// are stored (on Linux the Secret Service attribute service=switchboard,
// with username=NAME).
const DefaultService = "switchboard"

// keyringMu serializes the calls into go-keyring in this process: on Linux
// they share one D-Bus connection, and go-keyring's prompt handling takes
// any prompt signal on that connection for its own.
var keyringMu sync.Mutex

// Store keeps secrets in the OS keyring under one service, and their names
// in an index file. It is safe for concurrent use, and several processes
// may use the same index file.
type Store struct {
	service   string
	indexPath string
	goos      string       // whose size limits apply (runtime.GOOS)
	checkBus  func() error // nil: no session-bus check (memory stores)
	mock      bool         // go-keyring's in-memory mock (NewMemoryStore)
}

// NewStore returns a Store for service (DefaultService if empty) whose index
// of names is the file indexPath (DefaultIndexPath() if empty).
func NewStore(service, indexPath string) *Store {
	if service == "" {
		service = DefaultService
	}
	return &Store{service: service, indexPath: indexPath, goos: runtime.GOOS, checkBus: sessionBusCheck}
}

// NewMemoryStore is for tests: it switches go-keyring, for the whole
// process, to its in-memory mock (keyring.MockInit, which also empties it)
// and returns a Store over it that skips the session-bus check.
func NewMemoryStore(indexPath string) *Store {
	keyringMu.Lock()
	keyring.MockInit()
	keyringMu.Unlock()
	s := NewStore(DefaultService, indexPath)
	s.checkBus = nil
	s.mock = true
	return s
}

// DefaultIndexPath is switchboard/secrets.json in the user's configuration
// directory (os.UserConfigDir).
func DefaultIndexPath() (string, error) {
	d, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "switchboard", "secrets.json"), nil
}

// Service returns the keyring service of s.
func (s *Store) Service() string { return s.service }

// IndexPath returns the path of the index of names (the default one when
// none was given).
func (s *Store) IndexPath() (string, error) {
	if s.indexPath != "" {
		return s.indexPath, nil
	}
	return DefaultIndexPath()
}

func (s *Store) preflight(op, name string) error {
	if err := ValidName(name); err != nil {
		return &Error{Op: op, Name: name, Kind: Invalid, Err: errBadName}
	}
	if s.checkBus != nil {
		if err := s.checkBus(); err != nil {
			return &Error{Op: op, Name: name, Kind: NoProvider, Err: err}
		}
	}
	return nil
}

// withIndex runs fn under the index's locks with the names it holds, and
// writes the index back if fn reports a change.
func (s *Store) withIndex(op, name string, fn func(names map[string]bool) (bool, error)) error {
	path, err := s.IndexPath()
	if err != nil {
		return &Error{Op: op, Name: name, Kind: Other, Err: fmt.Errorf("the index of secret names has no place: %w", err)}
	}
	unlock, err := lockIndex(path, true, true)
	if err != nil {
		return &Error{Op: op, Name: name, Kind: Other, Err: err}
	}
	defer unlock()
	names, err := readIndex(path)
	if err != nil {
		return &Error{Op: op, Name: name, Kind: Other, Err: err}
	}
	changed, err := fn(names)
	if err != nil {
		return err
	}
	if changed {
		if err := writeIndex(path, s.service, names); err != nil {
			return &Error{Op: op, Name: name, Kind: Other, Err: err}
		}
	}
	return nil
}

// Set stores v under name, replacing any value, and adds name to the index
// once the keyring has it. It refuses an empty value, a value holding a NUL
// byte (no environment variable can carry one) and a value above the limit
// of this platform's keyring before writing anything.
func (s *Store) Set(name string, v Secret) error {
	if err := ValidName(name); err != nil {
		return &Error{Op: "set", Name: name, Kind: Invalid, Err: errBadName}
	}
	val := v.Reveal()
	if val == "" {
		return &Error{Op: "set", Name: name, Kind: Invalid, Err: errEmptyValue}
	}
	if strings.IndexByte(val, 0) >= 0 {
		return &Error{Op: "set", Name: name, Kind: Invalid, Err: errNULValue}
	}
	if limit, where := valueLimit(s.goos, s.service, name); len(val) > limit {
		return &Error{Op: "set", Name: name, Kind: TooBig, Err: &tooBigError{size: len(val), limit: limit, where: where}}
	}
	if err := s.preflight("set", name); err != nil {
		return err
	}
	return s.withIndex("set", name, func(names map[string]bool) (bool, error) {
		keyringMu.Lock()
		err := keyring.Set(s.service, name, val)
		keyringMu.Unlock()
		if err != nil {
			return false, wrap("set", name, err, val)
		}
		if names[name] {
			return false, nil
		}
		names[name] = true
		return true, nil
	})
}

// Get returns the value stored under name.
func (s *Store) Get(name string) (Secret, error) {
	return s.get("get", name)
}

func (s *Store) get(op, name string) (Secret, error) {
	if err := s.preflight(op, name); err != nil {
		return Secret{}, err
	}
	keyringMu.Lock()
	val, err := keyring.Get(s.service, name)
	keyringMu.Unlock()
	if err != nil {
		return Secret{}, wrap(op, name, err, "")
	}
	return New(val), nil
}

// Delete removes name from the keyring and the index. A name that the
// index lists but the keyring no longer has is dropped from the index
// without error; a name in neither is a NotFound error.
func (s *Store) Delete(name string) error {
	if err := s.preflight("delete", name); err != nil {
		return err
	}
	return s.withIndex("delete", name, func(names map[string]bool) (bool, error) {
		keyringMu.Lock()
		err := keyring.Delete(s.service, name)
		keyringMu.Unlock()
		if err != nil {
			e := wrap("delete", name, err, "")
			if e.Kind != NotFound || !names[name] {
				return false, e
			}
		}
		if !names[name] {
			return false, nil
		}
		delete(names, name)
		return true, nil
	})
}

// List returns the names in the index, sorted. It reads only the index,
// never the keyring (so it works while the keyring is locked and raises no
// prompt); see the package documentation.
func (s *Store) List() ([]string, error) {
	path, err := s.IndexPath()
	if err != nil {
		return nil, &Error{Op: "list", Kind: Other, Err: fmt.Errorf("the index of secret names has no place: %w", err)}
	}
	unlock, err := lockIndex(path, false, false)
	if err != nil {
		return nil, &Error{Op: "list", Kind: Other, Err: err}
	}
	defer unlock()
	names, err := readIndex(path)
	if err != nil {
		return nil, &Error{Op: "list", Kind: Other, Err: err}
	}
	return sortedNames(names), nil
}

// Resolve returns the value of name in a new slice that is the caller's
// to zero; it makes a *Store the engine's SecretResolver (app/host checks
// it). On Linux it reads
// the value from the Secret Service as bytes, with no string copy (see
// getBytes). If ctx ends first (the keyring may be waiting for an unlock
// prompt), it returns an error wrapping ctx.Err(), and the value, if it
// comes later, is zeroed unused.
func (s *Store) Resolve(ctx context.Context, name string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, &Error{Op: "resolve", Name: name, Kind: Other, Err: err}
	}
	type result struct {
		v   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := s.getBytes("resolve", name)
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, r.err
		}
		return r.v, nil
	case <-ctx.Done():
		go func() { clear((<-ch).v) }()
		return nil, &Error{Op: "resolve", Name: name, Kind: Other,
			Err: fmt.Errorf("gave up waiting for the keyring, which may be showing an unlock prompt: %w", ctx.Err())}
	}
}

// getBytes returns the value of name as a new slice. Where go-keyring
// has no byte interface (macOS, Windows, the in-memory mock of tests) it
// copies the string go-keyring returns, which stays in memory until the
// garbage collector reuses it.
func (s *Store) getBytes(op, name string) ([]byte, error) {
	if err := s.preflight(op, name); err != nil {
		return nil, err
	}
	if !s.mock {
		if v, ok, err := secretServiceGet(s.service, name); ok {
			if err != nil {
				return nil, wrap(op, name, err, "")
			}
			return v, nil
		}
	}
	keyringMu.Lock()
	val, err := keyring.Get(s.service, name)
	keyringMu.Unlock()
	if err != nil {
		return nil, wrap(op, name, err, "")
	}
	return []byte(val), nil
}
