package api

// SetClientLimit sets the message size limit of the clients dialled after
// it, so that a test need not encode 16 MiB (slow under the race detector)
// to pass it. It returns a function that restores the default.
func SetClientLimit(n int) (restore func()) {
	clientMaxMessageSize = n
	return func() { clientMaxMessageSize = DefaultMaxMessageSize }
}

var ParsePasswd = parsePasswd

// Pending returns, for each connection, how many of its messages are
// queued or being written: what a client that stopped receiving is owed by
// the server, as opposed to what is on its way.
func (s *Server) Pending() []int {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []int
	for c := range s.conns {
		c.out.mu.Lock()
		out = append(out, c.out.n)
		c.out.mu.Unlock()
	}
	return out
}
