//go:build !linux

package secrets

// secretServiceGet: only Linux has a byte path; elsewhere go-keyring's
// string is all there is (ok false).
func secretServiceGet(service, user string) (v []byte, ok bool, err error) { return nil, false, nil }
