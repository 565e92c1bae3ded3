package corpus_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/tokens"
	"github.com/switchboard-mcp/switchboard/app/toolsearch"
	"github.com/switchboard-mcp/switchboard/app/toolsearch/corpus"
)

const data = "../testdata"

func load(t *testing.T) ([]corpus.Server, []corpus.Tool, []corpus.Request) {
	t.Helper()
	servers, err := corpus.LoadServers(filepath.Join(data, "servers"))
	if err != nil {
		t.Fatal(err)
	}
	reqs, err := corpus.LoadRequests(filepath.Join(data, "requests.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return servers, corpus.Tools(servers), reqs
}

func loadFresh(t *testing.T) []corpus.Request {
	t.Helper()
	fresh, err := corpus.LoadRequests(filepath.Join(data, "requests-fresh.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return fresh
}

func loadHoldout(t *testing.T) []corpus.Request {
	t.Helper()
	h, err := corpus.LoadRequests(filepath.Join(data, "requests-holdout.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// loadHoldout2 reads the second held-out set, written from the tool lists
// only and committed before it was first measured.
func loadHoldout2(t *testing.T) []corpus.Request {
	t.Helper()
	h, err := corpus.LoadRequests(filepath.Join(data, "requests-holdout2.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// loadHoldout3 reads the third held-out set, written blind from the tool
// lists only and committed before it was first measured.
func loadHoldout3(t *testing.T) []corpus.Request {
	t.Helper()
	h, err := corpus.LoadRequests(filepath.Join(data, "requests-holdout3.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestCorpusLoadsAndLabelsNameRealTools(t *testing.T) {
	servers, tools, reqs := load(t)
	if len(servers) < 10 {
		t.Errorf("%d servers, want at least 10", len(servers))
	}
	if len(reqs) < 150 {
		t.Errorf("%d requests, want at least 150", len(reqs))
	}
	known := map[string]bool{}
	exposed := map[string]bool{}
	for _, tl := range tools {
		if known[tl.Label] {
			t.Errorf("tool %s twice", tl.Label)
		}
		known[tl.Label] = true
		if exposed[tl.Exposed] || len(tl.Exposed) > 64 {
			t.Errorf("exposed name %q repeated or over 64 bytes (the gateway would shorten it)", tl.Exposed)
		}
		exposed[tl.Exposed] = true
		if tl.Tool.InputSchema == nil {
			t.Errorf("%s has no input schema", tl.Label)
		}
	}
	seen := map[string]int{}
	labelled := map[string]bool{}
	fresh := loadFresh(t)
	if len(fresh) < 40 {
		t.Errorf("%d fresh requests, want 40", len(fresh))
	}
	holdout := loadHoldout(t)
	if len(holdout) < 100 {
		t.Errorf("%d held-out requests, want at least 100", len(holdout))
	}
	heldServers := map[string]bool{}
	for _, r := range holdout {
		for _, l := range r.Labels {
			heldServers[strings.SplitN(l, "/", 2)[0]] = true
		}
	}
	if len(heldServers) != len(servers) {
		t.Errorf("the held-out requests cover %d servers of %d", len(heldServers), len(servers))
	}
	holdout2 := loadHoldout2(t)
	if len(holdout2) < 200 {
		t.Errorf("%d second held-out requests, want at least 200", len(holdout2))
	}
	held2Servers := map[string]bool{}
	for _, r := range holdout2 {
		for _, l := range r.Labels {
			held2Servers[strings.SplitN(l, "/", 2)[0]] = true
		}
	}
	if len(held2Servers) != len(servers) {
		t.Errorf("the second held-out requests cover %d servers of %d", len(held2Servers), len(servers))
	}
	holdout3 := loadHoldout3(t)
	if len(holdout3) < 300 {
		t.Errorf("%d third held-out requests, want at least 300", len(holdout3))
	}
	held3Servers := map[string]bool{}
	for _, r := range holdout3 {
		for _, l := range r.Labels {
			held3Servers[strings.SplitN(l, "/", 2)[0]] = true
		}
	}
	if len(held3Servers) != len(servers) {
		t.Errorf("the third held-out requests cover %d servers of %d", len(held3Servers), len(servers))
	}
	all := append(append(append(append(append([]corpus.Request{}, reqs...), fresh...), holdout...), holdout2...), holdout3...)
	for i, r := range all {
		switch {
		case i >= len(reqs)+len(fresh)+len(holdout)+len(holdout2):
			r.Line += 400000 // third held-out lines
		case i >= len(reqs)+len(fresh)+len(holdout):
			r.Line += 300000 // second held-out lines
		case i >= len(reqs)+len(fresh):
			r.Line += 200000 // held-out lines: apart from the others in messages
		case i >= len(reqs):
			r.Line += 100000 // fresh lines: apart from requests.tsv's in messages
		}
		if len(r.Labels) == 0 {
			t.Errorf("line %d: no label", r.Line)
		}
		for _, l := range r.Labels {
			if !known[l] {
				t.Errorf("line %d: label %s names no tool of the corpus", r.Line, l)
			}
			labelled[strings.SplitN(l, "/", 2)[0]] = true
		}
		key := strings.ToLower(r.Text)
		if prev, ok := seen[key]; ok {
			t.Errorf("line %d repeats line %d", r.Line, prev)
		}
		seen[key] = r.Line
	}
	for _, s := range servers {
		if !labelled[s.Server] {
			t.Errorf("no request for server %s", s.Server)
		}
	}
	tune, test := corpus.Half(reqs, true), corpus.Half(reqs, false)
	if len(tune)+len(test) != len(reqs) || len(tune)-len(test) > 1 || len(test) > len(tune) {
		t.Errorf("halves %d and %d of %d requests", len(tune), len(test), len(reqs))
	}
}

func TestLoadRequestsRefusesBadLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.tsv")
	if err := os.WriteFile(p, []byte("# comment\nread a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := corpus.LoadRequests(p); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Fatalf("a line without labels: %v, want an error naming line 2", err)
	}
	if _, err := corpus.LoadServers(t.TempDir()); err == nil || !strings.Contains(err.Error(), "capture-tool-lists") {
		t.Fatalf("an empty servers directory: %v, want an error naming the remedy", err)
	}
}

// Quality floors, not timings: the ranking's recall on the corpus. The
// figures and how they were reached are in docs/toolsearch.md; a change
// that loses recall fails here.
func TestRecallFloors(t *testing.T) {
	_, tools, reqs := load(t)
	ix := toolsearch.New(corpus.Docs(tools))
	for _, c := range []struct {
		half     string
		reqs     []corpus.Request
		at1, at5 float64
	}{
		// The three sets the ranking was tuned on (since 2026-12-02 all
		// three; measured 0.670/0.955, 0.667/0.954, 0.600/0.875 after the
		// second pass).
		{"tuning", corpus.Half(reqs, true), 0.60, 0.93},
		{"test", corpus.Half(reqs, false), 0.60, 0.93},
		{"fresh", loadFresh(t), 0.55, 0.85},
		// Not tuned on in the first pass (0.489, 0.808); a development set
		// of the second (0.505, 0.813; docs/toolsearch.md): a regression
		// floor, not a target.
		{"held-out", loadHoldout(t), 0.47, 0.79},
		// The second held-out set, measured once after the second pass
		// (0.521, 0.779; docs/toolsearch.md): a regression floor too.
		{"held-out2", loadHoldout2(t), 0.49, 0.75},
		// The third, written blind and measured once on 2026-12-02 with
		// the ranking as it was (0.512, 0.735; docs/toolsearch.md, fourth
		// pass): a regression floor as well.
		{"held-out3", loadHoldout3(t), 0.48, 0.71},
	} {
		r := corpus.Measure(ix, tools, c.reqs, 1, 5)
		t.Logf("%s half: %d requests, recall@1 %.3f, recall@5 %.3f", c.half, r.N, r.At[1], r.At[5])
		if r.At[5] < c.at5 {
			t.Errorf("%s half: recall@5 %.3f under the floor %.2f", c.half, r.At[5], c.at5)
		}
		if r.At[1] < c.at1 {
			t.Errorf("%s half: recall@1 %.3f under the floor %.2f", c.half, r.At[1], c.at1)
		}
	}
}

// Search mode's point: at 100 tools the app's list (the two meta-tools)
// is under a tenth of every tool's definitions, even with a median
// find_tools answer added.
func TestSearchModeSavesTokens(t *testing.T) {
	_, tools, reqs := load(t)
	c := corpus.MeasureCosts(tools[:100], reqs)
	p50 := c.Percentile(50)
	t.Logf("100 tools: %d tokens; search mode %d, + a median answer %d (%d answers)", c.All.Tokens, c.Meta.Tokens, p50, len(c.Answers))
	if len(c.Answers) < 50 || c.Meta.Tokens == 0 || p50 == 0 {
		t.Fatalf("measured %d answers, meta %d tokens, median answer %d", len(c.Answers), c.Meta.Tokens, p50)
	}
	if (c.Meta.Tokens+p50)*10 > c.All.Tokens {
		t.Fatalf("search mode %d tokens + a median answer %d vs all %d: want under a tenth", c.Meta.Tokens, p50, c.All.Tokens)
	}
}

func BenchmarkNew208(b *testing.B) {
	servers, err := corpus.LoadServers(filepath.Join(data, "servers"))
	if err != nil {
		b.Fatal(err)
	}
	docs := corpus.Docs(corpus.Tools(servers))
	for b.Loop() {
		toolsearch.New(docs)
	}
}

func BenchmarkSearch208(b *testing.B) {
	servers, err := corpus.LoadServers(filepath.Join(data, "servers"))
	if err != nil {
		b.Fatal(err)
	}
	reqs, err := corpus.LoadRequests(filepath.Join(data, "requests.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	ix := toolsearch.New(corpus.Docs(corpus.Tools(servers)))
	i := 0
	for b.Loop() {
		ix.Search(reqs[i%len(reqs)].Text, 5)
		i++
	}
}

func BenchmarkToolsCost208(b *testing.B) {
	servers, err := corpus.LoadServers(filepath.Join(data, "servers"))
	if err != nil {
		b.Fatal(err)
	}
	var exposed []*mcp.Tool
	for _, t := range corpus.Tools(servers) {
		exposed = append(exposed, t.ExposedTool())
	}
	for b.Loop() {
		tokens.ToolsCost(exposed)
	}
}

// The blind keyword set (bench/toolsearch/testdata/requests-keywords.tsv,
// issue 30 §7): every line has an intent, keywords and labels that name
// real tools; find_tools with intent and keywords keeps the recall
// measured once on 2026-12-05 (0.981 at 5, the keywords alone 0.981, the
// user's words alone 0.741):
// a regression floor, not a target, and above what the user's words alone
// reach (the keywords' gain).
func TestKeywordSet(t *testing.T) {
	_, tools, _ := load(t)
	reqs, err := corpus.LoadKeywordRequests("../../../bench/toolsearch/testdata/requests-keywords.tsv")
	if err != nil {
		t.Fatal(err)
	}
	if len(reqs) < 40 {
		t.Fatalf("%d keyword requests, want at least 40", len(reqs))
	}
	label := corpus.Labels(tools)
	known := map[string]bool{}
	for _, l := range label {
		known[l] = true
	}
	ix := toolsearch.New(corpus.Docs(tools))
	var kw, only, words int
	for _, r := range reqs {
		if len(r.Keywords) < 2 || r.Intent == "" {
			t.Errorf("line %d: intent %q keywords %q", r.Line, r.Intent, r.Keywords)
		}
		for _, l := range r.Labels {
			if !known[l] {
				t.Errorf("line %d: label %s names no tool of the corpus", r.Line, l)
			}
		}
		if f := corpus.FirstRight(ix.Find(r.Query(), 5, nil), label, r.Labels); f >= 0 {
			kw++
		}
		if f := corpus.FirstRight(ix.Find(toolsearch.Query{Keywords: r.Keywords}, 5, nil), label, r.Labels); f >= 0 {
			only++
		}
		if f := corpus.FirstRight(ix.Search(r.Text, 5), label, r.Labels); f >= 0 {
			words++
		}
	}
	at5, plain, kwOnly := float64(kw)/float64(len(reqs)), float64(words)/float64(len(reqs)), float64(only)/float64(len(reqs))
	t.Logf("%d requests: recall@5 %.3f with intent and keywords, %.3f with keywords alone, %.3f with the user's words", len(reqs), at5, kwOnly, plain)
	if kwOnly < 0.94 {
		t.Errorf("recall@5 with the keywords alone %.3f: under the floor 0.94 (measured 0.981)", kwOnly)
	}
	if at5 < 0.94 || at5 <= plain {
		t.Errorf("recall@5 with intent and keywords %.3f: under the floor 0.94, or not above the user's words (%.3f)", at5, plain)
	}
	p := filepath.Join(t.TempDir(), "k.tsv")
	if err := os.WriteFile(p, []byte("# c\ntext\tintent\tkw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := corpus.LoadKeywordRequests(p); err == nil || !strings.Contains(err.Error(), ":2:") {
		t.Errorf("a line without labels: %v", err)
	}
}
