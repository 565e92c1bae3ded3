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
		f := gateway.Filter{Servers: p.Servers, Tools: p.Tools, ToolMode: p.ToolMode}
		if err := f.Check(); err != nil {
			return nil, api.Errorf(api.CodeBadRequest, "%s: %v", hostapi.MethodToolsCost, err)
		}
		switch p.ToolMode {
		case "", "all", "search":
		default:
			return nil, api.Errorf(api.CodeBadRequest, "%s: tool mode %q is not one of all, search", hostapi.MethodToolsCost, p.ToolMode)
		}
		if p.Profile != "" {
			// MERGE(profiles): set f.Profile = p.Profile here (the
			// gateway's Cost resolves it with g.effective) and drop
			// this refusal.
			return nil, api.Errorf(api.CodeBadRequest, "%s: this host has no profiles (profile %q)", hostapi.MethodToolsCost, p.Profile)
		}
		if h.gw == nil {
			return hostapi.Cost{Method: hostapi.CostMethod, Servers: []hostapi.ServerCost{}}, nil
		}
		return h.gw.Cost(f), nil
	}
	return ms
}
