package hostapi

// Sign-in of remote servers (docs/remote.md).
const (
	// MethodLogin starts the OAuth sign-in of a remote server:
	// NameParams (Name) -> LoginResult. The host listens on a loopback
	// port for the browser's return; the server's state is "signing in"
	// until it comes back (or 10 minutes pass), then running, or "sign-in
	// needed" with LastError saying why.
	MethodLogin = "servers.login"
	// MethodLogout deletes a remote server's tokens from the keyring,
	// revoking them where the authorization server can: NameParams (Name)
	// -> LogoutResult.
	MethodLogout = "servers.logout"
)

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
