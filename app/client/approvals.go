package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Approvals returns the calls waiting for the user's approval, oldest
// first (approvals.list).
func (m Methods) Approvals(ctx context.Context) ([]hostapi.Approval, error) {
	return Call(ctx, m, hostapi.MethodApprovalsList, hostapi.None{})
}

// Decide decides a waiting call (approvals.decide): decision is one of
// hostapi.DecideOnce, DecideApp, DecideAlways, DecideDeny.
func (m Methods) Decide(ctx context.Context, id, decision string) error {
	_, err := Call(ctx, m, hostapi.MethodApprovalsDecide, hostapi.DecideParams{ID: id, Decision: decision})
	return err
}

// FollowApprovals delivers the set of waiting calls each time it changes
// (the approvals event), until ctx ends or the connection does; then the
// channel is closed. While it follows, the connection is an approver: the
// host asks the user instead of denying at once.
func (c *Conn) FollowApprovals(ctx context.Context) (<-chan []hostapi.Approval, error) {
	return followSet[hostapi.Approval](ctx, c, hostapi.TopicApprovals)
}
