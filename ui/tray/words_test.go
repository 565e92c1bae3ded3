package tray

import (
	"fyne.io/fyne/v2"
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

// TestBrokenSaysWhyAtOnce (issue 27 §13): a server that retries although
// its command is not found (ServerStatus.Broken, with the host's install
// issue) says so from the first attempt: its menu line says broken, its
// submenu why and what to do, the header counts it as broken (not
// starting) and the icon is red.
func TestBrokenSaysWhyAtOnce(t *testing.T) {
	issue := hostapi.Problem{Server: "fetch", Key: "command", Message: `server "fetch": "uvx": executable file not found in $PATH`,
		Fact:   `"uvx" was not found in the PATH the host gives servers`,
		Remedy: &hostapi.Remedy{Kind: hostapi.RemedyInstall, Server: "fetch", Command: "uvx", Program: "uv", URL: "https://docs.astral.sh/uv/"}}
	for _, state := range []hostapi.State{hostapi.StateStarting, hostapi.StateRestarting} {
		st := hostapi.ServerStatus{Name: "fetch", State: state, Command: "uvx", Broken: true, Issues: []hostapi.Problem{issue}}
		s := connected(srv("a", hostapi.StateRunning, 2), st)
		if got, want := Summary(s), "1 running, 1 broken"; got != want {
			t.Errorf("%s: Summary = %q, want %q", state, got, want)
		}
		if got := Health(s); got != LevelFailed {
			t.Errorf("%s: Health = %v, want failed", state, got)
		}
		var r recorder
		m := BuildMenu(s, nil, r.actions())
		var line *fyne.MenuItem
		for _, it := range m.Items {
			if strings.HasPrefix(it.Label, "fetch — ") {
				line = it
			}
		}
		if want := "fetch — broken — " + string(state); line == nil || line.Label != want {
			t.Fatalf("%s: no line %q in\n%s", state, want, signature(m))
		}
		sub := labels(line.ChildMenu)
		if len(sub) < 3 || sub[0] != `"uvx" was not found in the PATH the host gives servers` ||
			!strings.HasPrefix(sub[1], "Install uv (it provides uvx), or add the folder that has uvx") || sub[2] != "---" {
			t.Errorf("%s: submenu %q: want why, then what to do", state, sub)
		}
	}
	// Not broken (an ordinary restart after a crash): no reason, counted
	// as starting, as before.
	st := hostapi.ServerStatus{Name: "fetch", State: hostapi.StateRestarting, LastError: "exit status 1"}
	s := connected(st)
	if got := Summary(s); got != "1 starting" {
		t.Errorf("a restart after a crash: Summary = %q", got)
	}
	if r := FailureReason(st); r != "" || ServerLabel(st) != "fetch — restarting" {
		t.Errorf("a restart after a crash: reason %q, label %q", r, ServerLabel(st))
	}
}
