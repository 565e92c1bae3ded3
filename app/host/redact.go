package host

// Redaction of a remote server's OAuth tokens (issue 25, docs/activity.md
// "Redaction"). A keyring secret joins the host's redactor when it is
// resolved for a server (activityLog.resolver); a remote server's access
// and refresh tokens are never resolved that way (the host reads its
// sign-in record itself, oauth.go), so they join it where the host gets
// them: when a connection reads the record, at each renewal (the new
// access token, and the refresh token if it rotated) and at a sign-in. A
// server that echoes its bearer token (in a tool's result, an error, a
// log line) then shows "[secret oauth.NAME access token]" wherever the
// host shows what the server said, as for any keyring secret; tokens
// replaced by a renewal stay in the redactor (an old value a server still
// echoes is redacted too), as a changed secret's old value does.

// tokensSeen adds a remote server's current OAuth tokens to the redactor.
func (a *activityLog) tokensSeen(server, access, refresh string) {
	if access != "" {
		a.secretResolved(OAuthSecret(server)+" access token", []byte(access))
	}
	if refresh != "" {
		a.secretResolved(OAuthSecret(server)+" refresh token", []byte(refresh))
	}
}

// redactedError is an error whose text had a secret in it: the text with
// the secret redacted, the error under it for errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactError is err with every secret the host knows redacted from its
// text (err itself when it holds none).
func (a *activityLog) redactError(err error) error {
	if err == nil {
		return nil
	}
	s := err.Error()
	if r := a.redactString(s); r != s {
		return &redactedError{msg: r, err: err}
	}
	return err
}
