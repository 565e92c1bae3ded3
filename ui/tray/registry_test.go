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

// TestBuildMenuUpdates: servers added from a registry with a newer
// release to review are one disabled line, "N updates to review", with
// where they are listed; none, no line.
func TestBuildMenuUpdates(t *testing.T) {
	var r recorder
	s := connected(srv("a", "running", 2))
	s.Info.Updates = 3
	m := BuildMenu(s, nil, r.actions())
	want := []string{"1 running", "---", "3 updates to review", LabelUpdatesHint, "---", "a — running (2 tools)"}
	if got := labels(m)[:6]; !slices.Equal(got, want) {
		t.Fatalf("labels %q, want %q", got, want)
	}
	if !m.Items[2].Disabled || !m.Items[3].Disabled {
		t.Fatal("the lines are enabled")
	}
	s.Info.Updates = 1
	if got := labels(BuildMenu(s, nil, r.actions())); !slices.Contains(got, "1 update to review") {
		t.Fatalf("one update: %q", got)
	}
	if slices.Contains(labels(BuildMenu(connected(srv("a", "running", 2)), nil, r.actions())), LabelUpdatesHint) {
		t.Fatal("a line without any update")
	}
}

// TestTrayNotifiesRegistryNotices: a server's registry entry deleted
// (the host disabled it) or deprecated is a desktop notification, once,
// with the registry's message escaped; what the host held when the tray
// first saw it is the baseline, never notified; a reconnection to the
// same host notifies nothing again.
func TestTrayNotifiesRegistryNotices(t *testing.T) {
	app := test.NewTempApp(t)
	src := newFakeSource(client.Snapshot{})
	notify, took := notifications()
	var rb rebuilds
	tr := &Tray{OnRebuild: rb.hook, Notify: notify}
	var r recorder
	ended := tr.start(app, src, r.actions())
	defer func() { tr.Close(); <-ended }()
	step := func(s client.Snapshot) {
		t.Helper()
		n0, _ := rb.get()
		src.set(s)
		testkit.Eventually(t, "a rebuild", func() bool { n, _ := rb.get(); return n > n0 })
	}
	old := hostapi.RegistryNotice{ID: 1, Server: "old", Registry: "official", Status: "deprecated", Line: "old is deprecated in the registry official: x; it keeps running"}
	gone := hostapi.RegistryNotice{ID: 2, Server: "fs", Registry: "official", Status: "deleted", Disabled: true,
		Line: "fs was removed from the registry official: malware \x1b]0;x\x07; it is disabled"}
	s := connected(srv("a", "running", 1))
	s.Info.RegistryNotices = []hostapi.RegistryNotice{old}
	step(s)
	if got := took(); len(got) != 0 {
		t.Fatalf("notified at the baseline: %+v", got[0])
	}
	s = connected(srv("a", "running", 2))
	s.Info.RegistryNotices = []hostapi.RegistryNotice{old, gone}
	step(s)
	got := took()
	if len(got) != 1 || got[0].Title != `Server "fs" removed from its registry` ||
		!strings.HasPrefix(got[0].Content, "fs was removed from the registry official: malware ") || !strings.HasSuffix(got[0].Content, "; it is disabled") ||
		strings.Contains(got[0].Content, "\x1b") {
		t.Fatalf("notifications: %+v", got)
	}
	step(client.Snapshot{Err: "connection reset"})
	s = connected(srv("a", "running", 3))
	s.Info.RegistryNotices = []hostapi.RegistryNotice{old, gone}
	step(s)
	if got := took(); len(got) != 0 {
		t.Fatalf("notified again: %+v", got[0])
	}
}
