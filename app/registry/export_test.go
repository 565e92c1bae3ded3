package registry

// BuiltIn returns the built-in snapshot, for the tests (an error only if
// the program was built with a broken one).
func BuiltIn() (*Snapshot, error) { return snapshot() }
