package host

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/app/install"
)

// forgetLocked drops a removed server's entry from servers.lock (its
// install folder stays: 'servers remove' says when no other server uses
// it). The entry is gone from the config already: an error says so.
func (h *Host) forgetLocked(name string) error {
	if h.opts.StateDir == "" {
		return nil
	}
	if _, err := install.Forget(h.opts.StateDir, name); err != nil {
		return fmt.Errorf("%s was removed from the config, but its entry in %s was not: %w", name, install.LockPath(h.opts.StateDir), err)
	}
	return nil
}

// renameLocked moves a renamed server's entry in servers.lock.
func (h *Host) renameLocked(old, new string) error {
	if h.opts.StateDir == "" {
		return nil
	}
	if err := install.Rename(h.opts.StateDir, old, new); err != nil {
		return fmt.Errorf("%s was renamed %s in the config, but not in %s: %w", old, new, install.LockPath(h.opts.StateDir), err)
	}
	return nil
}
