package window

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// Token costs (docs/toolsearch.md): what the servers' tool descriptions
// cost an AI app in tokens, as the host counts them (tools.cost). The
// server's Overview shows its own cost and the total for an app that sees
// every server; the AI apps page what each connected app's entry pays
// before its first message. The host counts in the background; the
// window asks again when the servers change, and every second while a
// server is still being counted.

// costs is the window's copy of the host's figures.
type costs struct {
	all  hostapi.Cost            // an app that sees every server
	have bool                    // all is an answer of the host
	sel  map[string]hostapi.Cost // by selection (selKey), the apps' entries
	key  string                  // the servers the figures are for (costKey)
	busy bool                    // a fetch runs
	// again: the servers changed while a fetch ran, or a server was
	// still being counted: fetch again.
	again bool
}

// costRetry is how long the window waits to ask again while the host is
// still counting a server.
var costRetry = time.Second

// costKey is what the figures depend on: each server's state and how
// many tools and prompts it offers, and since when it runs (a restart
// re-reads its lists). A list that changes without a restart and keeps
// its counts shows at the next change.
func costKey(s client.Snapshot) string {
	var b strings.Builder
	b.WriteString(strconv.FormatBool(s.Connected))
	for _, st := range s.Servers {
		fmt.Fprintf(&b, "|%s %s %d %d %d %d", st.Name, st.State, st.Tools, st.Prompts, st.Held, st.StartedAt.UnixNano())
	}
	return b.String()
}

// selKey names a selection (an app entry's --profile and --servers).
func selKey(b aiapps.Bridge) string {
	s := slices.Clone(b.Servers)
	slices.Sort(s)
	return b.Profile + "|" + strings.Join(s, ",")
}

// selected reports whether an app entry narrows what it sees.
func selected(b aiapps.Bridge) bool { return len(b.Servers) > 0 || b.Profile != "" }

// costsChanged fetches the figures again when the servers changed.
func (w *Window) costsChanged(s client.Snapshot) {
	if !s.Connected {
		return
	}
	if k := costKey(s); k != w.costs.key {
		w.costs.key = k
		w.fetchCosts()
	}
}

// fetchCosts asks the host for the cost of every server, and of each
// connected app's selection on the AI apps page.
func (w *Window) fetchCosts() {
	c := &w.costs
	if !w.snap.Connected {
		return
	}
	if c.busy {
		c.again = true
		return
	}
	c.busy, c.again = true, false
	sels := w.appSelections()
	var all hostapi.Cost
	got := map[string]hostapi.Cost{}
	w.call(func(ctx context.Context) error {
		var err error
		if all, err = w.live.Cost(ctx, hostapi.CostParams{}); err != nil {
			return err
		}
		for _, b := range sels {
			sc, err := w.live.Cost(ctx, hostapi.CostParams{Servers: b.Servers, Profile: b.Profile})
			if err != nil {
				return err
			}
			got[selKey(b)] = sc
		}
		return nil
	}, func(err error) {
		c.busy = false
		if err != nil {
			return // an older host, or not connected: no figures
		}
		c.all, c.have, c.sel = all, true, got
		pending := len(all.Pending) > 0
		for _, sc := range got {
			pending = pending || len(sc.Pending) > 0
		}
		w.showCosts()
		switch {
		case c.again:
			w.fetchCosts()
		case pending:
			time.AfterFunc(costRetry, func() {
				w.opts.Do(func() {
					if w.ctx.Err() == nil {
						w.fetchCosts()
					}
				})
			})
		}
	})
}

// appSelections are the --profile and --servers of the connected apps'
// entries that the AI apps page shows (an entry with neither sees every
// server: the figures of all).
func (w *Window) appSelections() []aiapps.Bridge {
	if w.apps == nil {
		return nil
	}
	var out []aiapps.Bridge
	seen := map[string]bool{}
	for _, st := range w.apps.states {
		if !st.connected || !selected(st.bridge) || seen[selKey(st.bridge)] {
			continue
		}
		seen[selKey(st.bridge)] = true
		out = append(out, st.bridge)
	}
	return out
}

// showCosts shows the figures where they are shown.
func (w *Window) showCosts() {
	if d := w.servers.detail; d != nil && d.ov != nil {
		d.ov.showCost(d.st)
	}
	if w.apps != nil {
		w.apps.stateChanged()
	}
}

// serverCost is a server's figures; ok false if the host gave none.
func (c *costs) serverCost(name string) (hostapi.ServerCost, bool) {
	if !c.have {
		return hostapi.ServerCost{}, false
	}
	for _, s := range c.all.Servers {
		if s.Server == name {
			return s, true
		}
	}
	return hostapi.ServerCost{}, false
}

