package tray

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func TestSummary(t *testing.T) {
	for _, c := range []struct {
		s    client.Snapshot
		want string
	}{
		{client.Snapshot{Err: "connection refused"}, "Not connected to Switchboard's host"},
		{connected(), "No servers yet"},
		{connected(srv("a", "running", 1), srv("b", "running", 2), srv("c", "running", 0), srv("d", "failed", 0)), "3 running, 1 failed"},
		{connected(srv("a", "running", 1)), "1 running"},
		{connected(srv("a", "waiting for secret", 0)), "1 needs a secret"},
		{connected(srv("a", "waiting for secret", 0), srv("b", "waiting for secret", 0)), "2 need a secret"},
		{connected(srv("a", "stopped", 0), srv("b", hostapi.StateDisabled, 0)), "2 stopped"},
		// An invalid entry counts as failed, as the icon counts it.
		{connected(srv("a", hostapi.StateInvalid, 0), srv("b", "restarting", 0)), "1 starting, 1 failed"},
		{allStates, "2 running, 3 starting, 1 needs a secret, 2 failed, 1 sleeping, 2 stopped"},
	} {
		if got := Summary(c.s); got != c.want {
			t.Errorf("Summary of %d servers (connected %v): %q, want %q", len(c.s.Servers), c.s.Connected, got, c.want)
		}
		if got := Tooltip(c.s); got != "Switchboard — "+c.want {
			t.Errorf("Tooltip: %q", got)
		}
	}
}

func TestFailureReason(t *testing.T) {
	failed := func(f func(*hostapi.ServerStatus)) hostapi.ServerStatus {
		st := srv("files", "failed", 0)
		f(&st)
		return st
	}
	long := strings.Repeat("very long words ", 20)
	for _, c := range []struct {
		name string
		st   hostapi.ServerStatus
		want string
	}{
		{"running: no reason", srv("a", "running", 3), ""},
		{"stopped: no reason", srv("a", "stopped", 0), ""},
		{"command not found", failed(func(st *hostapi.ServerStatus) {
			st.Command, st.ResolveError, st.ResolveInLastError = "npx", `server "files": command "npx" was not found in PATH (/usr/bin): install it, or set command to its absolute path`, true
			st.LastError = st.ResolveError
		}), "Command not found: npx"},
		{"a path that cannot run", failed(func(st *hostapi.ServerStatus) {
			st.Command, st.ResolveError = "/opt/mcp/server", `server "files": command "/opt/mcp/server" cannot be run (permission denied)`
		}), "Cannot run /opt/mcp/server"},
		{"resolved: the command is not the reason", failed(func(st *hostapi.ServerStatus) {
			st.Command, st.Resolved, st.LastReason = "npx", "/usr/bin/npx", "handshake timeout"
		}), "It did not answer the MCP handshake in time"},
		{"exited, with stderr", failed(func(st *hostapi.ServerStatus) {
			st.LastReason = "exited"
			st.LastError = `server "files": connection closed: exited (exit status 3); last stderr: cannot open the database`
			st.Stderr = []string{"starting", "cannot open the database", "  "}
		}), "It exited: cannot open the database"},
		{"exited, silent", failed(func(st *hostapi.ServerStatus) { st.LastReason = "exited" }), "It exited at start"},
		{"junk on stdout", failed(func(st *hostapi.ServerStatus) { st.LastReason = "junk output" }), "It wrote text that is not MCP on its output"},
		{"an unknown reason: the host's words, its first line", failed(func(st *hostapi.ServerStatus) {
			st.LastReason = "something new"
			st.LastError = "server \"files\": the moon is in the wrong phase\nsecond line"
		}), `Server "files": the moon is in the wrong phase`},
		{"no reason at all", failed(func(*hostapi.ServerStatus) {}), "It gave no reason; its logs may say more"},
		{"a long reason is cut", failed(func(st *hostapi.ServerStatus) { st.LastError = long }), short(capital(strings.TrimSpace(long)))},
		{"stderr's control characters are escaped", failed(func(st *hostapi.ServerStatus) {
			st.LastReason, st.Stderr = "exited", []string{"bad \x1b]0;title\x07 thing"}
		}), `It exited: bad \e]0;title\x07 thing`},
		{"waiting for a secret", func() hostapi.ServerStatus {
			st := srv("gh", "waiting for secret", 0)
			st.Issues = []hostapi.Problem{{Server: "gh", Key: "env.TOKEN", Message: "long words", Fact: "waits",
				Remedy: &hostapi.Remedy{Kind: hostapi.RemedySetSecret, Secret: "gh-token", Server: "gh"}}}
			return st
		}(), "Needs the secret gh-token"},
		{"keyring locked", func() hostapi.ServerStatus {
			st := srv("gh", "waiting for secret", 0)
			st.Issues = []hostapi.Problem{{Message: "locked", Remedy: &hostapi.Remedy{Kind: hostapi.RemedyUnlockKeyring, Text: "unlock it"}}}
			return st
		}(), "The keyring is locked"},
		{"an issue of a kind unknown here: its words", func() hostapi.ServerStatus {
			st := srv("gh", "waiting for secret", 0)
			st.Issues = []hostapi.Problem{{Message: `server "gh": no keyring can be reached`}}
			return st
		}(), `Server "gh": no keyring can be reached`},
		{"invalid entry", func() hostapi.ServerStatus {
			st := srv("broken", hostapi.StateInvalid, 0)
			st.Problems = []hostapi.Problem{{Server: "broken", Key: "command", Message: "command is empty"}}
			return st
		}(), `Its entry has a problem: command: command is empty`},
	} {
		got := FailureReason(c.st)
		if got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if utf8.RuneCountInString(got) > maxDetail || strings.Contains(got, "\n") {
			t.Errorf("%s: %q does not fit a menu line", c.name, got)
		}
	}
}

