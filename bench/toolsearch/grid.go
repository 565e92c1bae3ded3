package main

import (
	"fmt"
	"sort"

	"github.com/switchboard-mcp/switchboard/app/toolsearch"
	"github.com/switchboard-mcp/switchboard/app/toolsearch/corpus"
)

// grid tries ranking parameters on the tuning half only and prints the
// best few by recall@5 then recall@1; the test half is printed beside
// them but never used to choose.
func grid(tools []corpus.Tool, reqs []corpus.Request) {
	tune, test := corpus.Half(reqs, true), corpus.Half(reqs, false)
	docs := corpus.Docs(tools)
	type row struct {
		p      toolsearch.Params
		t1, t5 float64
	}
	var rows []row
	for _, k1 := range []float64{0.9, 1.2, 2} {
		for _, wn := range []float64{2, 3, 5} {
			for _, wd := range []float64{0.5, 1, 2} {
				for _, wpn := range []float64{0.5, 1, 2} {
					for _, wpd := range []float64{0, 0.25, 0.5} {
						for _, bd := range []float64{0.5, 0.75, 0.9} {
							for _, sw := range []float64{0.3, 0.5, 0.8} {
								p := toolsearch.DefaultParams
								p.K1 = k1
								p.Weights = [6]float64{wn, wn * 2 / 3, wd, wpn, wpd, 1}
								p.B[2] = bd
								p.SynonymWeight = sw
								ix := toolsearch.NewWith(docs, p)
								a := corpus.Measure(ix, tools, tune, 1, 5)
								rows = append(rows, row{p: p, t1: a.At[1], t5: a.At[5]})
							}
						}
					}
				}
			}
		}
	}
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].t5 != rows[j].t5 {
			return rows[i].t5 > rows[j].t5
		}
		return rows[i].t1 > rows[j].t1
	})
	fmt.Printf("%d parameter sets tried on the tuning half; the best:\n", len(rows))
	for _, r := range rows[:min(10, len(rows))] {
		b := corpus.Measure(toolsearch.NewWith(docs, r.p), tools, test, 1, 5)
		fmt.Printf("k1=%.1f w=%v b=%v syn=%.1f  tuning %.3f/%.3f  test %.3f/%.3f\n", r.p.K1, r.p.Weights, r.p.B, r.p.SynonymWeight, r.t1, r.t5, b.At[1], b.At[5])
	}
}
