package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/tokens"
	"github.com/switchboard-mcp/switchboard/app/toolsearch"
	"github.com/switchboard-mcp/switchboard/app/toolsearch/corpus"
)

// keywordFigures measures find_tools as the app's model calls it
// (issue 30 section 7) on the blind keyword set
// (bench/toolsearch/testdata/requests-keywords.tsv), over all the
// corpus' tools in one index: recall@1, @5 and @8 and the recall of the
// answer as sent (5 to 8 tools, FindToolsArgs.Cut), for the user's words
// as the older query, the intent alone, the keywords alone, and intent
// with keywords (the shipped method, pre-registered in commit 66ec325
// before this set was first measured); with the answer's tokens
// (o200k_base), compact and as full definitions. A fusion of the intent's
// and the keywords' scores (each divided by its best) is printed for
// scale: it chose nothing.
func keywordFigures(path string, tools []corpus.Tool, ix *toolsearch.Index, missed bool) {
	reqs, err := corpus.LoadKeywordRequests(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	label := corpus.Labels(tools)
	exposed := make([]*mcp.Tool, len(tools))
	for i, t := range tools {
		exposed[i] = t.ExposedTool()
	}
	fmt.Printf("\nblind keyword set (%s): %d requests, find_tools over %d tools\n", path, len(reqs), len(tools))
	fmt.Printf("%-22s %9s %9s %9s %10s %8s %11s %11s\n", "searched with", "recall@1", "recall@5", "recall@8", "answered", "n p50", "tok p50/p90", "full p50/p90")
	type way struct {
		name  string
		query func(r corpus.KeywordRequest) toolsearch.Query
		fuse  bool
	}
	for _, w := range []way{
		{"user's words (query)", func(r corpus.KeywordRequest) toolsearch.Query { return toolsearch.Query{Intent: r.Text} }, false},
		{"intent alone", func(r corpus.KeywordRequest) toolsearch.Query { return toolsearch.Query{Intent: r.Intent} }, false},
		{"keywords alone", func(r corpus.KeywordRequest) toolsearch.Query { return toolsearch.Query{Keywords: r.Keywords} }, false},
		{"intent + keywords", func(r corpus.KeywordRequest) toolsearch.Query { return r.Query() }, false},
		{"fused (for scale)", nil, true},
	} {
		var at1, at5, at8, answered int
		var toks, full, counts []int
		var misses []string
		for _, r := range reqs {
			var hits []toolsearch.Hit
			if w.fuse {
				hits = fused(ix, r)
			} else {
				hits = ix.Find(w.query(r), toolsearch.CompactMax, nil)
			}
			first := corpus.FirstRight(hits, label, r.Labels)
			if first == 0 {
				at1++
			}
			if first >= 0 && first < 5 {
				at5++
			} else if w.name == "intent + keywords" {
				misses = append(misses, fmt.Sprintf("  line %d %q want %v got %v [first right at %d]", r.Line, r.Text, r.Labels, names(hits, 5), first+1))
			}
			if first >= 0 {
				at8++
			}
			n := toolsearch.FindToolsArgs{Intent: "x"}.Cut(hits)
			if first >= 0 && first < n {
				answered++
			}
			found := make([]*mcp.Tool, n)
			for i, h := range hits[:n] {
				found[i] = exposed[h.Doc]
			}
			counts = append(counts, n)
			if c, err := tokens.JSONCost(toolsearch.CompactAnswer(found)); err == nil {
				toks = append(toks, c.Tokens)
			}
			if c, err := tokens.JSONCost(toolsearch.Answer(found)); err == nil {
				full = append(full, c.Tokens)
			}
		}
		f := func(k int) float64 { return float64(k) / float64(len(reqs)) }
		fmt.Printf("%-22s %9.3f %9.3f %9.3f %10.3f %8d %11s %11s\n", w.name, f(at1), f(at5), f(at8), f(answered), pct(counts, 50),
			fmt.Sprintf("%d/%d", pct(toks, 50), pct(toks, 90)), fmt.Sprintf("%d/%d", pct(full, 50), pct(full, 90)))
		if missed && len(misses) > 0 {
			defer func() {
				fmt.Println("\nintent + keywords, misses at 5:")
				for _, m := range misses {
					fmt.Println(m)
				}
			}()
		}
	}
	fmt.Println("answered: the answer as sent (5 to 8 tools) holds a right tool; n: tools in it; tok: the compact answer's tokens; full: the same tools as full definitions")
}

// fused ranks by the intent's and the keywords' scores, each divided by
// its best, summed.
func fused(ix *toolsearch.Index, r corpus.KeywordRequest) []toolsearch.Hit {
	sum := map[int]float64{}
	name := map[int]string{}
	for _, q := range []toolsearch.Query{{Intent: r.Intent}, {Keywords: r.Keywords}} {
		hs := ix.Find(q, ix.Len(), nil)
		if len(hs) == 0 {
			continue
		}
		for _, h := range hs {
			sum[h.Doc] += h.Score / hs[0].Score
			name[h.Doc] = h.Name
		}
	}
	var out []toolsearch.Hit
	for d, s := range sum {
		out = append(out, toolsearch.Hit{Name: name[d], Doc: d, Score: s})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Doc < out[j].Doc
	})
	if len(out) > toolsearch.CompactMax {
		out = out[:toolsearch.CompactMax]
	}
	return out
}

func names(hits []toolsearch.Hit, k int) []string {
	var out []string
	for i, h := range hits {
		if i < k {
			out = append(out, h.Name)
		}
	}
	return out
}

// pct is the p-th percentile of xs (sorted in place; 0 when empty).
func pct(xs []int, p int) int {
	if len(xs) == 0 {
		return 0
	}
	sort.Ints(xs)
	return xs[(len(xs)-1)*p/100]
}
