// Package install installs a registry entry's package into Switchboard's
// own folder, locked: an npm package at its exact version, with install
// scripts off, its whole tree's integrity recorded in servers.lock, and
// started later with `node ENTRY` (no resolver at run time). Verify
// re-checks an installed tree against its lock and names what changed.
// docs/registry.md ("Locked installs") describes it.
package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
	"github.com/switchboard-mcp/switchboard/app/config"
)

// LockFile is the lock's name in Switchboard's state directory.
const LockFile = "servers.lock"

// Lock is servers.lock: what each installed server is, by its name in
// the config.
type Lock struct {
	Version int                `json:"version"` // 1
	Servers map[string]*Locked `json:"servers"`
}

// Locked is one server added from a registry: its registry entry, and
// its install when it was installed locked. A server added unlocked (an
// npm package run with npx, a package of another ecosystem run by its
// runtime) or a remote has the entry and no install: Dir, Bin and
// TreeIntegrity are empty, and Ecosystem is the package's registryType
// or "remote". The record is what a later sync and upgrade read to know
// which config entry came from which registry entry.
type Locked struct {
	Registry     string `json:"registry"`      // the registry's name in the config ("official", "catalog")
	Entry        string `json:"entry"`         // the server's name in the registry
	EntryVersion string `json:"entryVersion"`  // the server.json version
	Ecosystem    string `json:"ecosystem"`     // "npm", "pypi", "oci", … or "remote"
	Package      string `json:"package"`       // the package's name
	Version      string `json:"version"`       // its exact version
	Dir          string `json:"dir,omitempty"` // the install folder (absolute); "": not installed locked
	// Bin is the entry point `node` runs (npm), or the program the
	// config entry runs (pypi: the venv's python), absolute, under Dir.
	Bin string `json:"bin,omitempty"`
	// Args are the arguments before the package's own (pypi: -c and the
	// code that calls the package's console script).
	Args []string `json:"args,omitempty"`
	// URL is a remote's URL as 'registry upgrade' wrote it into the
	// entry (and, in Previous, the URL it replaced); "" when the
	// upgrade left the URL as the add wrote it.
	URL string `json:"url,omitempty"`
	// Image is an OCI package's image by digest (REPOSITORY@sha256:...).
	Image string `json:"image,omitempty"`
	// Packages is how many packages the tree holds (package-lock.json's
	// packages, the root left out).
	Packages int `json:"packages,omitempty"`
	// TreeIntegrity is "sha256-" and the hex SHA-256 of the tree's
	// listing (see Listing): every package's integrity from
	// package-lock.json and every file's SHA-256 under Dir.
	TreeIntegrity string    `json:"treeIntegrity,omitempty"`
	InstalledAt   time.Time `json:"installedAt"`
	// Tools are the tool definitions' hashes of the first start, by
	// tool name (trust.Hash: the pin store's hash, so the lock and the
	// pins agree), and ToolsAt when they were taken; empty when the add
	// skipped the first start (--no-start) or it failed.
	Tools   map[string]string `json:"tools,omitempty"`
	ToolsAt time.Time         `json:"toolsAt,omitzero"`
	// Previous is the record this one replaced in an upgrade ('registry
	// rollback' returns to it); nil when none.
	Previous *Locked `json:"previous,omitempty"`
	// Bundle is an MCP bundle's record (Ecosystem "mcpb"): Package and
	// Version are its manifest's name and version, Dir its folder in
	// the store.
	Bundle *BundleLock `json:"bundle,omitempty"`
}

// BundleLock is what servers.lock records of an installed bundle.
type BundleLock struct {
	File   string `json:"file,omitempty"`   // the .mcpb it was installed from (absolute)
	Origin string `json:"origin,omitempty"` // where an unpacked bundle came from
	// SHA256 is the file's SHA-256 (or, for an unpacked bundle, its
	// tree listing's).
	SHA256    string `json:"sha256"`
	Signature string `json:"signature"` // SignatureWords at the install
	// Values are the user_config values given (not the sensitive ones),
	// Secrets the keyring's name of each sensitive key's value: what an
	// upgrade carries over.
	Values  map[string][]string `json:"values,omitempty"`
	Secrets map[string]string   `json:"secrets,omitempty"`
}

// Installed says whether the server runs a locked install (one Verify
// checks).
func (l *Locked) Installed() bool { return l.Dir != "" }

// LockPath is servers.lock in the state directory.
func LockPath(stateDir string) string { return filepath.Join(stateDir, LockFile) }

// ReadLock reads the lock; a missing one is empty.
func ReadLock(stateDir string) (*Lock, error) {
	l := &Lock{Version: 1, Servers: map[string]*Locked{}}
	b, err := os.ReadFile(LockPath(stateDir))
	if errors.Is(err, os.ErrNotExist) {
		return l, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, l); err != nil {
		return nil, fmt.Errorf("%s: %w (it is written by 'switchboard registry add': restore it, or remove it and add the servers again)", LockPath(stateDir), err)
	}
	if l.Version != 1 {
		return nil, fmt.Errorf("%s: version %d, this Switchboard reads version 1 (a newer Switchboard wrote it)", LockPath(stateDir), l.Version)
	}
	if l.Servers == nil {
		l.Servers = map[string]*Locked{}
	}
	return l, nil
}

// WriteLock writes the lock atomically (a temporary file renamed over
// the old one).
func WriteLock(stateDir string, l *Lock) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return config.WriteFile(LockPath(stateDir), append(b, '\n'))
}

// UpdateLock reads the lock, lets f change it and writes it, holding an
// exclusive lock on servers.lock.lk beside it the whole time (flock on
// Unix, LockFileEx on Windows: gofrs/flock, as the config's own lock), so
// that two adds, a remove and a rename at once do not lose each other's
// entries. The OS releases it when a holder dies.
func UpdateLock(stateDir string, f func(*Lock)) error {
	if err := os.MkdirAll(stateDir, 0o700); err != nil {
		return err
	}
	fl := flock.New(LockPath(stateDir)+".lk", flock.SetPermissions(0o600))
	if err := fl.Lock(); err != nil {
		return fmt.Errorf("locking %s: %w", LockPath(stateDir), err)
	}
	defer fl.Unlock()
	l, err := ReadLock(stateDir)
	if err != nil {
		return err
	}
	f(l)
	return WriteLock(stateDir, l)
}

// Forget drops name's entry from the lock (a server removed from the
// config). It returns the install folder the entry had when no other
// entry uses it any more ("" when it had none, or another uses it): the
// caller says it may be deleted. A lock without the name is left as it
// is.
func Forget(stateDir, name string) (unused string, err error) {
	if _, err := os.Stat(LockPath(stateDir)); errors.Is(err, os.ErrNotExist) {
		return "", nil
	}
	err = UpdateLock(stateDir, func(l *Lock) {
		gone := l.Servers[name]
		if gone == nil {
			return
		}
		delete(l.Servers, name)
		if gone.Dir == "" {
			return
		}
		for _, other := range l.Servers {
			if filepath.Clean(other.Dir) == filepath.Clean(gone.Dir) {
				return
			}
		}
		unused = gone.Dir
	})
	return unused, err
}

// Rename moves old's lock entry to new (a server renamed in the config);
// a lock without old is left as it is.
func Rename(stateDir, old, new string) error {
	if old == new {
		return nil
	}
	if _, err := os.Stat(LockPath(stateDir)); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return UpdateLock(stateDir, func(l *Lock) {
		if e := l.Servers[old]; e != nil {
			l.Servers[new] = e
			delete(l.Servers, old)
		}
	})
}
