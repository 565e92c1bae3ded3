package main

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/app/tokens"
	"github.com/switchboard-mcp/switchboard/app/toolsearch/corpus"
)

// tokenFigures prints, at 50, 100 and 200 tools (the corpus' tools in its
// servers' order, cut at N), the tools/list an app receives with every
// tool against search mode: the two meta-tools' definitions, and those
// plus one find_tools answer (limit 5; the median answer over the requests
// whose tools are in the subset).
func tokenFigures(tools []corpus.Tool, reqs []corpus.Request) {
	fmt.Printf("tokens (%s, counted by app/tokens) an app receives; search mode = find_tools + call_tool definitions\n", tokens.Encoding)
	fmt.Printf("%6s %10s %10s %12s %14s %14s %9s %9s\n", "tools", "all tok", "all KB", "search tok", "answer tok p50", "answer tok p90", "saved", "saved+1")
	for _, n := range []int{50, 100, 200} {
		if n > len(tools) {
			continue
		}
		c := corpus.MeasureCosts(tools[:n], reqs)
		p50, p90 := c.Percentile(50), c.Percentile(90)
		fmt.Printf("%6d %10d %10.1f %12d %14d %14d %8.1f%% %8.1f%%\n", n, c.All.Tokens, float64(c.All.Bytes)/1024, c.Meta.Tokens, p50, p90,
			100*(1-float64(c.Meta.Tokens)/float64(c.All.Tokens)), 100*(1-float64(c.Meta.Tokens+p50)/float64(c.All.Tokens)))
	}
	fmt.Println("saved: search-mode definitions vs all tools; saved+1: with one median find_tools answer added")
}
