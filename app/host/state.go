package host

import (
	"strings"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// StateFacts are everything a server's public state depends on: its
// supervisor's state, its entry, what a remote server's HTTP client saw,
// its sleep and its warm-up. (A sandbox this machine cannot enforce is
// no state of its own: the supervisor fails the server, and its status
// has the sandbox's issue.) [PublicState] maps them to the one state
// that the status API, the gateway (what an AI app is told), the no-host
// 'switchboard status', the tray and the window all show
// (docs/decisions.md, "One server state").
type StateFacts struct {
	// Supervised: a supervisor runs the entry (the host has one once the
	// entry was valid). false: the entry never was valid, or no host
	// runs ('switchboard status' without a host).
	Supervised bool
	// Sup is the supervisor's state, when Supervised.
	Sup supervisor.State

	// The entry.
	Disabled    bool // "disabled": true
	Problems    bool // it has problems (an earlier valid version may run)
	UserStopped bool // stopped by the user ('servers stop')
	OnDemand    bool // "start": "on-demand" (sleep.go)
	Remote      bool // a remote server (remote.go)
	OAuth       bool // a remote server that signs in with OAuth

	// Lists: the on-demand server has lists to serve while it sleeps
	// (its last run's, or the disk cache's).
	Lists bool
	// Preparing: its start waits for a warm-up (warm.go).
	Preparing bool
	// A remote server: why its last attempt or request failed
	// (hostapi.StateUnreachable, StateUnauthorized, StateSignInNeeded, or
	// "": the last answer was fine) and what the HTTP client saw; and
	// whether a sign-in is under way.
	Why       hostapi.State
	What      string
	SigningIn bool
}

// PublicState maps a server's facts to its public state, and the reason
// to add to its last error ("" when the supervisor's error says it all):
// what a remote server's HTTP client saw when that decided the state.
//
// The rules, first match wins:
//   - No supervisor: disabled if the entry is (its problems are listed,
//     but the user said not to run it, so it is not a failure), else
//     invalid if it has problems, else stopped (no host runs).
//   - A disabled entry whose supervisor is stopped or failed: disabled.
//   - An on-demand server stopped with lists to serve, neither disabled
//     nor stopped by the user: sleeping.
//   - A stopped server whose start waits for a warm-up: starting.
//   - A remote server: signing in while a sign-in runs; waiting for the
//     user (a sign-in only the user can do) is sign-in needed; while it
//     retries, why its last attempt failed (unreachable, unauthorized,
//     or sign-in needed when OAuth could cure a refusal); failed stays
//     failed unless a sign-in would help.
//   - Otherwise the supervisor's state, spelled as hostapi's
//     (waiting for user, which only a remote server reaches, is
//     sign-in needed).
func PublicState(f StateFacts) (hostapi.State, string) {
	if !f.Supervised {
		switch {
		case f.Disabled:
			return hostapi.StateDisabled, ""
		case f.Problems:
			return hostapi.StateInvalid, ""
		}
		return hostapi.StateStopped, ""
	}
	if f.Disabled && (f.Sup == supervisor.Stopped || f.Sup == supervisor.Failed) {
		// A server that gave up before it was disabled is disabled too:
		// the user said not to run it, so its old failure is no longer
		// one to fix (its supervisor stays Failed until it is started).
		return hostapi.StateDisabled, ""
	}
	if asleep(f.Sup, f.OnDemand, f.Disabled, f.UserStopped, f.Lists) {
		return hostapi.StateSleeping, ""
	}
	if f.Preparing && f.Sup == supervisor.Stopped && !f.Disabled && !f.UserStopped {
		return hostapi.StateStarting, "" // its start waits for the package
	}
	st := supervisorState(f.Sup)
	if !f.Remote {
		return st, ""
	}
	if f.SigningIn {
		return hostapi.StateSigningIn, ""
	}
	if f.Why == "" {
		return st, ""
	}
	cured := f.Why == hostapi.StateSignInNeeded || f.Why == hostapi.StateUnauthorized && f.OAuth
	switch st {
	case hostapi.StateSignInNeeded: // the supervisor waits for a sign-in
		return st, f.What
	case hostapi.StateRestarting, hostapi.StateStarting:
		if cured {
			return hostapi.StateSignInNeeded, f.What
		}
		return f.Why, f.What
	case hostapi.StateFailed:
		// It gave up: failed, unless a sign-in would help.
		if cured {
			return hostapi.StateSignInNeeded, f.What
		}
		return st, f.What
	}
	return st, ""
}

// Broken reports whether a server in the public state st, with these
// issues, is broken: on its way (starting, restarting) while an issue
// that needs the user (not a note, Warning) stops every attempt, as a
// command not found in the PATH the host gives servers does. Its state
// stays what [PublicState] says (the host retries: the user may install
// the command meanwhile); ServerStatus.Broken tells the front ends to say
// why at once rather than "restarting" for the retries' 25 s.
func Broken(st hostapi.State, issues []hostapi.Problem) bool {
	if st != hostapi.StateStarting && st != hostapi.StateRestarting {
		return false
	}
	for _, p := range issues {
		if !p.Warning && p.Remedy != nil {
			return true
		}
	}
	return false
}

// supervisorState is the public name of a supervisor's state. Every
// state of supervisor.States() has one (TestPublicStateCoversSupervisor).
func supervisorState(s supervisor.State) hostapi.State {
	switch s {
	case supervisor.Stopped:
		return hostapi.StateStopped
	case supervisor.Starting:
		return hostapi.StateStarting
	case supervisor.Running:
		return hostapi.StateRunning
	case supervisor.Backoff:
		return hostapi.StateRestarting
	case supervisor.WaitingSecret:
		return hostapi.StateWaiting
	case supervisor.WaitingUser:
		// Only a remote server waits for the user: for its sign-in.
		return hostapi.StateSignInNeeded
	case supervisor.Failed:
		return hostapi.StateFailed
	case supervisor.Stopping:
		return hostapi.StateStopping
	}
	return "" // a state the host does not know: the tests fail on it
}

// asleep says whether an on-demand server sleeps: neither disabled nor
// stopped by the user, stopped, and with lists to serve (sleep.go).
func asleep(sup supervisor.State, onDemand, disabled, userStopped, lists bool) bool {
	return onDemand && !disabled && !userStopped && sup == supervisor.Stopped && lists
}

// facts gathers s's facts, with ss its supervisor's status (nil when it
// has no supervisor): the caller takes one snapshot of the supervisor, so
// that the state and the rest of the status agree.
func (s *server) facts(ss *supervisor.Status) StateFacts {
	s.cacheMu.Lock()
	c, userStopped := s.cfg, s.userStopped
	f := StateFacts{Disabled: c.Disabled, Problems: len(c.Problems) > 0, UserStopped: userStopped,
		OnDemand: c.OnDemand, Remote: c.Remote != nil, OAuth: c.Remote != nil && c.Remote.OAuth != nil,
		Lists: s.slept != nil, Preparing: s.warming != "", SigningIn: s.signingIn != nil}
	w := s.remote
	s.cacheMu.Unlock()
	if ss != nil {
		f.Supervised, f.Sup = true, ss.State
	}
	if f.Remote {
		f.Why, f.What = w.get()
	}
	return f
}

// supStatus is a snapshot of s's supervisor's status; nil without one.
func (s *server) supStatus() *supervisor.Status {
	sup := s.sup
	if sup == nil {
		return nil
	}
	ss := sup.Status()
	return &ss
}

// withWhy adds the reason [PublicState] gave to a last error that does
// not say it yet (a server without a last error has nothing to explain).
func withWhy(lastErr, why string) string {
	if why == "" || lastErr == "" || strings.Contains(lastErr, why) {
		return lastErr
	}
	return why + " (" + lastErr + ")"
}

// shownError is a server's last error as the host shows it (its status,
// what the gateway tells an AI app): with the reason [PublicState] gave,
// and redacted, since both may quote the server.
func (s *server) shownError(lastErr, why string) string {
	m := s.reg
	return withWhy(m.activity.redactString(lastErr), m.activity.redactString(why))
}
