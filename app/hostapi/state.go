package hostapi

// State is where a server is, as the host reports it. It is a string on
// the wire (ServerStatus.State): the names below are the protocol.
type State string

// The states. The first seven are the supervisor's (engine/supervisor,
// written out here so that a client does not import the engine); the
// rest are the host's. app/host's PublicState is the one mapping from a
// server's facts (its supervisor's state, its entry, sleep, warm-up, a
// remote server's sign-in and last answer) to these, and its tests
// iterate supervisor.States(): a supervisor state without a name here
// fails them.
const (
	StateStopped    State = "stopped"            // not running, and not meant to
	StateStarting   State = "starting"           // process started, handshake under way
	StateRunning    State = "running"            // the session is up
	StateRestarting State = "restarting"         // waiting before the next attempt
	StateWaiting    State = "waiting for secret" // a secret could not be read; it starts once the secret is stored
	StateFailed     State = "failed"             // gave up after too many consecutive failures
	StateStopping   State = "stopping"           // the stop ladder is running
	StateDisabled   State = "disabled"           // the entry is disabled in the config
	StateInvalid    State = "invalid"            // the entry has problems and no valid version of it runs
	// StateSleeping is an on-demand server ("start": "on-demand") that is
	// not running: its lists are served from a cache, and its first call
	// starts it (docs/sleep.md). The host's own state: the supervisor
	// calls it stopped.
	StateSleeping State = "sleeping"
	// The states of a remote server (docs/remote.md), the host's own: the
	// supervisor's state says it is retrying (restarting) or has failed;
	// these say why, from the answer of the last attempt.
	//
	// StateUnreachable: the server could not be reached (no connection,
	// a 5xx answer, a dropped stream); it is retried with the backoff of a
	// crashed local server.
	StateUnreachable State = "unreachable"
	// StateUnauthorized: the server refused the entry's credentials (401
	// or 403 to its headers): fix the secret its headers refer to.
	StateUnauthorized State = "unauthorized"
	// StateSigningIn: a sign-in (OAuth) is under way.
	StateSigningIn State = "signing in"
	// StateSignInNeeded: the server wants an OAuth sign-in and the host
	// has no usable token (none yet, or its refresh was refused):
	// 'switchboard servers login NAME'.
	StateSignInNeeded State = "sign-in needed"
	// StateRemoved is sent once in a TopicState event when an entry left
	// the config; servers.list never reports it.
	StateRemoved State = "removed"
)

// Severity is how a state looks to the user: what colour a front end
// gives it.
type Severity int

// The severities, from the calmest.
const (
	SeverityIdle     Severity = iota // not meant to run, or not now: stopped, disabled, sleeping (grey)
	SeverityOK                       // running (green)
	SeverityProgress                 // on its way: starting, restarting, stopping (amber)
	SeverityWarning                  // needs the user but has not failed: waiting for secret (amber)
	SeverityFailed                   // failed for good, or an invalid entry (red)
)

// String names the severity (logs, tests).
func (s Severity) String() string {
	switch s {
	case SeverityOK:
		return "ok"
	case SeverityProgress:
		return "progress"
	case SeverityWarning:
		return "warning"
	case SeverityFailed:
		return "failed"
	default:
		return "idle"
	}
}

// CanStart says whether starting the server can work: it is not running
// and nothing stands in the way (a disabled server is enabled first, an
// invalid entry fixed first).
// A sleeping server can: Start wakes it.
// A server that needs a sign-in can: its start tries again (a sign-in
// done elsewhere, a token refreshed).
func (s State) CanStart() bool {
	return s == StateStopped || s == StateFailed || s == StateSleeping || s == StateSignInNeeded
}

// CanStop says whether a process runs, or the supervisor will start one
// (a sleeping server's first call would: Stop makes it a server the user
// stopped, which no call wakes).
func (s State) CanStop() bool {
	switch s {
	case StateRunning, StateStarting, StateRestarting, StateWaiting, StateSleeping,
		StateUnreachable, StateUnauthorized, StateSigningIn:
		return true
	}
	return false
}

// CanRestart says whether a restart applies: the server runs or tries to,
// or it failed (a restart resets its failure count). A stopped server is
// started, not restarted; so is a sleeping one.
func (s State) CanRestart() bool {
	return s != StateSleeping && s != StateSigningIn && (s.CanStop() || s == StateFailed)
}

// Severity says how the state looks to the user (see the package doc).
func (s State) Severity() Severity {
	switch s {
	case StateRunning:
		return SeverityOK
	case StateStarting, StateRestarting, StateStopping, StateSigningIn:
		return SeverityProgress
	case StateWaiting, StateUnreachable, StateSignInNeeded:
		return SeverityWarning
	case StateFailed, StateInvalid, StateUnauthorized:
		return SeverityFailed
	}
	return SeverityIdle
}

// Label is the state for a person: its name, but "invalid entry" for an
// invalid one (the server is fine; its config entry is not), and a
// sleeping one says what wakes it.
func (s State) Label() string {
	switch s {
	case StateInvalid:
		return "invalid entry"
	case StateSleeping:
		return "sleeping (starts on first use)"
	}
	return string(s)
}

// States lists every state a server can be in (not StateRemoved), in the
// order of a server's life.
func States() []State {
	return []State{StateStopped, StateStarting, StateRunning, StateRestarting, StateWaiting,
		StateFailed, StateStopping, StateDisabled, StateInvalid, StateSleeping,
		StateUnreachable, StateUnauthorized, StateSigningIn, StateSignInNeeded}
}
