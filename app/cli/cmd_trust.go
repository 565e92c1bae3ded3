package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/trust"
	"github.com/switchboard-mcp/switchboard/internal/termtext"
)

// The pinned tool definitions on the command line (docs/trust.md):
// 'switchboard tools review [NAME]', 'tools accept NAME TOOL', 'tools
// reject NAME TOOL'. They are words of 'tools' (rows with word set: listed
// in help, routed by resolve when the word follows 'tools') rather than a
// group, so that 'tools NAME' keeps listing a server's tools (a server
// named review is reviewed with 'tools review review').
var toolsWordRows = []*command{
	{name: "tools review", word: true, args: "[NAME]", summary: "the tools held for review (new or changed since trusted): diffs and flags; every server's, or NAME's",
		help: toolsTrustHelp, run: func(e *env, a *argv) error {
			if len(a.pos) > 1 {
				return usagef("tools review: give one server NAME, or none for every server")
			}
			name := ""
			if len(a.pos) == 1 {
				name = a.pos[0]
			}
			return e.toolsReview(name)
		}},
	{name: "tools accept", word: true, args: "NAME TOOL", summary: "trust a held tool as it is now: the AI apps see it again",
		help: toolsTrustHelp, run: func(e *env, a *argv) error { return e.toolsDecideArgs("accept", a) }},
	{name: "tools reject", word: true, args: "NAME TOOL", summary: "keep a held tool hidden from the AI apps until its definition changes again",
		help: toolsTrustHelp, run: func(e *env, a *argv) error { return e.toolsDecideArgs("reject", a) }},
}

func (e *env) toolsDecideArgs(verb string, a *argv) error {
	if len(a.pos) != 2 {
		return usagef("tools %s: give the server's NAME and the TOOL's name (as 'switchboard tools review' shows them)", verb)
	}
	return e.toolsDecide(verb, a.pos[0], a.pos[1])
}

func (e *env) toolsReview(name string) error {
	ctx := context.Background()
	c, err := e.needHost(ctx, "tools review")
	if err != nil {
		return err
	}
	defer c.Close()
	held, enabled, err := c.ReviewTools(ctx, name)
	if err != nil {
		return err
	}
	if e.json {
		if held == nil {
			held = []hostapi.HeldTool{}
		}
		return e.printJSON(held)
	}
	if !enabled {
		fmt.Fprintln(e.stdout, "This host pins no tool definitions: it was started without a pin file, so no tool is held for review.")
		return nil
	}
	writeReview(e.stdout, held)
	return nil
}

func (e *env) toolsDecide(verb, server, tool string) error {
	ctx := context.Background()
	c, err := e.needHost(ctx, "tools "+verb)
	if err != nil {
		return err
	}
	defer c.Close()
	if verb == "accept" {
		if err := c.AcceptTool(ctx, server, tool); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Accepted %s of %s: the AI apps see it again.\n", termtext.Escape(tool), server)
		return nil
	}
	if err := c.RejectTool(ctx, server, tool); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "Rejected %s of %s: it stays hidden until its definition changes.\n", termtext.Escape(tool), server)
	return nil
}

// writeReview prints the held tools: per tool its state, the two diffs as
// -/+ lines (with two lines of context around each change), and the flags
// with the matched text between » and «.
func writeReview(w io.Writer, held []hostapi.HeldTool) {
	if len(held) == 0 {
		fmt.Fprintln(w, "No tool awaits review.")
		return
	}
	server := ""
	for _, h := range held {
		if h.Server != server {
			server = h.Server
			n := 0
			for _, o := range held {
				if o.Server == server {
					n++
				}
			}
			fmt.Fprintf(w, "%s: %s held for review\n", server, plural(n, "tool"))
		}
		what := "its definition changed"
		if h.State == hostapi.TrustHeldNew {
			what = "a new tool"
		}
		fmt.Fprintf(w, "\n  %s: %s (since %s)\n", termtext.Escape(h.Tool), what, h.Since.UTC().Format(time.DateTime+" UTC"))
		if changed(h.DescriptionDiff) {
			fmt.Fprintln(w, "    description:")
			writeDiff(w, h.DescriptionDiff)
		}
		if changed(h.SchemaDiff) {
			fmt.Fprintln(w, "    definition:")
			writeDiff(w, h.SchemaDiff)
		}
		if len(h.Flags) > 0 {
			fmt.Fprintln(w, "    flags:")
			for _, f := range h.Flags {
				fmt.Fprintf(w, "      %s in %s: %s\n", f.Kind, f.Field, flagContext(h.New, f))
			}
		}
		fmt.Fprintf(w, "    accept: switchboard tools accept %s %s\n", server, termtext.Escape(h.Tool))
		fmt.Fprintf(w, "    reject: switchboard tools reject %s %s\n", server, termtext.Escape(h.Tool))
	}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func changed(d []hostapi.DiffLine) bool {
	for _, l := range d {
		if l.Op != " " {
			return true
		}
	}
	return false
}

// writeDiff prints the changed lines of d and two lines around each;
// "..." stands for the lines left out.
func writeDiff(w io.Writer, d []hostapi.DiffLine) {
	keep := trust.Around(d, 2)
	gap := false
	for i, l := range d {
		if !keep[i] {
			gap = true
			continue
		}
		if gap {
			fmt.Fprintln(w, "      ...")
			gap = false
		}
		fmt.Fprintf(w, "      %s %s\n", l.Op, termtext.Escape(l.Text))
	}
	if gap {
		fmt.Fprintln(w, "      ...")
	}
}

// flagContext is a flag's match between » and «, with up to 30 bytes of
// its field's text on each side (the scanner's Match alone when the
// field's text is not at hand).
func flagContext(newDef string, f hostapi.TrustFlag) string {
	e, ok := trust.ExcerptOf(newDef, f, 30)
	if !ok {
		return "»" + termtext.Escape(f.Match) + "«"
	}
	match := e.Match
	if !e.Named {
		match = termtext.Escape(match)
	}
	pre, post := flatLine(e.Before), flatLine(e.After)
	if e.CutBefore {
		pre = "..." + pre
	}
	if e.CutAfter {
		post += "..."
	}
	return pre + "»" + match + "«" + post
}

func flatLine(s string) string { return termtext.Escape(strings.ReplaceAll(s, "\n", " ")) }

const toolsTrustHelp = `A tool whose definition changed, or a new tool of a server already
trusted, is held: the AI apps do not see it until you review it.
  switchboard tools review [NAME]      the held tools: diffs and flags (--json)
  switchboard tools accept NAME TOOL   trust it: the apps see it again
  switchboard tools reject NAME TOOL   keep it hidden until it changes again
An entry's "trust": "auto" accepts every change (docs/trust.md).
`
