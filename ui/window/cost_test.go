package window

import (
	"context"
	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

func TestAboutTokens(t *testing.T) {
	for n, want := range map[int]string{0: "about 0 tokens", 1: "about 1 token", 214: "about 214 tokens", 999: "about 999 tokens",
		1000: "about 1,000 tokens", 1641: "about 1,640 tokens", 12345: "about 12,300 tokens", 67686: "about 67,700 tokens",
		99960: "about 100,000 tokens", 1234567: "about 1,230,000 tokens"} {
		if got := aboutTokens(n); got != want {
			t.Errorf("aboutTokens(%d) = %q, want %q", n, got, want)
		}
	}
}

// goldenCosts are the host's figures for goldenSnapshot: everything
// counted, files still counting; two apps connected.
func goldenCosts() costs {
	return costs{
		have: true,
		all: hostapi.Cost{Method: hostapi.CostMethod,
			Servers: []hostapi.ServerCost{
				{Server: "everything", Tools: 11, Prompts: 4, Bytes: 8231, Tokens: 1857, ToolsSize: hostapi.Size{Bytes: 7228, Tokens: 1641}, PromptsSize: hostapi.Size{Bytes: 1003, Tokens: 216}},
				{Server: "files", Pending: true},
			},
			Tools: hostapi.Size{Bytes: 52000, Tokens: 12100}, Prompts: hostapi.Size{Bytes: 1003, Tokens: 216}, Total: hostapi.Size{Bytes: 53003, Tokens: 12316},
			Pending: []string{"files"},
			Apps: []hostapi.AppCost{
				{App: "claude-ai", Conn: "bridge pid 4242", Servers: []string{"everything", "files", "gone"}, ToolCount: 11, Total: hostapi.Size{Bytes: 8231, Tokens: 1857}, Pending: true},
				{App: "cursor-vscode", Conn: "bridge pid 4343", ToolCount: 40, Total: hostapi.Size{Bytes: 53003, Tokens: 12316}, Pending: true},
			}},
		sel: map[string]hostapi.Cost{selKey(aiapps.Bridge{Servers: []string{"files", "everything", "gone"}}): {Total: hostapi.Size{Bytes: 8231, Tokens: 1857}, Pending: []string{"files"}}},
	}
}

// TestGoldenCosts: a server's Overview shows its own token cost and the
// total for an app that sees every server; the AI apps page shows what a
// connected app's entry pays (its --servers priced by the host), and the
// apps connected now.
func TestGoldenCosts(t *testing.T) {
	files := goldenAppFiles(t)
	useAppFiles(t, files)
	w, _ := goldenWindow(t)
	c := goldenCosts()
	w.costs.all, w.costs.have, w.costs.sel = c.all, c.have, c.sel
	w.servers.choose("everything")
	w.showCosts()
	ov := w.servers.detail.ov
	if got, want := ov.cost.Text, "Its 11 tools' descriptions and 4 prompts use about 1,860 tokens of each conversation (≈ o200k)"; got != want {
		t.Errorf("everything's cost: %q, want %q", got, want)
	}
	if got := ov.total.Text; !strings.HasPrefix(got, "Tool descriptions use about 12,300 tokens of each conversation of an app that sees every server.") || !strings.Contains(got, "Still counting files") {
		t.Errorf("the total: %q", got)
	}
	assertMarkup(t, w, "overview-cost.xml")

	w.servers.choose("files") // failed: no cost while it does not run
	if got := w.servers.detail.ov.cost.Text; got != "– (while it runs)" {
		t.Errorf("a failed server's cost: %q", got)
	}

	w.showPlace(placeApps)
	w.apps.show(loadApps(files), must(files.exe()), nil)
	if got := w.apps.rows["claude-desktop"].cost.Text; !strings.HasPrefix(got, "Tool descriptions use about 1,860 tokens of each of its conversations") || !strings.Contains(got, "still counting files") {
		t.Errorf("Claude Desktop (--servers everything,files,gone) pays %q", got)
	}
	if got := w.apps.rows["cursor"].cost.Text; got != "–" {
		t.Errorf("Cursor (not connected) pays %q", got)
	}
	if got := w.apps.live.Text; !strings.Contains(got, "claude-ai (bridge pid 4242): 11 tools, about 1,860 tokens, still counting") || !strings.Contains(got, "cursor-vscode (bridge pid 4343): 40 tools, about 12,300 tokens") {
		t.Errorf("the apps connected now: %q", got)
	}
	assertMarkup(t, w, "apps-cost.xml")
}

// TestCostsFromHost: with a real host, a running server's Overview comes
// to show the token cost that tools.cost gives for it (the window asks
// again while the host counts), and the total for every server.
func TestCostsFromHost(t *testing.T) {
	h := start(t, map[string]any{"helper": helperEntry()})
	d := h.state("helper", hostapi.StateRunning)
	var c hostapi.Cost
	h.until("the host counted helper's tools", func() bool {
		if err := h.call(func(ctx context.Context, l *client.Live) (err error) {
			c, err = l.Cost(ctx, hostapi.CostParams{})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return len(c.Pending) == 0 && len(c.Servers) == 1 && c.Servers[0].Tools == 2
	})
	want := "Its 2 tools' descriptions use " + aboutTokens(c.Servers[0].Tokens) + " of each conversation (≈ o200k)"
	h.until("the Overview shows helper's cost", func() bool { return d.ov.cost.Text == want })
	if got := d.ov.total.Text; !strings.HasPrefix(got, "Tool descriptions use "+aboutTokens(c.Total.Tokens)+" of each conversation") {
		t.Errorf("the total: %q, want %s", got, aboutTokens(c.Total.Tokens))
	}
}

// TestToolsAndPromptsOne: one tool is "1 tool's description", not
// "1 tool' descriptions" (seen on a one-tool bundle's Overview).
func TestToolsAndPromptsOne(t *testing.T) {
	for _, c := range []struct {
		sc   hostapi.ServerCost
		want string
	}{
		{hostapi.ServerCost{Tools: 1}, "1 tool's description"},
		{hostapi.ServerCost{Tools: 2}, "2 tools' descriptions"},
		{hostapi.ServerCost{Tools: 1, Prompts: 1}, "1 tool's description and 1 prompt"},
	} {
		if got := toolsAndPrompts(c.sc); got != c.want {
			t.Errorf("%+v: %q, want %q", c.sc, got, c.want)
		}
	}
}
