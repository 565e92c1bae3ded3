package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Cost returns what an app with the selection p pays in tokens for the
// gateway's tools and prompts, by server, and what each connected app
// pays (tools.cost). The host counts in the background: a server still
// being counted is in the answer's Pending, not priced 0.
func (m Methods) Cost(ctx context.Context, p hostapi.CostParams) (hostapi.Cost, error) {
	return Call(ctx, m, hostapi.MethodToolsCost, p)
}
