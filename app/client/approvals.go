package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Approvals returns the calls waiting for the user's approval, oldest
// first (approvals.list).
func (m Methods) Approvals(ctx context.Context) ([]hostapi.Approval, error) {
	var list []hostapi.Approval
	err := m.call(ctx, hostapi.MethodApprovals, nil, &list)
	return list, err
}

// Decide decides a waiting call (approvals.decide): decision is one of
// hostapi.DecideOnce, DecideApp, DecideAlways, DecideDeny.
func (m Methods) Decide(ctx context.Context, id, decision string) error {
	return m.call(ctx, hostapi.MethodApprovalDecide, hostapi.DecideParams{ID: id, Decision: decision}, nil)
}
