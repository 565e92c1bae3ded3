//go:build linux && cgo && !ci

package journey

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/remotetest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/ui/tray"
)

// The journeys of issue 27 (what a new user found): the tray's Quit (§1),
// a rename in Settings (§3), a sign-in in the window (§7).

// filesystemEntry is an entry that runs the installed
// @modelcontextprotocol/server-filesystem on a folder of its own.
func filesystemEntry(t *testing.T) map[string]any {
	t.Helper()
	bin := testkit.NpmServer(t, "mcp-server-filesystem")
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{"command": bin, "args": []string{dir}}
}

// TestJourneyQuitLeavesHost (issue 27 §1): a person runs 'switchboard
// serve' themselves (here: a host in this process, which the tray did not
// start), opens the tray and the window, and quits from the tray: the
// item says Quit (not "Quit and stop all servers"), asks nothing, and the
// host goes on running its server, the same process.
func TestJourneyQuitLeavesHost(t *testing.T) {
	need(t)
	h := startHost(t, map[string]any{"files": filesystemEntry(t)}, "SHELL", "/bin/false")
	st := h.waitState("files", hostapi.StateRunning)
	s := openWindow(t, h)
	s.click("files in the list", s.serverRow("files"))
	s.serverState("files", hostapi.StateRunning.Label())

	quit := make(chan struct{})
	var asked sync.Mutex
	var questions []string
	r := &trayRun{}
	tr := &tray.Tray{Host: r, Notify: func(*fyne.Notification) {}}
	tr.Run(theApp, h.live, tray.HostActions(h.live, theApp, tray.HostOptions{
		Open: func() {},
		Confirm: func(q string, _ func(bool)) {
			asked.Lock()
			defer asked.Unlock()
			questions = append(questions, q)
		},
		Quit: func() { close(quit) }, // the app would quit here; the journeys' driver runs on
	}))
	t.Cleanup(tr.Close)
	var item *fyne.MenuItem
	testkit.Eventually(t, "the tray's last item", func() (bool, string) {
		m := r.shown()
		if m == nil || len(m.Items) == 0 {
			return false, "no menu"
		}
		item = m.Items[len(m.Items)-1]
		return item.Label == tray.LabelQuit, fmt.Sprintf("%q", menuLabels(m))
	})
	onUI(item.Action)
	testkit.Eventually(t, "the tray quits", func() bool {
		select {
		case <-quit:
			return true
		default:
			return false
		}
	})
	asked.Lock()
	if len(questions) > 0 {
		t.Errorf("Quit asked %q", questions)
	}
	asked.Unlock()
	// The host serves on: its server runs, the same process; the window
	// (a client like any other) still shows it running.
	if now := h.waitState("files", hostapi.StateRunning); now.PID != st.PID {
		t.Errorf("after Quit the server runs as pid %d, before as %d", now.PID, st.PID)
	}
	s.serverState("files", hostapi.StateRunning.Label())
}

// TestJourneyRenameKeepsSelection (issue 27 §3): a person renames the
// second server of the list in its Settings tab and saves; the window
// stays on it under its new name, at its Settings tab, where the next
// edit lands on it (it jumped to the first server).
func TestJourneyRenameKeepsSelection(t *testing.T) {
	need(t)
	h := startHost(t, map[string]any{"alpha": filesystemEntry(t), "mid": filesystemEntry(t)}, "SHELL", "/bin/false")
	h.waitState("alpha", hostapi.StateRunning)
	h.waitState("mid", hostapi.StateRunning)
	s := openWindow(t, h)

	s.click("mid in the list", s.serverRow("mid"))
	s.click("the Settings tab of mid", s.serverTab("mid", "Settings"))
	name := s.settingsField("Name")
	if got := text(name); got != "mid" {
		t.Fatalf("the Settings' name: %q", got)
	}
	s.click("the name", name)
	s.key("ctrl+a")
	s.typeText("zed")
	testkit.Eventually(t, "the new name in the field", func() (bool, string) {
		got := text(name)
		return got == "zed", got
	})
	s.click("Save", s.settingsSave())

	// The host has it under its new name; the window shows it, at its
	// Settings tab, and not the first server.
	h.waitState("zed", hostapi.StateRunning)
	s.serverState("zed", hostapi.StateRunning.Label())
	s.gone("alpha's page", headingText("alpha"))
	s.onlyOne("the status line's Saved zed", labelContaining("Saved zed"))
	testkit.Eventually(t, "zed's Settings, its name zed", func() (bool, string) {
		got := text(s.settingsField("Name"))
		return got == "zed", got
	})
	if e := h.entry("alpha"); e == nil || h.entry("zed") == nil || h.entry("mid") != nil {
		t.Errorf("the entries on disk: alpha %v, zed %v, mid %v", e, h.entry("zed"), h.entry("mid"))
	}
}

