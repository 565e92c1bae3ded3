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
	"github.com/switchboard-mcp/switchboard/internal/english"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// PutServer adds or replaces an entry. With create it refuses an existing
// name; without it, it refuses a missing one. An entry with problems is
// refused with every problem listed, and nothing is written. Its errors
// are *hostapi.Error (codes invalid_name, already_exists, not_found,
// invalid_config), for the host's API and the command line alike.
func PutServer(f *config.File, name string, entry json.RawMessage, create bool) error {
	if !config.ValidServerName(name) {
		return InvalidName(name)
	}
	_, exists := f.Servers[name]
	if create && exists {
		msg := fmt.Sprintf("server %q already exists: change it with 'switchboard servers set %s', or remove it first", name, name)
		return &hostapi.Error{Code: hostapi.CodeAlreadyExists, Message: msg, Problems: []hostapi.Problem{{
			Server: name, Key: hostapi.KeyName, Message: msg, Fact: fmt.Sprintf("server %q already exists", name),
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyEdit, Server: name}}}}
	}
	if !create && !exists {
		return &hostapi.Error{Code: hostapi.CodeNotFound,
			Message: fmt.Sprintf("server %q is not in the config: add it with 'switchboard servers add %s -- COMMAND [ARGS...]'", name, name)}
	}
	s, err := config.ParseServer(name, entry)
	if err != nil {
		return &hostapi.Error{Code: hostapi.CodeInvalidConfig, Message: err.Error(),
			Problems: []hostapi.Problem{{Server: name, Message: err.Error()}}}
	}
	if ps := s.Problems(); len(ps) > 0 {
		return NotSaved(name, ps)
	}
	f.SetServer(name, s)
	return nil
}

// RemoveServer removes an entry.
func RemoveServer(f *config.File, name string) error {
	if !f.RemoveServer(name) {
		return NotInConfig(name, f.Names())
	}
	return nil
}

// SetDisabled enables or disables an entry.
func SetDisabled(f *config.File, name string, disabled bool) error {
	if _, ok := f.Servers[name]; !ok {
		return NotInConfig(name, f.Names())
	}
	return f.SetDisabled(name, disabled)
}

// NotInConfig is the error for a name the config does not have; known
// are the names it has, for a "did you mean" when name is near one.
func NotInConfig(name string, known []string) error {
	return &hostapi.Error{Code: hostapi.CodeNotFound,
		Message: fmt.Sprintf("server %q is not in the config%s; 'switchboard status' lists the servers", name, english.DidYouMean(name, known))}
}

// InvalidName is the error for a name that cannot name a server.
func InvalidName(name string) error {
	msg := fmt.Sprintf("server name %q is invalid: use 1 to 31 lower-case letters, digits and '-', starting with a letter or digit (for example %q)",
		name, config.NormalizeName(name))
	return &hostapi.Error{Code: hostapi.CodeInvalidName, Message: msg,
		Problems: []hostapi.Problem{{Server: name, Key: hostapi.KeyName, Message: msg}}}
}

// NotSaved is the refusal of an entry with problems.
func NotSaved(name string, ps []config.Problem) error {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return &hostapi.Error{Code: hostapi.CodeInvalidConfig,
		Message:  fmt.Sprintf("server %q was not saved: %s", name, strings.Join(msgs, "; ")),
		Problems: ps}
}

// ListSecrets lists the stored secrets and the servers that use each (in
// env, headers, oauth.clientSecret, or as a remote server's sign-in). A
// secret the config refers to but the keyring lacks is not listed: the
// front ends take a listed name as stored (a form offers it without a
// value), and such a server's status says what is missing.
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
			for _, ref := range s.SecretsUsed(n) {
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

// Rename gives the entry old the name new: the config key changes, the
// entry keeps its place in the file and every key as written (unknown
// ones too), and its env's secret references stay as they are. Its errors
// are *hostapi.Error: not_found (no entry old), invalid_name (new cannot
// name a server), already_exists (new is taken). Renaming to the same
// name is no change.
func Rename(f *config.File, old, new string) error {
	if _, ok := f.Servers[old]; !ok {
		return NotInConfig(old, f.Names())
	}
	if old == new {
		return nil
	}
	if !config.ValidServerName(new) {
		return InvalidName(new)
	}
	if _, taken := f.Servers[new]; taken {
		msg := fmt.Sprintf("cannot rename %q to %q: a server named %q already exists; choose another name, or remove %q first", old, new, new, new)
		return &hostapi.Error{Code: hostapi.CodeAlreadyExists, Message: msg, Problems: []hostapi.Problem{{
			Server: old, Key: hostapi.KeyName, Message: msg, Fact: fmt.Sprintf("server %q already exists", new)}}}
	}
	f.RenameServer(old, new)
	return nil
}
