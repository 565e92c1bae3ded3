package host

import (
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/engine"
)

// peerGuard refuses a peer of the host's API socket or of the gateway that
// is one of the host's sandboxed servers or descends from one
// (engine.SandboxedPeer): the defence behind the sandbox's own closing of
// Unix sockets, so that a server that got past it still cannot drive the
// host (rewrite its own entry to "off", add a server, call another). The
// refusal is logged with the server's name.
func (h *Host) peerGuard(pid int) error {
	if pid <= 0 || h.mgr == nil {
		return nil
	}
	name, refused := engine.SandboxedPeer(pid, h.mgr.sandboxedPIDs())
	if !refused {
		return nil
	}
	h.log.Warn("refused a connection from a sandboxed server", "server", name, "pid", pid)
	return api.Errorf(api.CodeForbidden, "connection refused: the peer (pid %d) is the sandboxed server %s or one of its processes: a sandboxed server may not use the host", pid, name)
}

// sandboxedPIDs are the main processes of the servers running confined,
// by pid.
func (m *Manager) sandboxedPIDs() map[int]string {
	m.mu.Lock()
	sups := map[string]interface{ Process() *engine.Process }{}
	for name, s := range m.servers {
		if s.sup != nil {
			sups[name] = s.sup
		}
	}
	m.mu.Unlock() // the supervisors' locks are never taken under m.mu here
	out := map[int]string{}
	for name, sup := range sups {
		p := sup.Process()
		if p == nil {
			continue
		}
		if st := p.Sandbox(); st != nil && !st.Unconfined {
			out[p.Pid()] = name
		}
	}
	return out
}
