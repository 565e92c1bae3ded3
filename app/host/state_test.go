package host

import (
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// TestPublicStateCoversSupervisor: every state the supervisor reports
// (supervisor.States(), so a new one cannot be missed) has a public
// name, and every combination of a server's facts maps to one of
// hostapi's states: never "", never a raw supervisor word such as
// "waiting for user".
func TestPublicStateCoversSupervisor(t *testing.T) {
	known := hostapi.States()
	for _, s := range supervisor.States() {
		if p := supervisorState(s); !slices.Contains(known, p) {
			t.Errorf("the supervisor's state %q maps to %q, not one of hostapi.States(): map it in supervisorState", s, p)
		}
	}
	whys := []hostapi.State{"", hostapi.StateUnreachable, hostapi.StateUnauthorized, hostapi.StateSignInNeeded}
	n := 0
	for _, s := range append([]supervisor.State{""}, supervisor.States()...) {
		for bits := range 1 << 9 {
			for _, why := range whys {
				f := StateFacts{Supervised: s != "", Sup: s,
					Disabled: bits&1 != 0, Problems: bits&2 != 0, UserStopped: bits&4 != 0, OnDemand: bits&8 != 0,
					Lists: bits&16 != 0, Preparing: bits&32 != 0, Remote: bits&64 != 0, OAuth: bits&128 != 0,
					SigningIn: bits&256 != 0, Why: why, What: "why"}
				got, _ := PublicState(f)
				n++
				if !slices.Contains(known, got) {
					t.Fatalf("PublicState(%+v) = %q, not one of hostapi.States()", f, got)
				}
				if f.Disabled && (!f.Supervised || s == supervisor.Stopped || s == supervisor.Failed) && got != hostapi.StateDisabled {
					t.Fatalf("PublicState(%+v) = %q: a disabled entry that does not run is disabled", f, got)
				}
			}
		}
	}
	t.Logf("%d combinations", n)
}

// TestPublicState: the rules, one row each (docs/decisions.md, "One
// server state").
func TestPublicState(t *testing.T) {
	sup := func(s supervisor.State) StateFacts { return StateFacts{Supervised: true, Sup: s} }
	with := func(f StateFacts, edit func(*StateFacts)) StateFacts { edit(&f); return f }
	remote := func(s supervisor.State, why hostapi.State) StateFacts {
		return StateFacts{Supervised: true, Sup: s, Remote: true, Why: why, What: "what it saw"}
	}
	for _, c := range []struct {
		name string
		f    StateFacts
		want hostapi.State
		why  string
	}{
		{"no host", StateFacts{}, hostapi.StateStopped, ""},
		{"no host, disabled", StateFacts{Disabled: true}, hostapi.StateDisabled, ""},
		{"never valid", StateFacts{Problems: true}, hostapi.StateInvalid, ""},
		{"never valid, disabled", StateFacts{Problems: true, Disabled: true}, hostapi.StateDisabled, ""},
		{"invalid, its predecessor runs", with(sup(supervisor.Running), func(f *StateFacts) { f.Problems = true }), hostapi.StateRunning, ""},
		{"invalid, disabled, its predecessor stopped", with(sup(supervisor.Stopped), func(f *StateFacts) { f.Problems, f.Disabled = true, true }), hostapi.StateDisabled, ""},
		{"disabled, stopping", with(sup(supervisor.Stopping), func(f *StateFacts) { f.Disabled = true }), hostapi.StateStopping, ""},
		{"failed, then disabled", with(sup(supervisor.Failed), func(f *StateFacts) { f.Disabled = true }), hostapi.StateDisabled, ""},
		{"failed", sup(supervisor.Failed), hostapi.StateFailed, ""},
		{"waiting for secret", sup(supervisor.WaitingSecret), hostapi.StateWaiting, ""},
		{"backoff", sup(supervisor.Backoff), hostapi.StateRestarting, ""},
		{"waiting for user", sup(supervisor.WaitingUser), hostapi.StateSignInNeeded, ""},
		{"asleep", with(sup(supervisor.Stopped), func(f *StateFacts) { f.OnDemand, f.Lists = true, true }), hostapi.StateSleeping, ""},
		{"on demand, no lists yet", with(sup(supervisor.Stopped), func(f *StateFacts) { f.OnDemand = true }), hostapi.StateStopped, ""},
		{"on demand, stopped by the user", with(sup(supervisor.Stopped), func(f *StateFacts) { f.OnDemand, f.Lists, f.UserStopped = true, true, true }), hostapi.StateStopped, ""},
		{"on demand, disabled", with(sup(supervisor.Stopped), func(f *StateFacts) { f.OnDemand, f.Lists, f.Disabled = true, true, true }), hostapi.StateDisabled, ""},
		{"warming up", with(sup(supervisor.Stopped), func(f *StateFacts) { f.Preparing = true }), hostapi.StateStarting, ""},
		{"warming up, stopped by the user", with(sup(supervisor.Stopped), func(f *StateFacts) { f.Preparing, f.UserStopped = true, true }), hostapi.StateStopped, ""},
		{"warming up while it runs", with(sup(supervisor.Running), func(f *StateFacts) { f.Preparing = true }), hostapi.StateRunning, ""},
		{"remote, running", remote(supervisor.Running, ""), hostapi.StateRunning, ""},
		{"remote, waiting for the user", remote(supervisor.WaitingUser, hostapi.StateSignInNeeded), hostapi.StateSignInNeeded, "what it saw"},
		{"remote, waiting for the user, no answer kept", remote(supervisor.WaitingUser, ""), hostapi.StateSignInNeeded, ""},
		{"remote, retrying, unreachable", remote(supervisor.Backoff, hostapi.StateUnreachable), hostapi.StateUnreachable, "what it saw"},
		{"remote, starting, unauthorized", remote(supervisor.Starting, hostapi.StateUnauthorized), hostapi.StateUnauthorized, "what it saw"},
		{"remote, retrying, unauthorized, OAuth", with(remote(supervisor.Backoff, hostapi.StateUnauthorized), func(f *StateFacts) { f.OAuth = true }), hostapi.StateSignInNeeded, "what it saw"},
		{"remote, failed, unreachable", remote(supervisor.Failed, hostapi.StateUnreachable), hostapi.StateFailed, "what it saw"},
		{"remote, failed, sign-in would help", remote(supervisor.Failed, hostapi.StateSignInNeeded), hostapi.StateSignInNeeded, "what it saw"},
		{"remote, running again, an old answer", remote(supervisor.Running, hostapi.StateUnreachable), hostapi.StateRunning, ""},
		{"remote, signing in", with(remote(supervisor.WaitingUser, hostapi.StateSignInNeeded), func(f *StateFacts) { f.SigningIn = true }), hostapi.StateSigningIn, ""},
		{"remote, disabled, failed", with(remote(supervisor.Failed, hostapi.StateUnreachable), func(f *StateFacts) { f.Disabled = true }), hostapi.StateDisabled, ""},
	} {
		got, why := PublicState(c.f)
		if got != c.want || why != c.why {
			t.Errorf("%s: PublicState(%+v) = %q, %q; want %q, %q", c.name, c.f, got, why, c.want, c.why)
		}
	}
}

func TestWithWhy(t *testing.T) {
	for _, c := range []struct{ last, why, want string }{
		{"", "", ""},
		{"boom", "", "boom"},
		{"", "refused", ""},
		{"boom", "refused", "refused (boom)"},
		{"it refused twice", "refused", "it refused twice"},
	} {
		if got := withWhy(c.last, c.why); got != c.want {
			t.Errorf("withWhy(%q, %q) = %q, want %q", c.last, c.why, got, c.want)
		}
	}
}

// TestBroken: a server on its way whose issue needs the user (its command
// not found) is broken; a note, another state or no issue is not.
func TestBroken(t *testing.T) {
	install := hostapi.Problem{Key: "command", Remedy: &hostapi.Remedy{Kind: hostapi.RemedyInstall, Command: "uvx"}}
	note := hostapi.Problem{Key: "sandbox", Warning: true, Message: "strict gives it none of its folders"}
	for _, c := range []struct {
		state  hostapi.State
		issues []hostapi.Problem
		want   bool
	}{
		{hostapi.StateRestarting, []hostapi.Problem{install}, true},
		{hostapi.StateStarting, []hostapi.Problem{note, install}, true},
		{hostapi.StateRestarting, nil, false},                     // a crash: its retry may work
		{hostapi.StateRestarting, []hostapi.Problem{note}, false}, // a note stops nothing
		{hostapi.StateFailed, []hostapi.Problem{install}, false},  // failed says it already
		{hostapi.StateRunning, []hostapi.Problem{install}, false}, // found since
	} {
		if got := Broken(c.state, c.issues); got != c.want {
			t.Errorf("Broken(%s, %v) = %v, want %v", c.state, c.issues, got, c.want)
		}
	}
}
