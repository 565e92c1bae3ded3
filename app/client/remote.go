package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Login starts the OAuth sign-in of a remote server (servers.login) and
// returns the page to open in a browser; the server's state follows the
// sign-in ("signing in", then running or "sign-in needed").
func (m Methods) Login(ctx context.Context, name string) (string, error) {
	r, err := Call(ctx, m, hostapi.MethodServersLogin, hostapi.NameParams{Name: name})
	return r.URL, err
}

// Logout deletes a remote server's tokens (servers.logout); revoked says
// whether the authorization server revoked them first.
func (m Methods) Logout(ctx context.Context, name string) (revoked bool, err error) {
	r, err := Call(ctx, m, hostapi.MethodServersLogout, hostapi.NameParams{Name: name})
	return r.Revoked, err
}
