// Package configedit holds the changes a user makes to the config, as
// functions of a *config.File, so that the host (through its watcher,
// which records its own writes), the command line without a host (through
// config.Update and its file lock) and the window's checks apply them the
// same way. It knows nothing of the host: a front end may import it.
package configedit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// PutServer adds or replaces an entry. With create it refuses an existing
// name; without it, it refuses a missing one. An entry with problems is
// refused with every problem listed, and nothing is written.
func PutServer(f *config.File, name string, entry json.RawMessage, create bool) error {
	if !config.ValidServerName(name) {
		return fmt.Errorf("server name %q is invalid: use 1 to 31 lower-case letters, digits and '-', starting with a letter or digit (for example %q)",
			name, config.NormalizeName(name))
	}
	_, exists := f.Servers[name]
	if create && exists {
		return fmt.Errorf("server %q already exists: change it with 'switchboard servers set %s', or remove it first", name, name)
	}
	if !create && !exists {
		return fmt.Errorf("server %q is not in the config: add it with 'switchboard servers add %s -- COMMAND [ARGS...]'", name, name)
	}
	s, err := config.ParseServer(name, entry)
	if err != nil {
		return err
	}
	if ps := s.Problems(); len(ps) > 0 {
		msgs := make([]string, len(ps))
		for i, p := range ps {
			msgs[i] = p.Error()
		}
		return &ProblemsError{Server: name, Problems: msgs}
	}
	f.SetServer(name, s)
	return nil
}

// ProblemsError lists the problems of an entry that was refused.
type ProblemsError struct {
	Server   string
	Problems []string
}

func (e *ProblemsError) Error() string {
	return fmt.Sprintf("server %q was not saved: %s", e.Server, strings.Join(e.Problems, "; "))
}

// RemoveServer removes an entry.
func RemoveServer(f *config.File, name string) error {
	if !f.RemoveServer(name) {
		return fmt.Errorf("server %q is not in the config; 'switchboard status' lists the servers", name)
	}
	return nil
}

// SetDisabled enables or disables an entry.
func SetDisabled(f *config.File, name string, disabled bool) error {
	if _, ok := f.Servers[name]; !ok {
		return fmt.Errorf("server %q is not in the config; 'switchboard status' lists the servers", name)
	}
	return f.SetDisabled(name, disabled)
}

// ListSecrets lists the stored secrets and the servers that use each,
// plus the referenced ones that are not stored (UsedBy set, marked by the
// caller through the store's absence).
func ListSecrets(store *secrets.Store, f *config.File) ([]hostapi.SecretInfo, error) {
	var names []string
	if store != nil {
		var err error
		if names, err = store.List(); err != nil {
			return nil, err
		}
	}
	used := map[string][]string{}
	for _, n := range f.Names() {
		if s := f.Servers[n]; s != nil {
			for _, ref := range s.SecretRefs() {
				used[ref] = append(used[ref], n)
			}
		}
	}
	out := make([]hostapi.SecretInfo, 0, len(names))
	for _, n := range names {
		out = append(out, hostapi.SecretInfo{Name: n, UsedBy: used[n]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
