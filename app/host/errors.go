package host

import (
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// The host's errors for a user's reason are *hostapi.Error: a code and the
// problems with their keys and remedies, which the API sends as data
// (app/api.CodedError). Their messages are the sentences the command line
// printed before they were data.

// problemOf turns a config problem into the API's.
func problemOf(p config.Problem) hostapi.Problem {
	hp := hostapi.Problem{Server: p.Server, Key: p.Key, Message: p.Msg}
	if p.Remedy != nil {
		hp.Fact = p.Fact
		hp.Remedy = &hostapi.Remedy{Kind: p.Remedy.Kind, Server: p.Server, From: p.Remedy.From, To: p.Remedy.To}
	}
	return hp
}

func problemsOf(ps []config.Problem) []hostapi.Problem {
	out := make([]hostapi.Problem, len(ps))
	for i, p := range ps {
		out[i] = problemOf(p)
	}
	return out
}

// notInConfig is the error for a name the config does not have.
func notInConfig(name string) error {
	return &hostapi.Error{Code: hostapi.CodeNotFound,
		Message: fmt.Sprintf("server %q is not in the config; 'switchboard status' lists the servers", name)}
}

// invalidName is the error for a name that cannot name a server.
func invalidName(name string) error {
	msg := fmt.Sprintf("server name %q is invalid: use 1 to 31 lower-case letters, digits and '-', starting with a letter or digit (for example %q)",
		name, config.NormalizeName(name))
	return &hostapi.Error{Code: hostapi.CodeInvalidName, Message: msg,
		Problems: []hostapi.Problem{{Server: name, Key: hostapi.KeyName, Message: msg}}}
}

// notSaved is the refusal of an entry with problems.
func notSaved(name string, ps []config.Problem) error {
	msgs := make([]string, len(ps))
	for i, p := range ps {
		msgs[i] = p.Error()
	}
	return &hostapi.Error{Code: hostapi.CodeInvalidConfig,
		Message:  fmt.Sprintf("server %q was not saved: %s", name, strings.Join(msgs, "; ")),
		Problems: problemsOf(ps)}
}

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
	switch {
	case errors.Is(se.Err, secrets.ErrLocked):
		return &hostapi.Error{Code: hostapi.CodeKeyringLocked, Message: msg, Problems: []hostapi.Problem{{
			Server: server, Key: "env." + se.Var, Message: msg,
			Remedy: &hostapi.Remedy{Kind: hostapi.RemedyUnlockKeyring, Secret: se.Secret, Text: "unlock the keyring, then start the server again"}}}}
	case errors.Is(se.Err, secrets.ErrNoProvider):
		return &hostapi.Error{Code: hostapi.CodeNoKeyring, Message: msg, Problems: []hostapi.Problem{{Server: server, Key: "env." + se.Var, Message: msg}}}
	}
	return &hostapi.Error{Code: hostapi.CodeSecretMissing, Message: msg, Problems: []hostapi.Problem{{
		Server: server, Key: "env." + se.Var, Message: msg,
		Fact:   fmt.Sprintf("server %q waits for secret %q (env.%s), which could not be read", server, se.Secret, se.Var),
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
