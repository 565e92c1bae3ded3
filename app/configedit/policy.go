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
