package relay

import "time"

// Callers are the callers of the calls in flight on the server's
// connection: sent and not yet answered (a held call is not in flight:
// the server has not seen it). A server's request to the client
// (elicitation/create, sampling/createMessage, roots/list) carries no
// reference to the call it serves on a stdio connection, so the host
// takes the caller from here: the one app whose calls are in flight
// (app/host/inputs.go).
func (r *Relay) Callers() []Caller {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Caller
	seen := map[Caller]bool{}
	for _, p := range r.pending {
		if !seen[p.c.Caller] {
			seen[p.c.Caller] = true
			out = append(out, p.c.Caller)
		}
	}
	return out
}

// Pause stops the clock of the calls in flight while the server waits for
// an answer from a person or an app (its elicitation/create, its
// sampling/createMessage): that wait is not the server's time, so it does
// not count against their callTimeout. resume, called once the answer
// has gone to the server, moves their deadlines by the time paused. A
// call is never failed for its timeout while any pause is on; pauses
// nest.
func (r *Relay) Pause() (resume func()) {
	r.mu.Lock()
	r.paused++
	start := time.Now()
	ids := make([]uint64, 0, len(r.pending))
	for n := range r.pending {
		ids = append(ids, n)
	}
	r.mu.Unlock()
	done := false
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if done {
			return
		}
		done = true
		r.paused--
		d := time.Since(start)
		for _, n := range ids {
			if p := r.pending[n]; p != nil {
				p.deadline = p.deadline.Add(d)
			}
		}
		if r.paused == 0 && !r.closed {
			var next time.Time
			for _, p := range r.pending {
				if next.IsZero() || p.deadline.Before(next) {
					next = p.deadline
				}
			}
			if !next.IsZero() {
				r.at = time.Time{}
				r.armLocked(next)
			}
		}
	}
}
