package host

import (
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
)

// rename renames an entry (servers.rename). The manager sees the old name
// leave and the new one come: a running server stops under its old name
// and starts under the new one; its env's secret references are the same,
// so it resolves the same secrets. A server the user had stopped stays
// stopped under its new name.
func (h *Host) rename(old, new string) error {
	var stayStopped bool
	if s, err := h.mgr.get(old); err == nil {
		_, stayStopped = s.config()
	}
	renamed, moved := false, false
	err := h.change(func(f *config.File) error {
		if err := configedit.Rename(f, old, new); err != nil {
			return err
		}
		// Before the manager sees the old name leave (and the host forgets
		// its pins): the pins go with the entry.
		h.renamePins(old, new)
		moved = true
		if stayStopped && old != new {
			h.mgr.keepStopped(new, true)
			renamed = true
		}
		return nil
	})
	if err != nil && renamed {
		h.mgr.keepStopped(new, false) // not written: the name is not coming
	}
	if err != nil && moved {
		h.renamePins(new, old)
	}
	return err
}

// keepStopped marks (or unmarks) a name whose next new entry is not
// started.
func (m *Manager) keepStopped(name string, v bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !v {
		delete(m.stayStopped, name)
		return
	}
	if m.stayStopped == nil {
		m.stayStopped = map[string]bool{}
	}
	m.stayStopped[name] = true
}
