package host

import (
	"context"
	"encoding/json"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// withOAuth adds the sign-in methods of remote servers (oauth.go).
func (h *Host) withOAuth(ms api.Methods) api.Methods {
	ms[hostapi.MethodLogin] = func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[hostapi.NameParams](hostapi.MethodLogin, raw)
		if err != nil {
			return nil, err
		}
		u, err := h.mgr.Login(ctx, p.Name)
		if err != nil {
			return nil, err
		}
		return hostapi.LoginResult{URL: u}, nil
	}
	ms[hostapi.MethodLogout] = func(ctx context.Context, _ *api.ConnInfo, raw json.RawMessage) (any, error) {
		p, err := decode[hostapi.NameParams](hostapi.MethodLogout, raw)
		if err != nil {
			return nil, err
		}
		revoked, err := h.mgr.Logout(ctx, p.Name)
		if err != nil {
			return nil, err
		}
		return hostapi.LogoutResult{Revoked: revoked}, nil
	}
	return ms
}
