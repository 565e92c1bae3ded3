// Package corpus loads the labelled tool-search corpus of
// app/toolsearch/testdata: the real tool lists of pinned npm MCP servers
// (captured by scripts/capture-tool-lists.sh) and natural-language
// requests labelled with the tools that serve them; and measures a
// ranking's recall on it. The tests of app/toolsearch and the figures of
// bench/toolsearch use it.
package corpus

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/toolsearch"
)

// Server is one captured tool list.
type Server struct {
	Server  string      `json:"server"`
	Package string      `json:"package"`
	Tools   []*mcp.Tool `json:"tools"`
}

// Request is one labelled request.
type Request struct {
	Text   string
	Labels []string // SERVER/TOOL
	Line   int      // in the file, for messages
	Tuning bool     // in the tuning half (else the test half)
}

// Separator joins a server's and a tool's names as the gateway exposes
// them (app/gateway.Separator; every name of the corpus is short enough
// not to be shortened).
const Separator = "__"

// Exposed is the name the gateway gives a server's tool.
func Exposed(server, tool string) string { return server + Separator + tool }

// LoadServers reads every SERVER.json of dir, sorted by server name.
func LoadServers(dir string) ([]Server, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no tool lists (*.json) in %s: run scripts/capture-tool-lists.sh", dir)
	}
	var out []Server
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var s Server
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		if s.Server == "" || len(s.Tools) == 0 {
			return nil, fmt.Errorf("%s: no server name or no tools", f)
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Server < out[j].Server })
	return out, nil
}

// LoadRequests reads a requests file: one request a line, TEXT<TAB>LABELS
// with LABELS SERVER/TOOL,SERVER/TOOL...; '#' lines and blank lines are
// skipped. Requests alternate between the tuning half (the 1st, 3rd...)
// and the test half (the 2nd, 4th...).
func LoadRequests(path string) ([]Request, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Request
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		text, labels, ok := strings.Cut(s, "\t")
		if !ok || strings.TrimSpace(text) == "" || strings.TrimSpace(labels) == "" {
			return nil, fmt.Errorf("%s:%d: want TEXT<TAB>SERVER/TOOL[,SERVER/TOOL...]", path, line)
		}
		r := Request{Text: strings.TrimSpace(text), Line: line, Tuning: len(out)%2 == 0}
		for _, l := range strings.Split(labels, ",") {
			if l = strings.TrimSpace(l); l != "" {
				r.Labels = append(r.Labels, l)
			}
		}
		out = append(out, r)
	}
	return out, sc.Err()
}

// Tool is one tool of the corpus with the names it goes by.
type Tool struct {
	Label   string // SERVER/TOOL, as the requests name it
	Exposed string // SERVER__TOOL, as the gateway exposes it
	Server  string
	Tool    *mcp.Tool
}

// Tools flattens servers, in their order.
func Tools(servers []Server) []Tool {
	var out []Tool
	for _, s := range servers {
		for _, t := range s.Tools {
			out = append(out, Tool{Label: s.Server + "/" + t.Name, Exposed: Exposed(s.Server, t.Name), Server: s.Server, Tool: t})
		}
	}
	return out
}

// Docs are the index documents of tools.
func Docs(tools []Tool) []toolsearch.Doc {
	out := make([]toolsearch.Doc, len(tools))
	for i, t := range tools {
		out[i] = toolsearch.DocOf(t.Server, t.Exposed, t.Tool)
	}
	return out
}

// Exposed is the tool as an app sees it: under its exposed name.
func (t Tool) ExposedTool() *mcp.Tool {
	c := *t.Tool
	c.Name = t.Exposed
	return &c
}

// Recall is the share of requests with at least one of their labelled
// tools among the first k results, for each k asked.
type Recall struct {
	N      int
	At     map[int]float64
	Missed map[int][]Request // the requests without a hit at k
}

// Measure ranks every request with ix (built over tools) and computes the
// recall at each k.
func Measure(ix *toolsearch.Index, tools []Tool, reqs []Request, ks ...int) Recall {
	label := map[string]string{} // exposed -> label
	for _, t := range tools {
		label[t.Exposed] = t.Label
	}
	maxK := 0
	for _, k := range ks {
		maxK = max(maxK, k)
	}
	r := Recall{N: len(reqs), At: map[int]float64{}, Missed: map[int][]Request{}}
	hits := map[int]int{}
	for _, q := range reqs {
		want := map[string]bool{}
		for _, l := range q.Labels {
			want[l] = true
		}
		first := -1
		for i, h := range ix.Search(q.Text, maxK) {
			if want[label[h.Name]] {
				first = i
				break
			}
		}
		for _, k := range ks {
			if first >= 0 && first < k {
				hits[k]++
			} else {
				r.Missed[k] = append(r.Missed[k], q)
			}
		}
	}
	for _, k := range ks {
		if len(reqs) > 0 {
			r.At[k] = float64(hits[k]) / float64(len(reqs))
		}
	}
	return r
}

// Half is the requests of one half.
func Half(reqs []Request, tuning bool) []Request {
	var out []Request
	for _, r := range reqs {
		if r.Tuning == tuning {
			out = append(out, r)
		}
	}
	return out
}

// KeywordRequest is one request of the blind keyword set
// (bench/toolsearch/testdata/requests-keywords.tsv): the user's words,
// and the intent and keywords the app's model passes to find_tools.
type KeywordRequest struct {
	Request
	Intent   string
	Keywords []string
}

// Query is the find_tools search of the request: intent and keywords.
func (r KeywordRequest) Query() toolsearch.Query {
	return toolsearch.Query{Intent: r.Intent, Keywords: r.Keywords}
}

// LoadKeywordRequests reads a keyword requests file: one request a line,
// TEXT<TAB>INTENT<TAB>KEYWORDS<TAB>LABELS, KEYWORDS comma-separated,
// LABELS as LoadRequests'.
func LoadKeywordRequests(path string) ([]KeywordRequest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []KeywordRequest
	for i, s := range strings.Split(string(b), "\n") {
		s = strings.TrimSpace(s)
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		c := strings.Split(s, "\t")
		if len(c) != 4 || strings.TrimSpace(c[0]) == "" || strings.TrimSpace(c[1]) == "" || strings.TrimSpace(c[3]) == "" {
			return nil, fmt.Errorf("%s:%d: want TEXT<TAB>INTENT<TAB>KEYWORDS<TAB>SERVER/TOOL[,SERVER/TOOL...]", path, i+1)
		}
		r := KeywordRequest{Request: Request{Text: strings.TrimSpace(c[0]), Line: i + 1, Tuning: len(out)%2 == 0}, Intent: strings.TrimSpace(c[1])}
		for _, k := range strings.Split(c[2], ",") {
			if k = strings.TrimSpace(k); k != "" {
				r.Keywords = append(r.Keywords, k)
			}
		}
		for _, l := range strings.Split(c[3], ",") {
			if l = strings.TrimSpace(l); l != "" {
				r.Labels = append(r.Labels, l)
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// FirstRight is the rank (0-based) of the first of want's labels among
// hits, -1 if none; label maps exposed names to labels.
func FirstRight(hits []toolsearch.Hit, label map[string]string, want []string) int {
	for i, h := range hits {
		for _, l := range want {
			if label[h.Name] == l {
				return i
			}
		}
	}
	return -1
}

// Labels maps the tools' exposed names to their labels.
func Labels(tools []Tool) map[string]string {
	out := map[string]string{}
	for _, t := range tools {
		out[t.Exposed] = t.Label
	}
	return out
}
