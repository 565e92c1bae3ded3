package client

import (
	"context"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Login starts the OAuth sign-in of a remote server (servers.login) and
// returns the page to open in a browser; the server's state follows the
// sign-in ("signing in", then running or "sign-in needed").
func (m Methods) Login(ctx context.Context, name string) (string, error) {
	var res hostapi.LoginResult
	err := m.call(ctx, hostapi.MethodLogin, hostapi.NameParams{Name: name}, &res)
	return res.URL, err
}

// Logout deletes a remote server's tokens (servers.logout); revoked says
// whether the authorization server revoked them first.
func (m Methods) Logout(ctx context.Context, name string) (revoked bool, err error) {
	var res hostapi.LogoutResult
	err = m.call(ctx, hostapi.MethodLogout, hostapi.NameParams{Name: name}, &res)
	return res.Revoked, err
}
