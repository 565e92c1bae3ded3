//go:build !unix

package window

import "testing"

// asNobody: no user nobody here.
func asNobody(t *testing.T, run, want string) {
	t.Helper()
	t.Skip("no other user to run as on this system")
}
