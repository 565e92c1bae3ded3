//go:build linux

package tray

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func TestAppLabel(t *testing.T) {
	for _, tc := range []struct {
		a    hostapi.AppCost
		want string
	}{
		{hostapi.AppCost{App: "claude-ai", ToolCount: 12, Total: hostapi.Size{Tokens: 3412}}, "Claude Desktop: 12 tools, about 3,410 tokens"},
		{hostapi.AppCost{App: "zed", ToolCount: 1, Total: hostapi.Size{Tokens: 214}}, "zed: 1 tool, about 214 tokens"},
		{hostapi.AppCost{ToolCount: 2, Total: hostapi.Size{Tokens: 99960}}, "An AI app (no name yet): 2 tools, about 100,000 tokens"},
		{hostapi.AppCost{App: "cursor-vscode", ToolCount: 3, Pending: true}, "Cursor: 3 tools so far, still counting"},
	} {
		if got := AppLabel(tc.a); got != tc.want {
			t.Errorf("AppLabel(%+v) = %q, want %q", tc.a, got, tc.want)
		}
	}
}

// menuLabels are a menu's top-level labels, one a line.
func menuLabels(m *fyne.Menu) string {
	if m == nil {
		return ""
	}
	var b strings.Builder
	for _, it := range m.Items {
		b.WriteString(it.Label + "\n")
	}
	return b.String()
}

// TestMenuShowsConnectedApps: with a real host, the menu has a line for
// an AI app connected through the gateway, with the tools it sees and
// their tokens (tools.cost's figures), and loses it when the app leaves
// (issue 27 item 23). The host sends no event for either: the tray asks.
func TestMenuShowsConnectedApps(t *testing.T) {
	th := runHost(t, map[string]any{"everything": helperEntry("mcp")})
	l, _ := live(t, th.Opts.SocketPath)
	waitSnap(t, l, "everything running with its 2 tools", func(s client.Snapshot) bool {
		st := server(s, "everything")
		return st.State == hostapi.StateRunning && st.Tools == 2
	})
	desk := &deskApp{App: test.NewTempApp(t)}
	tr := &Tray{Host: desk, AppsEvery: 50 * time.Millisecond, Notify: func(*fyne.Notification) {}}
	var r recorder
	tr.start(desk, l, r.actions())
	defer tr.Close()

	leave := aiApp(t, th.Opts.SocketPath, "claude-ai")
	var c hostapi.Cost
	testkit.Eventually(t, "the host counted the app's tools", func() (bool, string) {
		var err error
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		defer cancel()
		if c, err = l.Cost(ctx, hostapi.CostParams{}); err != nil {
			t.Fatal(err)
		}
		return len(c.Apps) == 1 && !c.Apps[0].Pending, "not yet"
	})
	want := "Claude Desktop: 2 tools, " + aboutTokens(c.Apps[0].Total.Tokens) + "\n"
	testkit.Eventually(t, "the menu shows the app", func() (bool, string) {
		_, _, m, _ := desk.counts()
		labels := menuLabels(m)
		return strings.Contains(labels, want), labels
	})
	if !regexp.MustCompile(`about [1-9][0-9,]* tokens`).MatchString(want) {
		t.Errorf("no token figure: %q", want)
	}
	leave()
	testkit.Eventually(t, "the line goes with the app", func() (bool, string) {
		_, _, m, _ := desk.counts()
		labels := menuLabels(m)
		return !strings.Contains(labels, "Claude Desktop"), labels
	})
}
