//go:build linux

package tray

import (
	"net/url"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestSignInFromMenu: a real host with a remote server behind a real
// authorization server (the OAuth rig, dynamic registration): the tray
// shows "o: sign in needed"; the line calls servers.login and opens the
// authorization page (recorded, then followed by the scripted browser);
// the server runs and the line goes. A sign-out (servers.logout) brings
// it back in sign-in needed, with one notification.
func TestSignInFromMenu(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	rig.DCR.Store(true)
	th := runHost(t, map[string]any{"o": map[string]any{"url": rig.MCPURL, "oauth": map[string]any{}, "maxReconnects": 1000}})
	l, _ := live(t, th.Opts.SocketPath)

	var mu sync.Mutex
	var notes []*fyne.Notification
	var opened []string
	tr := &Tray{Notify: func(n *fyne.Notification) { mu.Lock(); notes = append(notes, n); mu.Unlock() }}
	var errs errorLog
	actions := HostActions(l, test.NewTempApp(t), HostOptions{Open: func() {}, OnError: errs.add,
		OpenURL: func(u *url.URL) error { mu.Lock(); opened = append(opened, u.String()); mu.Unlock(); return nil }})
	tr.Run(test.NewTempApp(t), l, actions)
	defer tr.Close()

	s := waitSnap(t, l, "o in sign-in needed", state("o", hostapi.StateSignInNeeded))
	find(t, BuildMenu(s, nil, actions), SignInLabel("o")).Action()
	var page string
	testkit.Eventually(t, "the sign-in page opened", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		if len(opened) == 1 {
			page = opened[0]
			return true, ""
		}
		return false, strings.Join(errs.take(), "; ")
	})
	if !strings.HasPrefix(page, rig.AS.AuthorizationEndpoint()) {
		t.Fatalf("opened %q, not the authorization server's page %s", page, rig.AS.AuthorizationEndpoint())
	}
	remotetest.Browse(t, page, nil)
	s = waitSnap(t, l, "o running", state("o", hostapi.StateRunning))
	for _, it := range BuildMenu(s, nil, actions).Items {
		if it.Label == SignInLabel("o") {
			t.Fatal("the sign-in line stays once signed in")
		}
	}
	mu.Lock()
	before := len(notes)
	mu.Unlock()
	if _, err := l.Logout(t.Context(), "o"); err != nil {
		t.Fatal(err)
	}
	waitSnap(t, l, "o in sign-in needed after the sign-out", state("o", hostapi.StateSignInNeeded))
	testkit.Eventually(t, "the sign-in notification", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		for _, n := range notes[before:] {
			if n.Title == `Server "o": sign in needed` {
				return true, ""
			}
		}
		return false, ""
	})
	if e := errs.take(); len(e) > 0 {
		t.Errorf("errors reported: %q", e)
	}
}
