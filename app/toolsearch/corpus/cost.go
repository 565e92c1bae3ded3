package corpus

import (
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/tokens"
	"github.com/switchboard-mcp/switchboard/app/toolsearch"
)

// Costs are what an app receives for a set of tools, with every tool and
// in search mode.
type Costs struct {
	All  tokens.Cost // tools/list with every tool, under its exposed name
	Meta tokens.Cost // tools/list in search mode: find_tools and call_tool
	// Answers are the tokens of find_tools' answer (limit
	// toolsearch.DefaultLimit) for each request that one of the tools
	// serves, ascending.
	Answers []int
}

// Percentile is the p-th percentile of the answers (0 without answers).
func (c Costs) Percentile(p int) int {
	if len(c.Answers) == 0 {
		return 0
	}
	return c.Answers[(len(c.Answers)-1)*p/100]
}

// MeasureCosts counts what an app receives for tools, and find_tools'
// answers to the requests they serve, with an index over tools only.
func MeasureCosts(tools []Tool, reqs []Request) Costs {
	exposed := make([]*mcp.Tool, len(tools))
	in := map[string]bool{}
	for i, t := range tools {
		exposed[i] = t.ExposedTool()
		in[t.Label] = true
	}
	c := Costs{
		All:  tokens.ToolsCost(exposed),
		Meta: tokens.ToolsCost([]*mcp.Tool{toolsearch.FindTools(), toolsearch.CallTool()}),
	}
	ix := toolsearch.New(Docs(tools))
	for _, q := range reqs {
		served := false
		for _, l := range q.Labels {
			served = served || in[l]
		}
		if !served {
			continue
		}
		var found []*mcp.Tool
		for _, h := range ix.Search(q.Text, toolsearch.DefaultLimit) {
			found = append(found, exposed[h.Doc])
		}
		if a, err := tokens.JSONCost(toolsearch.Answer(found)); err == nil {
			c.Answers = append(c.Answers, a.Tokens)
		}
	}
	sort.Ints(c.Answers)
	return c
}
