//go:build unix && !linux

package inherited

// MarkAll marks every descriptor above 2 close-on-exec, remembering
// nothing: for a program that only execs or starts others (the small
// bridge).
func MarkAll() error {
	_, err := seal()
	return err
}
