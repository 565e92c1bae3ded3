package host

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The changes a user makes to the config, as functions of a *config.File,
// so that the host (through its watcher, which records its own writes) and
// the command line without a host (through config.Update and its file
// lock) apply them the same way.

// PutServer adds or replaces an entry. With create it refuses an existing
// name; without it, it refuses a missing one. An entry with problems is
// refused with every problem listed, and nothing is written. Its errors
// are *hostapi.Error (codes invalid_name, already_exists, not_found,
// invalid_config), for the host's API and the command line alike.
func PutServer(f *config.File, name string, entry json.RawMessage, create bool) error {
	if !config.ValidServerName(name) {
		return invalidName(name)
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
		return notSaved(name, ps)
	}
	f.SetServer(name, s)
	return nil
}

// RemoveServer removes an entry.
func RemoveServer(f *config.File, name string) error {
	if !f.RemoveServer(name) {
		return notInConfig(name)
	}
	return nil
}

// SetDisabled enables or disables an entry.
func SetDisabled(f *config.File, name string, disabled bool) error {
	if _, ok := f.Servers[name]; !ok {
		return notInConfig(name)
	}
	return f.SetDisabled(name, disabled)
}

// ServerConfigs turns a checked config file into what the manager runs.
// Remote (URL) entries and entries with problems are listed with their
// problems and never started.
func ServerConfigs(f *config.File) []ServerConfig {
	var out []ServerConfig
	for _, name := range f.Names() {
		s := f.Servers[name]
		if s == nil {
			continue
		}
		c := ServerConfig{Name: name, Disabled: s.Disabled, CallTimeout: s.CallTimeout(), Secrets: s.SecretRefs()}
		for _, p := range s.Problems() {
			c.Problems = append(c.Problems, p.Error())
			c.Issues = append(c.Issues, problemOf(p))
		}
		if r := s.Remote(); r != "" && len(c.Problems) == 0 {
			c.Problems = append(c.Problems, fmt.Sprintf("mcpServers.%s: remote (URL) servers are not managed by Switchboard (%s)", name, r))
		}
		spec, err := s.Spec(name)
		if err != nil && len(c.Problems) == 0 {
			c.Problems = append(c.Problems, err.Error())
		}
		c.Spec = spec
		c.Command = s.Command
		c.Tools = s.Tools
		fp, _ := json.Marshal(spec)
		c.Fingerprint = string(fp)
		out = append(out, c)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
