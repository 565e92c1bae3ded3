package main

import (
	"fmt"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/tokens"
	"github.com/switchboard-mcp/switchboard/app/toolsearch"
	"github.com/switchboard-mcp/switchboard/app/toolsearch/corpus"
)

// tokenFigures prints, at 50, 100 and 200 tools (the corpus' tools in its
// servers' order, cut at N), the tools/list an app receives with every
// tool against search mode: the two meta-tools' definitions, and those
// plus one find_tools answer (limit 5; the median answer over the requests
// whose tools are in the subset).
func tokenFigures(tools []corpus.Tool, reqs []corpus.Request) {
	meta := tokens.ToolsCost([]*mcp.Tool{toolsearch.FindTools(), toolsearch.CallTool()})
	fmt.Printf("tokens (%s, counted by app/tokens) an app receives; search mode = find_tools + call_tool definitions\n", tokens.Encoding)
	fmt.Printf("%6s %10s %10s %12s %14s %14s %9s %9s\n", "tools", "all tok", "all KB", "search tok", "answer tok p50", "answer tok p90", "saved", "saved+1")
	for _, n := range []int{50, 100, 200} {
		if n > len(tools) {
			continue
		}
		sub := tools[:n]
		exposed := make([]*mcp.Tool, n)
		in := map[string]bool{}
		for i, t := range sub {
			exposed[i] = t.ExposedTool()
			in[t.Label] = true
		}
		all := tokens.ToolsCost(exposed)
		ix := toolsearch.New(corpus.Docs(sub))
		var answers []int
		for _, q := range reqs {
			ok := false
			for _, l := range q.Labels {
				ok = ok || in[l]
			}
			if !ok {
				continue
			}
			var found []*mcp.Tool
			for _, h := range ix.Search(q.Text, toolsearch.DefaultLimit) {
				found = append(found, exposed[h.Doc])
			}
			c, err := tokens.JSONCost(toolsearch.Answer(found))
			if err == nil {
				answers = append(answers, c.Tokens)
			}
		}
		sort.Ints(answers)
		p50, p90 := pct(answers, 50), pct(answers, 90)
		fmt.Printf("%6d %10d %10.1f %12d %14d %14d %8.1f%% %8.1f%%\n", n, all.Tokens, float64(all.Bytes)/1024, meta.Tokens, p50, p90,
			100*(1-float64(meta.Tokens)/float64(all.Tokens)), 100*(1-float64(meta.Tokens+p50)/float64(all.Tokens)))
	}
	fmt.Println("saved: search-mode definitions vs all tools; saved+1: with one median find_tools answer added")
}

func pct(sorted []int, p int) int {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[(len(sorted)-1)*p/100]
}
