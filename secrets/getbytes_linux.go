package secrets

import (
	"errors"

	"github.com/zalando/go-keyring"
	ss "github.com/zalando/go-keyring/secret_service"
)

// secretServiceGet is go-keyring's Get on the Secret Service
// (keyring_unix.go, v0.2.8) step for step, minus its last line,
// string(secret.Value): the value stays in the []byte D-Bus decoded it
// into, which the caller can zero. ok is always true here (only other platforms have no such path).
func secretServiceGet(service, user string) (v []byte, ok bool, err error) {
	keyringMu.Lock()
	defer keyringMu.Unlock()
	svc, err := ss.NewSecretService()
	if err != nil {
		return nil, true, err
	}
	collection := svc.GetLoginCollection()
	if err := svc.Unlock(collection.Path()); err != nil {
		return nil, true, err
	}
	results, err := svc.SearchItems(collection, map[string]string{"username": user, "service": service})
	if err != nil {
		return nil, true, err
	}
	if len(results) == 0 {
		return nil, true, keyring.ErrNotFound
	}
	item := results[0]
	session, err := svc.OpenSession()
	if err != nil {
		return nil, true, err
	}
	defer svc.Close(session)
	if err := svc.Unlock(item); err != nil {
		return nil, true, err
	}
	// ss.GetSecret would Store the reply into an ss.Secret, which copies
	// the value into a second slice and leaves the decoded one to the
	// garbage collector: take the decoded one itself.
	call := svc.Object(ssService, item).Call(ssItemGetSecret, 0, session.Path())
	if call.Err != nil {
		return nil, true, call.Err
	}
	if len(call.Body) == 1 {
		if st, ok := call.Body[0].([]any); ok && len(st) == 4 { // (oayays): session, parameters, value, content type
			if v, ok := st[2].([]byte); ok {
				return v, true, nil
			}
		}
	}
	return nil, true, errors.New("the Secret Service answered GetSecret with a reply of an unexpected shape")
}

const (
	ssService       = "org.freedesktop.secrets"
	ssItemGetSecret = "org.freedesktop.Secret.Item.GetSecret"
)
