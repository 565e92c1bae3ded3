package host

import (
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// The host's errors for a user's reason are *hostapi.Error: a code and the
// problems with their keys and remedies, which the API sends as data
// (app/api.CodedError). Their messages are the sentences the command line
// printed before they were data.

// secretError classifies a keyring's failure (secrets.set, secrets.delete,
// a server waiting for a secret).
func secretError(name string, err error) error {
	p := hostapi.Problem{Key: "", Message: err.Error()}
	code := ""
	switch secrets.KindOf(err) {
	case secrets.Locked:
		code = hostapi.CodeKeyringLocked
		p.Remedy = &hostapi.Remedy{Kind: hostapi.RemedyUnlockKeyring, Secret: name, Text: err.Error()}
	case secrets.NoProvider:
		code = hostapi.CodeNoKeyring
	case secrets.NotFound:
		code = hostapi.CodeNotFound
	case secrets.Invalid, secrets.TooBig:
		code = hostapi.CodeBadRequest
	default:
		return err
	}
	return &hostapi.Error{Code: code, Message: err.Error(), Problems: []hostapi.Problem{p}, Err: err}
}

// waitingError is the error of a server that waits for a secret: which
// one, and what to do.
func waitingError(server string, se *engine.SecretError, msg string) *hostapi.Error {
	key := "env." + se.Var
	if remoteSecretKey(se.Var) {
		key = se.Var // a remote entry's header or oauth client secret (remote.go)
	}
	switch {
	case errors.Is(se.Err, secrets.ErrLocked):
		return &hostapi.Error{Code: hostapi.CodeKeyringLocked, Message: msg, Problems: []hostapi.Problem{{
			Server: server, Key: key, Message: msg,
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyUnlockKeyring, Secret: se.Secret, Text: "unlock the keyring, then start the server again"}}}}
	case errors.Is(se.Err, secrets.ErrNoProvider):
		return &hostapi.Error{Code: hostapi.CodeNoKeyring, Message: msg, Problems: []hostapi.Problem{{Server: server, Key: key, Message: msg}}}
	}
	return &hostapi.Error{Code: hostapi.CodeSecretMissing, Message: msg, Problems: []hostapi.Problem{{
		Server: server, Key: key, Message: msg,
		Fact:   fmt.Sprintf("server %q waits for secret %q (%s), which could not be read", server, se.Secret, key),
		Remedy: &hostapi.Remedy{Kind: hostapi.RemedySetSecret, Secret: se.Secret, Server: server}}}}
}

// joinErrors joins the errors of an operation on every server: one stays
// as it is; several *hostapi.Error become one with every problem (the
// first one's code); anything else is joined as text.
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	out := &hostapi.Error{}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
		var he *hostapi.Error
		if !errors.As(err, &he) {
			return errors.Join(errs...)
		}
		if out.Code == "" {
			out.Code = he.Code
		}
		ps := he.Problems
		if len(ps) == 0 {
			ps = []hostapi.Problem{{Message: he.Message}}
		}
		out.Problems = append(out.Problems, ps...)
	}
	out.Message = strings.Join(msgs, "\n") // as errors.Join words it
	return out
}
