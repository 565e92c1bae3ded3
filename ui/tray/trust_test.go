package tray

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestBuildMenuHeld: a server with tools held for review has a line
// "NAME: N tool(s) changed: review" below the header, which opens the
// review of that server; a server with none has no line, and without a
// Review action the line is there but disabled.
func TestBuildMenuHeld(t *testing.T) {
	r := &recorder{}
	a := r.actions()
	a.Review = func(n string) { r.add("review " + n) }
	s := connected(
		hostapi.ServerStatus{Name: "fs", State: hostapi.StateRunning, Tools: 3},
		hostapi.ServerStatus{Name: "web", State: hostapi.StateRunning, Tools: 1, Held: 1},
		hostapi.ServerStatus{Name: "zz", State: hostapi.StateRunning, Tools: 5, Held: 2},
	)
	m := BuildMenu(s, nil, a)
	got := labels(m)
	want := []string{Summary(s), "---", "web: 1 tool changed: review", "zz: 2 tools changed: review", "---"}
	if !slices.Equal(got[:len(want)], want) {
		t.Fatalf("menu begins %q, want %q", got, want)
	}
	it := find(t, m, "web: 1 tool changed: review")
	if it.Disabled || it.Action == nil {
		t.Fatal("the held line is disabled")
	}
	it.Action()
	if calls := r.take(); !slices.Equal(calls, []string{"review web"}) {
		t.Errorf("the held line did %v", calls)
	}
	checkQuit(t, m)

	a.Review = nil
	if it := find(t, BuildMenu(s, nil, a), "zz: 2 tools changed: review"); !it.Disabled {
		t.Error("with no Review action the line is enabled")
	}
	s.Servers[1].Held, s.Servers[2].Held = 0, 0
	if got := labels(BuildMenu(s, nil, r.actions())); slices.ContainsFunc(got, func(l string) bool { return strings.HasSuffix(l, "changed: review") }) {
		t.Errorf("a line for held tools with none held: %q", got)
	}
}
