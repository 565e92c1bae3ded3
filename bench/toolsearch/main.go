// Command toolsearch prints the figures of the tool-search mode on the
// corpus of app/toolsearch/testdata (docs/toolsearch.md): recall@1 and
// recall@5 of the ranking on the sets it was tuned on (the tuning and the
// test halves of requests.tsv, requests-fresh.tsv), on the first held-out
// and second held-out sets (requests-holdout.tsv, requests-holdout2.tsv,
// both spent: -dev pools them with the others) and on the third, never
// tuned on (requests-holdout3.tsv), and the tokens an app
// receives with all tools against search mode at 50, 100 and 200 tools,
// estimated from the definitions and then read through a real gateway on
// a Unix socket, with the search index's build time and find_tools'
// latency through the socket at 208 tools. It prints figures, never pass
// or fail.
//
//	go run ./bench/toolsearch                # the figures
//	go run ./bench/toolsearch -tune -missed  # while tuning: no held-out set; the tuning sets' misses at 5
//	go run ./bench/toolsearch -dev -recall   # the five spent sets pooled; the third held-out set left out
//	go run ./bench/toolsearch -dev -recall -missed -set LexNear=0,LexFar=0  # a parameter changed
//	go run ./bench/toolsearch -recall       # also the blind keyword set: find_tools' intent and keywords
package main

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/toolsearch"
	"github.com/switchboard-mcp/switchboard/app/toolsearch/corpus"
)

func main() {
	dir := flag.String("data", "app/toolsearch/testdata", "the corpus directory")
	missed := flag.Bool("missed", false, "list the misses of the tuning sets (tuning, test, fresh; never the held-out set)")
	tune := flag.Bool("tune", false, "while tuning: leave the held-out set out (neither measured nor printed)")
	missedK := flag.Int("k", 5, "with -missed: list the misses at this k (1 or 5)")
	doGrid := flag.Bool("grid", false, "search the ranking parameters on the tuning half")
	recallOnly := flag.Bool("recall", false, "print the recall figures only (no tokens, no gateway)")
	dev := flag.Bool("dev", false, "the first two held-out sets are spent (docs/toolsearch.md): print them with the others pooled as the development set (the third held-out set left out), and with -missed list their misses too")
	set := flag.String("set", "", "with -recall: ranking parameters to change, NAME=VALUE,... (a Params field of float64 or bool)")
	kwPath := flag.String("keywords", "bench/toolsearch/testdata/requests-keywords.tsv", "the blind keyword set (find_tools' intent and keywords)")
	kwMissed := flag.Bool("keywords-missed", false, "list the keyword set's misses at 5 (the set is spent once they are read)")
	flag.Parse()
	servers, err := corpus.LoadServers(*dir + "/servers")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	reqs, err := corpus.LoadRequests(*dir + "/requests.tsv")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fresh, err := corpus.LoadRequests(*dir + "/requests-fresh.tsv")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	holdout, err := corpus.LoadRequests(*dir + "/requests-holdout.tsv")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	holdout2, err := corpus.LoadRequests(*dir + "/requests-holdout2.tsv")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	holdout3, err := corpus.LoadRequests(*dir + "/requests-holdout3.tsv")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	tools := corpus.Tools(servers)
	if *doGrid {
		grid(tools, reqs)
		return
	}
	p := toolsearch.DefaultParams
	if err := setParams(&p, *set); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	ix := toolsearch.NewWith(corpus.Docs(tools), p)
	fmt.Printf("corpus: %d servers, %d tools, %d requests\n\n", len(servers), len(tools), len(reqs))
	fmt.Printf("%-9s %5s %9s %9s\n", "set", "n", "recall@1", "recall@5")
	for _, h := range []struct {
		name string
		reqs []corpus.Request
	}{{"tuning", corpus.Half(reqs, true)}, {"test", corpus.Half(reqs, false)}, {"all", reqs}, {"fresh", fresh}, {"held-out", holdout}, {"held-out2", holdout2}, {"held-out3", holdout3}} {
		if strings.HasPrefix(h.name, "held-out") && *tune || h.name == "held-out3" && *dev {
			continue
		}
		r := corpus.Measure(ix, tools, h.reqs, 1, 5)
		fmt.Printf("%-9s %5d %9.3f %9.3f\n", h.name, r.N, r.At[1], r.At[5])
		if *missed && (h.name == "tuning" || h.name == "test" || h.name == "fresh" || *dev && (h.name == "held-out" || h.name == "held-out2")) {
			name := h.name
			defer func() {
				fmt.Printf("\n%s misses at %d:\n", name, *missedK)
				for _, q := range r.Missed[*missedK] {
					fmt.Printf("  %q want %v got", q.Text, q.Labels)
					rank := "-"
					for i, hit := range ix.Search(q.Text, 200) {
						if i < 5 {
							fmt.Printf(" %s", hit.Name)
						}
						for _, l := range q.Labels {
							if rank == "-" && strings.Replace(l, "/", "__", 1) == hit.Name {
								rank = strconv.Itoa(i + 1)
							}
						}
					}
					fmt.Printf(" [first right at %s]", rank)
					fmt.Println()
				}
			}()
		}
	}
	if !*tune && !*dev {
		keywordFigures(*kwPath, tools, ix, *kwMissed)
	}
	if *dev {
		pooled := append(append(append(append([]corpus.Request{}, reqs...), fresh...), holdout...), holdout2...)
		r := corpus.Measure(ix, tools, pooled, 1, 5)
		fmt.Printf("%-9s %5d %9.3f %9.3f\n", "dev", r.N, r.At[1], r.At[5])
	}
	if *recallOnly {
		return
	}
	fmt.Println()
	fmt.Printf("servers in order: ")
	for _, s := range servers {
		fmt.Printf("%s(%d) ", s.Server, len(s.Tools))
	}
	fmt.Println()
	tokenFigures(tools, reqs)
	kreqs, err := corpus.LoadKeywordRequests(*kwPath)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := gatewayFigures(tools, reqs, kreqs); err != nil {
		fmt.Fprintln(os.Stderr, "through the gateway:", err)
		os.Exit(1)
	}
}

// setParams changes the fields of p named in s (NAME=VALUE,...).
func setParams(p *toolsearch.Params, s string) error {
	v := reflect.ValueOf(p).Elem()
	for _, kv := range strings.Split(s, ",") {
		if kv == "" {
			continue
		}
		name, val, _ := strings.Cut(kv, "=")
		f := v.FieldByName(name)
		switch {
		case !f.IsValid():
			return fmt.Errorf("-set: no parameter %q", name)
		case f.Kind() == reflect.Float64:
			x, err := strconv.ParseFloat(val, 64)
			if err != nil {
				return fmt.Errorf("-set %s: %w", name, err)
			}
			f.SetFloat(x)
		case f.Kind() == reflect.Bool:
			x, err := strconv.ParseBool(val)
			if err != nil {
				return fmt.Errorf("-set %s: %w", name, err)
			}
			f.SetBool(x)
		default:
			return fmt.Errorf("-set: %s is not a number or a flag", name)
		}
	}
	return nil
}
