package registry

import (
	"sort"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/toolsearch"
)

// Searcher ranks entries for a query: the BM25F ranking of tool search
// (app/toolsearch) over each entry's name (the part after the
// namespace, with the namespace as the server's field), title,
// description and package identifiers. Read-only after NewSearcher.
type Searcher struct {
	entries []Entry
	ix      *toolsearch.Index
}

// NewSearcher indexes entries (deleted ones are never in an index).
func NewSearcher(entries []Entry) *Searcher {
	docs := make([]toolsearch.Doc, len(entries))
	for i := range entries {
		docs[i] = docOf(&entries[i])
	}
	return &Searcher{entries: entries, ix: toolsearch.New(docs)}
}

// docOf is an entry as the ranking sees it: "NAMESPACE__NAME" with the
// namespace as its server, so that the name's own words weigh most and
// the namespace's ("io", "github", the owner) less.
func docOf(e *Entry) toolsearch.Doc {
	ns, short := SplitName(e.Server.Name)
	d := toolsearch.Doc{Name: ns + "__" + short, Server: ns, Title: e.Server.Title, Description: e.Server.Description}
	if ns == "" {
		d.Name = short
	}
	for _, p := range e.Server.Packages {
		d.Params = append(d.Params, toolsearch.Param{Name: p.Identifier, Description: p.RegistryType})
	}
	return d
}

// SplitName splits a server name at its first slash: the namespace
// (io.github.owner, com.example) and the name.
func SplitName(name string) (namespace, short string) {
	if i := strings.IndexByte(name, '/'); i >= 0 {
		return name[:i], name[i+1:]
	}
	return "", name
}

// Result is one ranked entry.
type Result struct {
	Entry *Entry
	Score float64
}

// DeprecatedWeight scales a deprecated entry's score: it ranks after the
// active entries of a similar score (within a third of its own) and keeps
// its badge; a much better match still comes first.
const DeprecatedWeight = 0.66

// Search returns up to limit entries for query, best first; a deprecated
// entry's score is scaled by DeprecatedWeight.
func (s *Searcher) Search(query string, limit int) []Result {
	// Asked for more than limit: an active entry just below the limit
	// may pass a deprecated one.
	hits := s.ix.Search(query, limit*2+8)
	out := make([]Result, len(hits))
	for i, h := range hits {
		e := &s.entries[h.Doc]
		score := h.Score
		if e.Deprecated() {
			score *= DeprecatedWeight
		}
		out[i] = Result{Entry: e, Score: score}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Len is the number of entries indexed.
func (s *Searcher) Len() int { return len(s.entries) }

// Find returns the entries named name: the exact name in any registry,
// else those whose name after the namespace is name (several when it is
// ambiguous).
func Find(entries []Entry, name string) []*Entry {
	var exact, short []*Entry
	for i := range entries {
		e := &entries[i]
		if strings.EqualFold(e.Server.Name, name) {
			exact = append(exact, e)
		} else if _, s := SplitName(e.Server.Name); strings.EqualFold(s, name) {
			short = append(short, e)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return short
}
