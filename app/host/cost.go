package host

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// withCost adds tools.cost: what an app pays in tokens for the gateway's
// tools and prompts (app/gateway's Cost, which adds up counts the gateway
// keeps; nothing is counted on the request).
func (h *Host) withCost(ms api.Methods) api.Methods {
	ms[hostapi.MethodToolsCost] = func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[hostapi.CostParams](hostapi.MethodToolsCost, raw)
		if err != nil {
			return nil, err
		}
		f := gateway.Filter{Servers: p.Servers, Tools: p.Tools, ToolMode: p.ToolMode, Profile: p.Profile}
		if err := f.Check(); err != nil {
			return nil, api.Errorf(api.CodeBadRequest, "%s: %v", hostapi.MethodToolsCost, err)
		}
		if h.gw == nil {
			return hostapi.Cost{Method: hostapi.CostMethod, Servers: []hostapi.ServerCost{}}, nil
		}
		return h.gw.Cost(f), nil
	}
	return ms
}
