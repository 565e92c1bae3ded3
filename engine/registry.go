package engine

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// TokenEnv is the variable that marks every process of a server: a random
// token, new for each start, that its children inherit, so that the stop
// ladder can find a member that left the process group and lost its
// parent, and a sweep can tell the server's survivors from strangers that
// reuse a pid.
const TokenEnv = "SWITCHBOARD_SERVER_TOKEN"

// Identity is what the registry records of a running server: enough to
// find its process tree after the host was killed, and never to mistake
// another process for it.
type Identity struct {
	Server string `json:"server"`
	PID    int    `json:"pid"`
	PGID   int    `json:"pgid"`
	Start  uint64 `json:"start"` // the leader's start time, as the OS counts it
	Boot   string `json:"boot"`  // the boot it started in
	Token  string `json:"token"` // the value of TokenEnv in its environment
}

// Registry records the process groups of running servers in a file, so
// that the next host can kill what the OS did not tie to the host's life
// (grandchildren on Linux, everything on macOS) if the host is killed.
type Registry struct {
	path string
	mu   sync.Mutex
}

// NewRegistry returns a registry kept at path.
func NewRegistry(path string) *Registry { return &Registry{path: path} }

func (r *Registry) load() ([]Identity, error) {
	b, err := os.ReadFile(r.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ids []Identity
	if err := json.Unmarshal(b, &ids); err != nil {
		return nil, fmt.Errorf("process registry %s is corrupt: %w", r.path, err)
	}
	return ids, nil
}

func (r *Registry) save(ids []Identity) error {
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(ids)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(r.path), ".procs-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), r.path)
}

func (r *Registry) add(id Identity) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids, _ := r.load() // a corrupt file is replaced
	return r.save(append(ids, id))
}

func (r *Registry) remove(id Identity) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids, err := r.load()
	if err != nil {
		return err
	}
	ids = slices.DeleteFunc(ids, func(x Identity) bool { return x.Token == id.Token })
	return r.save(ids)
}

// Sweep kills the survivors of the servers recorded by an earlier host
// that did not stop them (it was killed): the processes that are provably
// theirs, never a reused pid. It returns the number of processes killed
// and empties the record.
//
// Only the process that holds the host's single-instance lock may sweep,
// before it starts any server: a second host must never kill a live
// host's servers.
func (r *Registry) Sweep() (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids, err := r.load()
	if err != nil {
		_ = r.save(nil)
		return 0, err
	}
	killed := 0
	var errs []error
	for _, id := range ids {
		for _, st := range survivors(id) {
			if err := killSurvivor(st); err != nil {
				errs = append(errs, fmt.Errorf("server %q: killing survivor pid %d: %w", id.Server, st.pid, err))
				continue
			}
			killed++
		}
	}
	if err := r.save(nil); err != nil {
		errs = append(errs, err)
	}
	return killed, errors.Join(errs...)
}

func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
