package window

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
)

// TestRemoteAddAndSignIn: against a real host and the OAuth rig (a go-sdk
// MCP server behind a real authorization server, dynamic registration):
// the remote form saves the entry through the host; the server's page
// shows its address and Sign in; Sign in opens the authorization page
// (recorded, then followed by the scripted browser); the server runs, and
// offers Sign out, which brings it back to sign-in needed.
func TestRemoteAddAndSignIn(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	rig.DCR.Store(true)
	h := start(t, nil)
	app := &urlApp{App: h.w.app}
	h.w.app = app

	r := h.w.openAddRemote()
	r.name.SetText("o")
	r.url.SetText(rig.MCPURL)
	r.oauth.SetChecked(true)
	test.Tap(r.save)
	h.until("the entry saved", func() bool { return strings.HasPrefix(h.w.statusLine.Text, "Saved o") })
	if e := h.entry("o"); e["url"] != rig.MCPURL || e["oauth"] == nil || e["command"] != nil {
		t.Fatalf("the entry the host has: %v", e)
	}

	d := h.state("o", hostapi.StateSignInNeeded)
	ov := d.ov
	h.until("Sign in", func() bool { return ov.signIn.Visible() })
	if ov.commandHead.Text != "Address" || !strings.HasPrefix(ov.command.Text, rig.MCPURL) || !strings.Contains(ov.state.Text, "sign in to use it") {
		t.Errorf("the overview shows %q %q, state %q", ov.commandHead.Text, ov.command.Text, ov.state.Text)
	}
	test.Tap(ov.signIn)
	h.until("the sign-in page opened", func() bool { return len(app.opened) == 1 })
	if !strings.HasPrefix(app.opened[0], rig.AS.AuthorizationEndpoint()) {
		t.Fatalf("opened %q, not the authorization server's page", app.opened[0])
	}
	remotetest.Browse(t, app.opened[0], nil)
	h.state("o", hostapi.StateRunning)
	h.until("Sign out, and no Sign in", func() bool { return ov.signOut.Visible() && !ov.signIn.Visible() })
	test.Tap(ov.signOut)
	h.state("o", hostapi.StateSignInNeeded)
	h.until("Sign in again", func() bool { return ov.signIn.Visible() && !ov.signOut.Visible() })
}

// TestSignInWords: a remote server that needs a sign-in, against a real
// host and the OAuth rig: its primary control is Sign in (not Start),
// which does what servers.login does; what the window says of it has no
// command line words ("run 'switchboard servers login'"), in the warning
// colour, not red; while the user signs in, nothing says it is wrong (the
// state says "waiting for you to sign in"), and it runs once signed in
// (issue 27 §7).
func TestSignInWords(t *testing.T) {
	rig := remotetest.NewOAuthRig(t)
	rig.DCR.Store(true)
	h := start(t, map[string]any{"o": map[string]any{"url": rig.MCPURL, "oauth": map[string]any{}}})
	app := &urlApp{App: h.w.app}
	h.w.app = app

	d := h.state("o", hostapi.StateSignInNeeded)
	ov := d.ov
	h.until("the header's Sign in", func() bool { return d.primary.Text == "Sign in" && !d.primary.Disabled() })
	h.until("what is wrong", func() bool { return ov.problem.Visible() && ov.problem.Text != "" })
	for _, l := range []*widget.Label{ov.problem, ov.state} {
		if strings.Contains(l.Text, "switchboard") || strings.Contains(l.Text, "servers login") {
			t.Errorf("the overview says %q: command line words", l.Text)
		}
	}
	if ov.problem.Importance == widget.DangerImportance || !strings.Contains(ov.problem.Text, "Sign in") {
		t.Errorf("what is wrong: %q (importance %v)", ov.problem.Text, ov.problem.Importance)
	}
	if ov.fix.Visible() {
		t.Errorf("a second sign-in button in the overview: %q", ov.fix.Text)
	}

	for _, size := range []fyne.Size{{Width: 1120, Height: 720}, {Width: 800, Height: 600}} {
		shoot(t, h.w, "sign-in-needed", size, func() {})
	}
	test.Tap(d.primary)
	h.until("the sign-in page opened", func() bool { return len(app.opened) == 1 })
	if !strings.HasPrefix(app.opened[0], rig.AS.AuthorizationEndpoint()) {
		t.Fatalf("opened %q, not the authorization server's page", app.opened[0])
	}
	h.until("signing in", func() bool { return d.state.Text == hostapi.StateSigningIn.Label() })
	if !strings.Contains(ov.state.Text, "waiting for you to sign in") || ov.problem.Visible() || ov.problemHead.Visible() {
		t.Errorf("while signing in: state %q, what is wrong %q (shown %v)", ov.state.Text, ov.problem.Text, ov.problem.Visible())
	}
	remotetest.Browse(t, app.opened[0], nil)
	h.state("o", hostapi.StateRunning)
	h.until("Stop", func() bool { return d.primary.Text == "Stop" })

}