// urlApp is the app as the window sees it, but for the pages it opens in
// the browser: recorded, for the journey to follow as the browser would.
type urlApp struct {
	fyne.App
	mu     sync.Mutex
	opened []string
}

func (a *urlApp) OpenURL(u *url.URL) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.opened = append(a.opened, u.String())
	return nil
}

func (a *urlApp) pages() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.opened...)
}

// TestJourneySignIn (issue 27 §7): a remote server that needs a sign-in
// (a real authorization server and MCP server on loopback: the OAuth
// rig). Its primary button is Sign in, not Start; the window says what is
// wrong without the command line's words ("run 'switchboard servers
// login'"); Sign in opens the sign-in page, and while the person signs
// in nothing says it is wrong; once the browser comes back, it runs.
func TestJourneySignIn(t *testing.T) {
	need(t)
	rig := remotetest.NewOAuthRig(t)
	rig.DCR.Store(true)
	h := startHost(t, map[string]any{"o": map[string]any{"url": rig.MCPURL, "oauth": map[string]any{}}}, "SHELL", "/bin/false")
	h.waitState("o", hostapi.StateSignInNeeded)
	app := &urlApp{App: theApp}
	s := openWindowOn(t, h, app)

	s.click("o in the list", s.serverRow("o"))
	s.click("the Overview tab of o", s.serverTab("o", "Overview"))
	s.serverState("o", hostapi.StateSignInNeeded.Label())
	s.onlyOne("what is wrong with o", s.nearest(headingText("o"), after(labelText("What is wrong"), labelContaining("Sign in"))))
	s.gone("the command line's words", labelContaining("servers login"))

	s.click("Sign in", s.primaryButton("o", "Sign in"))
	testkit.Eventually(t, "the sign-in page opened", func() (bool, string) {
		p := app.pages()
		return len(p) == 1 && strings.HasPrefix(p[0], rig.AS.AuthorizationEndpoint()), fmt.Sprintf("%q", p)
	})
	s.serverState("o", hostapi.StateSigningIn.Label())
	s.onlyOne("the state in words", labelContaining("waiting for you to sign in"))
	s.gone("what is wrong while signing in", labelText("What is wrong"))

	remotetest.Browse(t, app.pages()[0], nil)
	h.waitState("o", hostapi.StateRunning)
	s.serverState("o", hostapi.StateRunning.Label())
	s.primaryButton("o", "Stop")
}

// primaryButton is the primary button of the server shown on the right of
// the list: the one main action (HighImportance) in its header, beside
// its name, whose label is label (not a button of the same label in its
// Overview, below).
func (s *screenRun) primaryButton(server, label string) fyne.CanvasObject {
	heading, main := headingText(server), func(o fyne.CanvasObject, _ []fyne.CanvasObject) bool {
		b, ok := o.(*widget.Button)
		return ok && b.Importance == widget.HighImportance
	}
	return s.find("the primary button "+label+" of "+server, func(o fyne.CanvasObject, parents []fyne.CanvasObject) bool {
		if !buttonText(label)(o, parents) {
			return false
		}
		for i := len(parents) - 1; i >= 0; i-- {
			if len(all(parents[i], nil, heading)) > 0 {
				ms := all(parents[i], nil, main)
				return len(ms) == 1 && ms[0] == o
			}
		}
		return false
	})
}
