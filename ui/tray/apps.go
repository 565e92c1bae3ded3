package tray

import (
	"context"
	"fmt"
	"time"

	"fyne.io/fyne/v2"
	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/english"
)

// The connected AI apps (issue 27 item 23): one line per app connected
// through the gateway, with how many tools it sees and what their
// descriptions cost it in tokens, as tools.cost counts them
// (hostapi.AppCost). The host sends no event when an app connects or
// leaves, so the tray asks every [DefaultAppsEvery] while connected.

// DefaultAppsEvery is how often the tray asks which apps are connected.
const DefaultAppsEvery = 5 * time.Second

// coster is what the tray reads the apps' costs from: a [client.Live].
type coster interface {
	Cost(ctx context.Context, p hostapi.CostParams) (hostapi.Cost, error)
}

// fetchApps asks the host for the connected apps' costs; nil when not
// connected or the host does not answer (an older host: no lines).
func fetchApps(c coster, s client.Snapshot) []hostapi.AppCost {
	if c == nil || !s.Connected {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cost, err := c.Cost(ctx, hostapi.CostParams{})
	if err != nil {
		return nil
	}
	return cost.Apps
}

// AppLabel is a connected app's line in the menu: "Claude Desktop: 12
// tools, about 3,400 tokens", by the name its users know it by.
func AppLabel(a hostapi.AppCost) string {
	name := "An AI app (no name yet)"
	if t := aiapps.Titles([]string{a.App}); len(t) == 1 {
		name = t[0]
	}
	if a.Pending {
		return fmt.Sprintf("%s: %s so far, still counting", name, english.Plural(a.ToolCount, "tool", "tools"))
	}
	return fmt.Sprintf("%s: %s, %s", name, english.Plural(a.ToolCount, "tool", "tools"), aboutTokens(a.Total.Tokens))
}

// appItems are the connected apps' lines (disabled items: they inform).
func appItems(apps []hostapi.AppCost) []*fyne.MenuItem {
	var items []*fyne.MenuItem
	for _, a := range apps {
		items = append(items, disabled(AppLabel(a)))
	}
	return items
}

// aboutTokens is n tokens to three significant digits: "about 3,400
// tokens", as the window says it.
func aboutTokens(n int) string {
	if n == 1 {
		return "about 1 token"
	}
	p := 1
	for n/p >= 1000 {
		p *= 10
	}
	r := (n + p/2) / p * p
	s := fmt.Sprint(r)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return "about " + s + " tokens"
}
