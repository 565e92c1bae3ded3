package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// toolsCost is 'switchboard tools --cost [--profile P]': what the tools
// and prompts of the gateway cost an app in tokens, per server and in
// all, and what each connected app pays. The host counts (in the
// background, once per list change); without a host nothing is counted.
func (e *env) toolsCost(a *argv) error {
	if len(a.pos) > 0 {
		return usagef("tools --cost takes no server NAME: it prices every server (--profile P: a profile's)")
	}
	ctx := context.Background()
	c, err := e.needHost(ctx, "tools --cost")
	if err != nil {
		return err
	}
	defer c.Close()
	p := hostapi.CostParams{Profile: a.str("profile")}
	cost, err := c.Cost(ctx, p)
	if err != nil {
		return err
	}
	if e.json {
		return e.printJSON(cost)
	}
	e.printCost(cost, p.Profile)
	return nil
}

// printCost prints a tools.cost answer as 'tools --cost' does.
func (e *env) printCost(c hostapi.Cost, profile string) {
	who := "An app that sees every server"
	if profile != "" {
		who = fmt.Sprintf("An app with profile %q", termtext.Escape(profile))
	}
	tw := tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tTOOLS\tPROMPTS\tBYTES\t≈TOKENS")
	for _, s := range c.Servers {
		if s.Pending {
			fmt.Fprintf(tw, "%s\t\t\t\tcounting…\n", termtext.Escape(s.Server))
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t%s\n", termtext.Escape(s.Server), s.Tools, s.Prompts, thousands(s.Bytes), thousands(s.Tokens))
	}
	_ = tw.Flush()
	if len(c.Servers) == 0 {
		fmt.Fprintln(e.stdout, "(no server)")
	}
	fmt.Fprintln(e.stdout)
	fmt.Fprintf(e.stdout, "%s receives, before its first message:\n", who)
	fmt.Fprintf(e.stdout, "  tools/list    %9s bytes  ≈ %s tokens\n", thousands(c.Tools.Bytes), thousands(c.Tools.Tokens))
	fmt.Fprintf(e.stdout, "  prompts/list  %9s bytes  ≈ %s tokens\n", thousands(c.Prompts.Bytes), thousands(c.Prompts.Tokens))
	fmt.Fprintf(e.stdout, "Total: ≈ %s tokens (o200k)", thousands(c.Total.Tokens))
	if len(c.Pending) > 0 {
		fmt.Fprintf(e.stdout, ", without %s (still counting)", strings.Join(c.Pending, ", "))
	}
	fmt.Fprintln(e.stdout)
	fmt.Fprintf(e.stdout, "Counted with %s; an app's own framing of the tools adds a little.\n", c.Method)
	if len(c.Apps) == 0 {
		fmt.Fprintln(e.stdout, "\nNo app is connected now.")
		return
	}
	fmt.Fprintln(e.stdout, "\nConnected apps pay, before their first message:")
	tw = tabwriter.NewWriter(e.stdout, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "  APP\tCONNECTION\tSELECTION\tTOOLS\t≈TOKENS")
	for _, a := range c.Apps {
		name := a.App
		if name == "" {
			name = "(no name yet)"
		}
		tok := thousands(a.Total.Tokens)
		if a.Pending {
			tok += " (still counting)"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%d\t%s\n", termtext.Escape(name), termtext.Escape(a.Conn), termtext.Escape(selection(a)), a.ToolCount, tok)
	}
	_ = tw.Flush()
}

// selection is an app's bridge flags, or "every server".
func selection(a hostapi.AppCost) string {
	var parts []string
	if a.Profile != "" {
		parts = append(parts, "--profile "+a.Profile)
	}
	if len(a.Servers) > 0 {
		parts = append(parts, "--servers "+strings.Join(a.Servers, ","))
	}
	for _, t := range a.Tools {
		parts = append(parts, "--tools "+t)
	}
	if a.ToolMode != "" && a.ToolMode != "all" {
		parts = append(parts, "--tool-mode "+a.ToolMode)
	}
	if len(parts) == 0 {
		return "every server"
	}
	return strings.Join(parts, " ")
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// toolsCostFlags are the flags of 'tools' for --cost.
var toolsCostFlags = []flagDef{
	{name: "cost", kind: boolFlag, help: "what the tools and prompts cost an app in tokens: per server, in all, and per connected app (≈ o200k tokens)"},
	{name: "profile", kind: stringFlag, arg: "P", help: "with --cost: the cost for an app with profile P"},
}
