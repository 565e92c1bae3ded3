package window

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/configedit"
)

// pendingSecret is a secret value typed in a form: it goes to the keyring
// (secrets.set, through the host) and the entry refers to it as
// ${keyring:Name}.
type pendingSecret struct {
	Var   string // the env variable that refers to it
	Name  string // the keyring name
	Value string
}

// secretError is the failure to store the secret of an env variable.
type secretError struct {
	Var, Name string
	Err       error
}

func (e *secretError) Error() string {
	return fmt.Sprintf("storing the value of %s in the keyring as %q: %v", e.Var, e.Name, e.Err)
}

func (e *secretError) Unwrap() error { return e.Err }

// checkEntry checks an entry as the host checks it before saving
// (configedit.PutServer: the name first, then config.ParseServer's problems), so
// that each problem shows next to its field, in the host's and the
// command line's words, before anything is sent. nameMsg is the problem of
// the name.
func checkEntry(name string, entry []byte) (nameMsg string, ps []config.Problem) {
	vname := name
	if !config.ValidServerName(name) {
		// PutServer checks the name before anything else: its message is
		// the one the command line prints.
		nameMsg = configedit.PutServer(config.New(), name, entry, true).Error()
		vname = "server" // check the rest under a valid name
	}
	s, err := config.ParseServer(vname, entry)
	if err != nil {
		return nameMsg, []config.Problem{{Server: vname, Message: err.Error()}}
	}
	return nameMsg, s.Problems()
}

// fieldOf returns the top-level key of a problem's key: "env" for
// "env.TOKEN", "args" for "args[2]".
func fieldOf(key string) string {
	k, _, _ := strings.Cut(key, ".")
	k, _, _ = strings.Cut(k, "[")
	return k
}

// saveEntry stores the typed secrets in the keyring through the host, then
// adds (create) or replaces the entry with servers.put. done gets the
// first error on the UI goroutine: a *secretError, or the host's error,
// whose message is a full sentence.
func (w *Window) saveEntry(name string, entry json.RawMessage, create bool, secrets []pendingSecret, done func(error)) {
	go func() {
		ctx, cancel := context.WithTimeout(w.ctx, callTimeout)
		defer cancel()
		err := w.putEntry(ctx, name, entry, create, secrets)
		w.opts.Do(func() {
			if w.ctx.Err() == nil {
				done(err)
			}
		})
	}()
}

func (w *Window) putEntry(ctx context.Context, name string, entry json.RawMessage, create bool, secrets []pendingSecret) error {
	for _, s := range secrets {
		if _, err := w.live.SetSecret(ctx, s.Name, s.Value); err != nil {
			return &secretError{Var: s.Var, Name: s.Name, Err: err}
		}
	}
	return w.live.PutServer(ctx, name, entry, create)
}

// isSecretError reports whether err is the failure to store a secret, and
// for which variable.
func isSecretError(err error) (string, bool) {
	var se *secretError
	if errors.As(err, &se) {
		return se.Var, true
	}
	return "", false
}

// marshal encodes a value for an entry; the values here always encode.
func marshal(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
