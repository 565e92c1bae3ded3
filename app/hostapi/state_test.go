package hostapi

import "testing"

// TestStatePredicates is the one truth of what each state allows and how
// it looks; the tray and the window both read it.
func TestStatePredicates(t *testing.T) {
	type want struct {
		start, stop, restart bool
		sev                  Severity
		label                string
	}
	cases := map[State]want{
		StateStopped:    {true, false, false, SeverityIdle, "stopped"},
		StateStarting:   {false, true, true, SeverityProgress, "starting"},
		StateRunning:    {false, true, true, SeverityOK, "running"},
		StateRestarting: {false, true, true, SeverityProgress, "restarting"},
		StateWaiting:    {false, true, true, SeverityWarning, "waiting for secret"},
		StateFailed:     {true, false, true, SeverityFailed, "failed"},
		StateStopping:   {false, false, false, SeverityProgress, "stopping"},
		StateDisabled:   {false, false, false, SeverityIdle, "disabled"},
		StateInvalid:    {false, false, false, SeverityFailed, "invalid entry"},
		StateSleeping:   {true, true, false, SeverityIdle, "sleeping (starts on first use)"},
		// A remote server's (docs/remote.md).
		StateUnreachable:  {false, true, true, SeverityWarning, "unreachable"},
		StateUnauthorized: {false, true, true, SeverityFailed, "unauthorized"},
		StateSigningIn:    {false, true, false, SeverityProgress, "signing in"},
		StateSignInNeeded: {true, false, false, SeverityWarning, "sign-in needed"},
	}
	if len(cases) != len(States()) {
		t.Fatalf("States() has %d states, this table %d: give the new one its row", len(States()), len(cases))
	}
	for _, s := range States() {
		w, ok := cases[s]
		if !ok {
			t.Errorf("state %q has no row in this table", s)
			continue
		}
		got := want{s.CanStart(), s.CanStop(), s.CanRestart(), s.Severity(), s.Label()}
		if got != w {
			t.Errorf("%q: got start %v stop %v restart %v severity %v label %q, want %+v", s, got.start, got.stop, got.restart, got.sev, got.label, w)
		}
	}
}
