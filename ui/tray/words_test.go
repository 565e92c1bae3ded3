package tray

import (
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestReasonSkipsTheStrictNote: a failed server whose only issue is the
// strict note (a warning: strict gives it none of its folders) is shown
// with why it failed, not with the note.
func TestReasonSkipsTheStrictNote(t *testing.T) {
	st := hostapi.ServerStatus{Name: "fs", State: hostapi.StateFailed, LastError: "exit status 1: cannot open /srv/data",
		Issues: []hostapi.Problem{{Server: "fs", Key: "sandbox", Warning: true, Message: `strict gives the server none of its folders: "files" does`}}}
	if got := reasonOf(st); strings.Contains(strings.ToLower(got), "strict") || !strings.Contains(got, "cannot open") {
		t.Errorf("reason = %q: the note, not why it failed", got)
	}
}

// TestSummaryCountsEveryState: each of the host's states is counted in
// exactly one of the summary's groups, whose states look alike (the
// same severity): a new state cannot go uncounted.
func TestSummaryCountsEveryState(t *testing.T) {
	for _, s := range hostapi.States() {
		in := 0
		for _, g := range tallies {
			for _, gs := range g.states {
				if gs == s {
					in++
				}
			}
		}
		if in != 1 {
			t.Errorf("the state %q is in %d of the summary's groups, want 1", s, in)
		}
	}
	for _, g := range tallies {
		for _, s := range g.states {
			if s.Severity() != g.states[0].Severity() {
				t.Errorf("the group %q counts %q (%v) with %q (%v)", g.one, s, s.Severity(), g.states[0], g.states[0].Severity())
			}
		}
	}
}

// TestSummarySignIn: a remote server that waits for a sign-in is counted
// as needing a sign-in, one that cannot be reached as unreachable: not
// as needing a secret, which only a server waiting for a secret does.
func TestSummarySignIn(t *testing.T) {
	s := connected(srv("linear", hostapi.StateSignInNeeded, 0), srv("far", hostapi.StateUnreachable, 0),
		srv("vault", hostapi.StateWaiting, 0), srv("gh", hostapi.StateSignInNeeded, 0))
	if got, want := Summary(s), "1 needs a secret, 2 need a sign-in, 1 unreachable"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}
