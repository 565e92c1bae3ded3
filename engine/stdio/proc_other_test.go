//go:build !linux

package stdio

// PidAlive cannot tell outside Linux: ok is false and callers skip the check.
func PidAlive(pid int) (alive, ok bool) { return false, false }

// PidExists cannot tell outside Linux; it reports false.
func PidExists(pid int) bool { return false }
