package host

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// toolsCost answers tools.cost: what an app pays in tokens for the
// gateway's tools and prompts (app/gateway's Cost, which adds up counts
// the gateway keeps; nothing is counted on the request).
func (h *Host) toolsCost(_ context.Context, _ *api.ConnInfo, p hostapi.CostParams) (hostapi.Cost, error) {
	f := gateway.Filter{Servers: p.Servers, Tools: p.Tools, ToolMode: p.ToolMode, Profile: p.Profile}
	if err := f.Check(); err != nil {
		return hostapi.Cost{}, api.Errorf(api.CodeBadRequest, "%s: %v", hostapi.MethodToolsCost.Name, err)
	}
	if h.gw == nil {
		return hostapi.Cost{Method: hostapi.CostMethod, Servers: []hostapi.ServerCost{}}, nil
	}
	return h.gw.Cost(f), nil
}
