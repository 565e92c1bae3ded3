package api

// SetClientLimit sets the message size limit of the clients dialled after
// it, so that a test need not encode 16 MiB (slow under the race detector)
// to pass it. It returns a function that restores the default.
func SetClientLimit(n int) (restore func()) {
	clientMaxMessageSize = n
	return func() { clientMaxMessageSize = DefaultMaxMessageSize }
}

var ParsePasswd = parsePasswd
