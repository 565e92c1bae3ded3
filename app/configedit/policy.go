package configedit

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// SetToolPolicy sets the policy of one tool of a server by its exact
// name ("always allow" of an approval writes allow), keeping every other
// key of the entry and of its policy.
func SetToolPolicy(f *config.File, server, tool, action string) error {
	s, ok := f.Servers[server]
	if !ok || s == nil {
		return NotInConfig(server, f.Names())
	}
	if err := s.SetToolPolicy(tool, action); err != nil {
		return &hostapi.Error{Code: hostapi.CodeInvalidConfig, Message: fmt.Sprintf("server %q: %v", server, err)}
	}
	return nil
}

// EnableOAuth gives a remote entry "oauth": {} (sign in with the server's
// defaults: dynamic client registration, its scopes), keeping every other
// key: what `servers login` does for a server that asked for a sign-in
// its entry did not plan (an imported mcp-remote entry: mcp-remote signs
// in by itself). An entry that has "oauth" already is left as it is.
func EnableOAuth(f *config.File, server string) error {
	s, ok := f.Servers[server]
	if !ok || s == nil {
		return NotInConfig(server, f.Names())
	}
	if !s.IsRemote() {
		return &hostapi.Error{Code: hostapi.CodeInvalidConfig, Message: fmt.Sprintf("server %q is not a remote server: only a remote server signs in", server)}
	}
	if s.OAuth != nil {
		return nil
	}
	s.OAuth = &config.OAuth{}
	if ps := s.Problems(); len(ps) > 0 {
		s.OAuth = nil
		return NotSaved(server, ps)
	}
	return nil
}
