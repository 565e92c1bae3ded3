package host

import (
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/engine"
)

// rename renames an entry (servers.rename). The manager sees the old name
// leave and the new one come: a running server stops under its old name
// and starts under the new one; its env's secret references are the same,
// so it resolves the same secrets. A server the user had stopped stays
// stopped under its new name.
func (h *Host) rename(old, new string) error {
	var stayStopped bool
	var logs *engine.Ring
	if s, err := h.mgr.get(old); err == nil {
		_, stayStopped = s.config()
		logs = s.logs
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
		if old != new {
			h.mgr.keepStopped(new, stayStopped)
			h.mgr.inheritLogs(new, old, logs)
			renamed = true
		}
		return nil
	})
	if err != nil && renamed {
		// Not written: the name is not coming.
		h.mgr.keepStopped(new, false)
		h.mgr.inheritLogs(new, "", nil)
	}
	if err != nil && moved {
		h.renamePins(new, old)
	}
	return err
}

// inheritedLogs is a renamed server's kept stderr, for its new name.
type inheritedLogs struct {
	from string
	logs *engine.Ring
}

// inheritLogs gives the next new entry called name the kept stderr of
// the server it was renamed from (its lines stay in 'logs' and the
// window's Logs, with a line that marks the rename); a nil ring forgets
// it.
func (m *Manager) inheritLogs(name, from string, logs *engine.Ring) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if logs == nil {
		delete(m.inherit, name)
		return
	}
	if m.inherit == nil {
		m.inherit = map[string]inheritedLogs{}
	}
	m.inherit[name] = inheritedLogs{from, logs}
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
