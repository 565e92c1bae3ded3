package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The pinned tool definitions' methods (docs/trust.md).

// ReviewTools returns the tools held for review of server ("": every
// server), with their diffs and flags (tools.review). enabled is false
// from a host that pins nothing.
func (m Methods) ReviewTools(ctx context.Context, server string) (held []hostapi.HeldTool, enabled bool, err error) {
	r, err := Call(ctx, m, hostapi.MethodToolsReview, hostapi.NameParams{Name: server})
	if err != nil {
		return nil, false, err
	}
	return r.Held, r.Enabled, nil
}

// AcceptTool trusts the definition a held tool presents (tools.accept):
// the apps see it again (they get list_changed).
func (m Methods) AcceptTool(ctx context.Context, server, tool string) error {
	_, err := Call(ctx, m, hostapi.MethodToolsAccept, hostapi.ToolParams{Name: server, Tool: tool})
	return err
}

// RejectTool hides a tool until its definition changes again
// (tools.reject).
func (m Methods) RejectTool(ctx context.Context, server, tool string) error {
	_, err := Call(ctx, m, hostapi.MethodToolsReject, hostapi.ToolParams{Name: server, Tool: tool})
	return err
}