// aboutTokens words a number of tokens for a person: "about 12,300
// tokens" (three significant digits).
func aboutTokens(n int) string {
	if n == 1 {
		return "about 1 token"
	}
	return "about " + groupDigits(roundTo3(n)) + " tokens"
}

// roundTo3 rounds n (≥ 0) to three significant digits.
func roundTo3(n int) int {
	if n < 1000 {
		return n
	}
	p := 1
	for n/p >= 1000 {
		p *= 10
	}
	return (n + p/2) / p * p
}

// groupDigits writes n with a comma between groups of three digits.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 && s[i-1] != '-' {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// totalCostText is the Overview's sentence for an app that sees every
// server, or "" without figures.
func (c *costs) totalCostText() string {
	if !c.have {
		return ""
	}
	text := fmt.Sprintf("Tool descriptions use %s of each conversation of an app that sees every server.", aboutTokens(c.all.Total.Tokens))
	if n := len(c.all.Pending); n > 0 {
		text += fmt.Sprintf(" (Still counting %s.)", strings.Join(c.all.Pending, ", "))
	}
	return text
}

// serverCostText is the Overview's line for a server's own cost.
func (c *costs) serverCostText(st hostapi.ServerStatus) string {
	if st.State != hostapi.StateRunning {
		return "– (while it runs)"
	}
	sc, ok := c.serverCost(st.Name)
	switch {
	case !ok:
		return "–"
	case sc.Pending:
		return "Counting…"
	case sc.Tools == 0 && sc.Prompts == 0:
		return "Nothing: it offers no tool or prompt to the apps"
	}
	verb := "use"
	if sc.Tools == 1 && sc.Prompts == 0 {
		verb = "uses"
	}
	return fmt.Sprintf("Its %s %s %s of each conversation (≈ o200k)", toolsAndPrompts(sc), verb, aboutTokens(sc.Tokens))
}

// toolsAndPrompts is "13 tools' descriptions and 4 prompts".
func toolsAndPrompts(sc hostapi.ServerCost) string {
	var parts []string
	if sc.Tools > 0 {
		if sc.Tools == 1 {
			parts = append(parts, "1 tool's description")
		} else {
			parts = append(parts, plural(sc.Tools, "tool")+"' descriptions")
		}
	}
	if sc.Prompts > 0 {
		parts = append(parts, plural(sc.Prompts, "prompt"))
	}
	return strings.Join(parts, " and ")
}

// appCostText is what an app's entry pays, for its row on the AI apps
// page; "" when not known.
func (c *costs) appCostText(st *appState) string {
	if !c.have || !st.connected || st.problem != "" {
		return ""
	}
	cost := c.all
	if selected(st.bridge) {
		sc, ok := c.sel[selKey(st.bridge)]
		if !ok {
			return "Counting…"
		}
		cost = sc
	}
	text := fmt.Sprintf("Tool descriptions use %s of each of its conversations, before its first message (≈ o200k)", aboutTokens(cost.Total.Tokens))
	if len(cost.Pending) > 0 {
		text += fmt.Sprintf("; still counting %s", strings.Join(cost.Pending, ", "))
	}
	return text
}

// sessionsText lists the apps connected now and what each pays.
func (c *costs) sessionsText() string {
	if !c.have || len(c.all.Apps) == 0 {
		return ""
	}
	var lines []string
	for _, a := range c.all.Apps {
		name := a.App
		if name == "" {
			name = "An app (no name yet)"
		}
		line := fmt.Sprintf("%s (%s): %s, %s", name, a.Conn, plural(a.ToolCount, "tool"), aboutTokens(a.Total.Tokens))
		if a.Pending {
			line += ", still counting"
		}
		lines = append(lines, line)
	}
	return "Connected now (the tools each sees, and their tokens before its first message):\n" + strings.Join(lines, "\n")
}

// showCost shows a server's token cost, and every server's, on its
// Overview.
func (o *overview) showCost(st hostapi.ServerStatus) {
	c := &o.d.w.costs
	o.cost.SetText(c.serverCostText(st))
	setText(o.total, c.totalCostText())
}

// costText is the app row's "Tokens": what its entry pays, or "–".
func (r *appRow) costText() string {
	if t := r.v.w.costs.appCostText(r.st); t != "" {
		return t
	}
	if !r.st.connected || r.st.problem != "" {
		return "–"
	}
	return "– (known while the Switchboard host runs)"
}
