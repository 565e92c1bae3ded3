package tray

import (
	"slices"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestBuildMenuSignIn: a server that needs a sign-in has a line "NAME:
// sign in needed" below the header, which calls SignIn; a server in
// another state has none, and without a SignIn action the line is
// disabled.
func TestBuildMenuSignIn(t *testing.T) {
	r := &recorder{}
	a := r.actions()
	a.SignIn = func(n string) { r.add("sign in " + n) }
	s := connected(
		hostapi.ServerStatus{Name: "fs", State: hostapi.StateRunning, Tools: 3},
		hostapi.ServerStatus{Name: "linear", State: hostapi.StateSignInNeeded, URL: "https://mcp.linear.app/mcp"},
		hostapi.ServerStatus{Name: "web", State: hostapi.StateUnreachable, URL: "https://web.example/mcp"},
	)
	m := BuildMenu(s, nil, a)
	got := labels(m)
	want := []string{Summary(s), "---", "linear: sign in needed", "---"}
	if !slices.Equal(got[:len(want)], want) {
		t.Fatalf("menu begins %q, want %q", got, want)
	}
	if slices.Contains(got, "web: sign in needed") || slices.Contains(got, "fs: sign in needed") {
		t.Errorf("a sign-in line for a server that does not need one: %q", got)
	}
	it := find(t, m, "linear: sign in needed")
	if it.Disabled || it.Action == nil {
		t.Fatal("the sign-in line is disabled")
	}
	it.Action()
	if calls := r.take(); !slices.Equal(calls, []string{"sign in linear"}) {
		t.Errorf("the sign-in line did %v", calls)
	}
	checkQuit(t, m)
	a.SignIn = nil
	if it := find(t, BuildMenu(s, nil, a), "linear: sign in needed"); !it.Disabled {
		t.Error("with no SignIn action the line is enabled")
	}
}

// TestTrayNotifiesSignIn: a notification when a server comes to need a
// sign-in, once per transition; none at the baseline.
func TestTrayNotifiesSignIn(t *testing.T) {
	src := newFakeSource(client.Snapshot{})
	notify, took := notifications()
	var rb rebuilds
	tr := &Tray{OnRebuild: rb.hook, Notify: notify}
	var r recorder
	ended := tr.start(test.NewTempApp(t), src, r.actions())
	defer func() { tr.Close(); <-ended }()
	step := func(s client.Snapshot) {
		t.Helper()
		n0, _ := rb.get()
		src.set(s)
		testkit.Eventually(t, "a rebuild", func() bool { n, _ := rb.get(); return n > n0 })
	}
	need := func(name string) hostapi.ServerStatus { return srv(name, hostapi.StateSignInNeeded, 0) }
	step(connected(need("old"), srv("gh", "starting", 0)))
	if got := took(); len(got) != 0 {
		t.Fatalf("notified at the baseline: %+v", got[0])
	}
	step(connected(need("old"), need("gh")))
	got := took()
	if len(got) != 1 || got[0].Title != `Server "gh": sign in needed` || !strings.Contains(got[0].Content, `"gh: sign in needed"`) {
		t.Fatalf("notifications: %+v", got)
	}
	// Still needed (another change), then disconnected and back: nothing new.
	step(connected(need("old"), need("gh"), srv("b", "running", 1)))
	step(client.Snapshot{Err: "connection reset"})
	step(connected(need("old"), need("gh"), srv("b", "running", 2)))
	if got := took(); len(got) != 0 {
		t.Fatalf("notified again: %+v", got[0])
	}
	// Signed in, then the renewal refused: notified again.
	step(connected(need("old"), srv("gh", "running", 1), srv("b", "running", 2)))
	step(connected(need("old"), need("gh"), srv("b", "running", 2)))
	if got := took(); len(got) != 1 {
		t.Fatalf("after a refused renewal: %d notifications", len(got))
	}
}
