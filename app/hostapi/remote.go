package hostapi

// Sign-in of remote servers (docs/remote.md): servers.login and
// servers.logout.

// LoginResult is a sign-in under way: URL is the authorization server's
// page to open in a browser.
type LoginResult struct {
	URL string `json:"url"`
}

// LogoutResult says whether the tokens were revoked at the authorization
// server (false: it has no revocation endpoint, or it failed) before they
// were deleted.
type LogoutResult struct {
	Revoked bool `json:"revoked"`
}
