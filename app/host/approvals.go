package host

import (
	"github.com/switchboard-mcp/switchboard/app/approvals"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The approvals of issue 14 (app/approvals): the host's stage in the
// relay's chain of hooks, its rules from the config, its approvers (the
// API connections subscribed to the approvals event) and its methods.

// newApprovals makes the host's approval stage; h.srv exists, h.mgr is
// made next (the stage asks it only once calls come).
func (h *Host) newApprovals() *approvals.Stage {
	h.approvals = approvals.New(approvals.Options{
		Destructive: func(server, tool string) bool { return h.mgr.toolDestructive(server, tool) },
		Approvers:   func() int { return h.srv.Subscribers(hostapi.TopicApprovals) },
		Changed: func() {
			_ = h.srv.Publish(hostapi.TopicApprovals, h.approvals.List())
		},
		Always: func(server, tool string) error {
			return h.change(func(f *config.File) error {
				return configedit.SetToolPolicy(f, server, tool, config.PolicyAllow)
			})
		},
	})
	return h.approvals
}

// configureApprovals gives the stage the rules of a config being applied.
func (h *Host) configureApprovals(f *config.File) {
	if h.approvals == nil {
		return
	}
	rules := map[string]approvals.Rules{}
	for name, s := range f.Servers {
		if s != nil {
			rules[name] = approvals.Rules{Policy: s.Policy, Timeout: s.ApprovalTimeout()}
		}
	}
	a, err := f.Approvals()
	if err != nil {
		h.log.Error("the approvals settings cannot be used; destructive tools ask", "error", err)
	}
	h.approvals.SetRules(rules, a.AskDestructive)
}

// toolDestructive reports whether a tool of a server says it is
// destructive: its annotations say destructiveHint true (explicitly: the
// protocol's default of true for a tool that gives no annotations would
// make every unannotated tool ask) and not readOnlyHint.
func (m *Manager) toolDestructive(name, tool string) bool {
	m.mu.Lock()
	s := m.servers[name]
	m.mu.Unlock()
	if s == nil {
		return false
	}
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	for _, t := range s.tools {
		if t.Name == tool {
			a := t.Annotations
			return a != nil && a.DestructiveHint != nil && *a.DestructiveHint && !a.ReadOnlyHint
		}
	}
	return false
}
