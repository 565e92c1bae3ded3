package host

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// The sign-in methods of remote servers (oauth.go); handlers.go lists
// them.

func (h *Host) login(ctx context.Context, _ *api.ConnInfo, p hostapi.NameParams) (hostapi.LoginResult, error) {
	// A server that asked for a sign-in its entry does not plan (an
	// imported mcp-remote entry: mcp-remote signed in by itself): the
	// entry gets "oauth": {}, then the sign-in runs as for any other.
	if h.mgr.SignInAsked(p.Name) {
		if err := h.change(func(f *config.File) error { return configedit.EnableOAuth(f, p.Name) }); err != nil {
			return hostapi.LoginResult{}, err
		}
	}
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