// A failed server's submenu begins with its reason; Open logs is in every
// submenu and opens that server's logs.
func TestBuildMenuFailedReason(t *testing.T) {
	var r recorder
	crash := srv("crash", "failed", 0)
	crash.LastReason, crash.Stderr = "exited", []string{"tray test server: cannot open the database"}
	m := BuildMenu(connected(crash, srv("ok", "running", 2)), r.actions())
	if got := labels(m)[:2]; !slices.Equal(got, []string{"1 running, 1 failed", "---"}) {
		t.Fatalf("header %q", got)
	}
	sub := find(t, m, "crash — failed").ChildMenu
	want := []string{"It exited: tray test server: cannot open the database", "---", LabelStart, LabelStop, LabelRestart, LabelShowLogs}
	if got := labels(sub); !slices.Equal(got, want) {
		t.Fatalf("crash's submenu %q, want %q", got, want)
	}
	if !sub.Items[0].Disabled {
		t.Fatal("the reason is a clickable item")
	}
	find(t, m, "crash — failed", "Open logs").Action()
	if got := r.take(); !slices.Equal(got, []string{"logs crash"}) {
		t.Fatalf("Open logs called %q", got)
	}
	// A running server's submenu has no reason line.
	if got := labels(find(t, m, "ok — running (2 tools)").ChildMenu); !slices.Equal(got, []string{LabelStart, LabelStop, LabelRestart, LabelShowLogs}) {
		t.Fatalf("ok's submenu %q", got)
	}
}

// tipHost is a Host with a tooltip: it records each one set.
type tipHost struct {
	mu   sync.Mutex
	tips []string
}

func (h *tipHost) SetSystemTrayIcon(fyne.Resource) {}
func (h *tipHost) SetSystemTrayMenu(*fyne.Menu)    {}
func (h *tipHost) SetSystemTrayTooltip(s string) {
	h.mu.Lock()
	h.tips = append(h.tips, s)
	h.mu.Unlock()
}

func (h *tipHost) get() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.tips)
}

// The tooltip follows the health, and is set only when it changes.
func TestTrayTooltip(t *testing.T) {
	h := &tipHost{}
	src := newFakeSource(client.Snapshot{})
	var rb rebuilds
	tr := &Tray{Host: h, OnRebuild: rb.hook, Notify: func(*fyne.Notification) {}}
	var r recorder
	ended := tr.start(test.NewTempApp(t), src, r.actions())
	defer func() { tr.Close(); <-ended }()
	if got := h.get(); !slices.Equal(got, []string{"Switchboard — Not connected to Switchboard's host"}) {
		t.Fatalf("at start: %q", got)
	}
	src.set(connected(srv("a", "running", 1), srv("b", "failed", 0)))
	testkit.Eventually(t, "the new tooltip", func() bool { return len(h.get()) == 2 })
	// Another tool count: the menu changes, the tooltip does not.
	n0, _ := rb.get()
	src.set(connected(srv("a", "running", 5), srv("b", "failed", 0)))
	testkit.Eventually(t, "a rebuild", func() bool { n, _ := rb.get(); return n > n0 })
	if got := h.get(); !slices.Equal(got, []string{"Switchboard — Not connected to Switchboard's host", "Switchboard — 1 running, 1 failed"}) {
		t.Fatalf("tooltips %q", got)
	}
}

func TestNoTrayNotification(t *testing.T) {
	for desktop, want := range map[string]string{
		"ubuntu:GNOME": "AppIndicator and KStatusNotifierItem Support",
		"GNOME":        "gnome-shell-extension-appindicator",
		"XFCE":         "add a tray",
		"":             "no tray that shows StatusNotifierItem icons",
	} {
		n := NoTrayNotification(desktop)
		if !strings.Contains(n.Content, want) || !strings.Contains(n.Content, "closing it closes the app") {
			t.Errorf("%q: %q", desktop, n.Content)
		}
	}
}
