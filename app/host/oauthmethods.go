package host

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The sign-in methods of remote servers (oauth.go); handlers.go lists
// them.

func (h *Host) login(ctx context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.LoginResult, error) {
	u, err := h.mgr.Login(ctx, p.Name)
	if err != nil {
		return hostapi.LoginResult{}, err
	}
	return hostapi.LoginResult{URL: u}, nil
}

func (h *Host) logout(ctx context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.LogoutResult, error) {
	revoked, err := h.mgr.Logout(ctx, p.Name)
	if err != nil {
		return hostapi.LogoutResult{}, err
	}
	return hostapi.LogoutResult{Revoked: revoked}, nil
}
