// Package toolsearch ranks the tools of MCP servers for a request in plain
// words: the ranking behind the gateway's search mode (find_tools and
// call_tool instead of every tool; docs/toolsearch.md).
//
// The ranking is BM25F: BM25 over several fields of a tool, each with its
// weight and its own length normalisation (the tool's name, the server's
// name, the title, the description, the parameters' names, the
// parameters' descriptions), with a boost for the words of the tool's
// name and for adjacent word pairs. Names are split on '_', '-', '.' and
// camelCase; words are lowercased, stop words dropped, lightly stemmed;
// the query is expanded with synonyms, prefixes, a stem back-off, typo
// matches and hints from its shape.
// It is a small implementation rather than a search library: see
// docs/toolsearch.md for the sizes measured and the reason.
package toolsearch

import (
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Field is one part of a tool the index searches.
type Field int

// The fields, in the order of Weights.
const (
	FieldName       Field = iota // the tool's name (as called, less the server's SERVER__ prefix)
	FieldTitle                   // title, or annotations.title
	FieldDesc                    // description
	FieldParamNames              // the input schema's property names
	FieldParamDescs              // the input schema's property descriptions
	FieldSummary                 // the description's first sentence (also in FieldDesc)
	numFields
)

// fieldServer is the server's name, a field of its own with the weight
// Params.ServerWeight; fieldRelated the words WordNet relates to the
// words of the tool's name and title, weight Params.RelatedWeight
// (internal: Params.Weights keeps its six fields).
const (
	fieldServer  = numFields
	fieldRelated = numFields + 1
	numAll       = numFields + 2
)

// Param is one parameter of a tool's input schema.
type Param struct {
	Name        string
	Description string
}

// Doc is one tool as the index sees it.
type Doc struct {
	Name        string // the name it is called by (the gateway's SERVER__TOOL)
	Server      string // the server's name, searched with the name
	Title       string
	Description string
	Params      []Param
}

// DocOf is the Doc of a tool exposed under name by server.
func DocOf(server, name string, t *mcp.Tool) Doc {
	d := Doc{Name: name, Server: server, Title: t.Title, Description: t.Description}
	if d.Title == "" && t.Annotations != nil {
		d.Title = t.Annotations.Title
	}
	d.Params = params(t.InputSchema)
	return d
}

// params reads the top-level properties of an input schema, whatever Go
// type holds it (a decoded map, raw JSON, a *jsonschema.Schema).
func params(schema any) []Param {
	var s struct {
		Properties map[string]struct {
			Description string `json:"description"`
			Title       string `json:"title"`
			Enum        []any  `json:"enum"`
		} `json:"properties"`
	}
	if json.Unmarshal(schemaJSON(schema), &s) != nil {
		return nil
	}
	out := make([]Param, 0, len(s.Properties))
	for name, p := range s.Properties {
		desc := p.Description
		if p.Title != "" {
			desc = p.Title + " " + desc
		}
		for _, e := range p.Enum {
			if s, ok := e.(string); ok {
				desc += " " + s
			}
		}
		out = append(out, Param{Name: name, Description: desc})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Params are the ranking's parameters: BM25's k1, and each field's weight
// and length normalisation b.
type Params struct {
	K1      float64
	Weights [numFields]float64
	B       [numFields]float64
	// Synonyms adds, for a query word, related words at this weight
	// (0: no expansion).
	SynonymWeight float64
	// HintWeight is the weight of the terms a query implies by its shape
	// (a URL: "url"; a file name: "file").
	HintWeight float64
	// PrefixWeight is the weight of the tools' words that a query word of
	// four letters or more begins ("config": "configuration").
	PrefixWeight float64
	// Coverage scales a tool's score by 1 + Coverage x the share of its
	// own name's words (without the server's) that the query or its
	// expansion holds: navigate wins over navigate_back for "open a URL".
	Coverage float64
	// FuzzyWeight is the weight of the tools' words one edit away from a
	// query word of five letters or more that no tool has (a typo:
	// "screnshot"). 0: none.
	FuzzyWeight float64
	// PhraseBoost scales a tool's score by 1 + PhraseBoost x the number
	// (at most 2) of the query's adjacent word pairs that are adjacent in
	// the tool's name, title or description ("pull request" "review").
	PhraseBoost float64
	// BackOff: a query word no tool has also brings, at PrefixWeight, the
	// tools' words of four letters or more that begin it and are at most
	// four letters shorter ("reviewers": "review").
	BackOff bool
	// ServerWeight is the weight of the server's name, a field of its own
	// (b 0.3): lower than the tool's own name, so that a server named by a
	// common word ("google-maps", "everything") does not draw every
	// request that uses the word.
	ServerWeight float64
	// LexNear and LexFar are the weights of the words that the WordNet
	// table (lexicon.go) brings for a query word that no tool has, or a
	// phrase of two or three words: the synonyms of its first senses and
	// the forms derived from it (near), those senses' hypernyms (far).
	// 0: not looked up.
	LexNear, LexFar float64
	// RelatedWeight is the weight of a field of each tool that holds the
	// words WordNet relates (near: synonyms, derived forms) to the words
	// of its name and title: "handle" brings "deal", "manage". 0: none.
	RelatedWeight float64
	// LearnedWeight is the weight of the words that searches taught a
	// tool that was called after them (Learned): a field of its own,
	// low, so that one search does not outrank what the tools say.
	// 0: not used.
	LearnedWeight float64
}

// DefaultParams are the parameters the figures in docs/toolsearch.md were
// measured with (chosen on the tuning half of the requests only).
var DefaultParams = Params{
	K1:            1.2,
	Weights:       [numFields]float64{3, 2, 1, 1, 0.5, 0},
	B:             [numFields]float64{0.3, 0.3, 0.75, 0.5, 0.75, 0.5},
	SynonymWeight: 0.5,
	HintWeight:    0.5,
	PrefixWeight:  0.5,
	Coverage:      0.25,
	FuzzyWeight:   0.5,
	PhraseBoost:   0.2,
	BackOff:       true,
	ServerWeight:  1.5,
	LexNear:       0.25,
	LexFar:        0.2,
	RelatedWeight: 0.1,
	LearnedWeight: 0.3,
}

// Index ranks a fixed set of tools. It is read-only after New and safe
// for concurrent Search.
type Index struct {
	p      Params
	docs   []Doc
	length [][numAll]float64
	avg    [numAll]float64
	df     map[string]int
	terms  []string             // every indexed term, sorted
	own    [][]string           // per doc, the distinct terms of the tool's own name
	post   map[string][]posting // term -> the docs that hold it, in order
	pairs  []map[string]bool    // per doc, adjacent term pairs ("a b") of name, title, description
	byName map[string][]int     // Doc.Name -> its docs (one, unless a name repeats)
}

// posting is a doc that holds a term, with the term's weighted,
// length-normalised frequency summed over the doc's fields: it depends
// on the doc and the term only, so it is computed once, when indexing.
type posting struct {
	doc int
	tf  float64
}

// Hit is one ranked tool.
type Hit struct {
	Name  string  // Doc.Name
	Doc   int     // its index in the docs given to New
	Score float64 // higher is better; only comparable within one Search
}

// New indexes docs with DefaultParams.
func New(docs []Doc) *Index { return NewWith(docs, DefaultParams) }

// NewWith indexes docs with the given parameters.
func NewWith(docs []Doc, p Params) *Index {
	ix := &Index{p: p, docs: docs, df: map[string]int{}, post: map[string][]posting{}, byName: map[string][]int{}}
	if p.LexNear > 0 || p.LexFar > 0 || p.RelatedWeight > 0 {
		// Unzip the WordNet table now, off the first search's path (once
		// per process: 60-140 ms on the loaded 2-core machine).
		lexiconText()
	}
	tfs := make([]map[string][numAll]float64, len(docs)) // per doc, per term, per field
	ix.length = make([][numAll]float64, len(docs))
	for i, d := range docs {
		ix.byName[d.Name] = append(ix.byName[d.Name], i)
		m := map[string][numAll]float64{}
		add := func(f Field, text string) {
			for _, t := range terms(text) {
				v := m[t]
				v[f]++
				m[t] = v
				ix.length[i][f]++
			}
		}
		add(FieldName, strings.TrimPrefix(d.Name, d.Server+"__"))
		add(fieldServer, d.Server)
		add(FieldTitle, d.Title)
		add(FieldDesc, d.Description)
		add(FieldSummary, firstSentence(d.Description))
		for _, pr := range d.Params {
			add(FieldParamNames, pr.Name)
			add(FieldParamDescs, pr.Description)
		}
		if p.RelatedWeight > 0 {
			ix.addRelated(i, m)
		}
		for t := range m {
			ix.df[t]++
		}
		ix.own = append(ix.own, ownTerms(d))
		ix.pairs = append(ix.pairs, pairsOf(d.Name, d.Title, d.Description))
		tfs[i] = m
		for f := range numAll {
			ix.avg[f] += ix.length[i][f]
		}
	}
	for t := range ix.df {
		ix.terms = append(ix.terms, t)
	}
	sort.Strings(ix.terms)
	for f := range numAll {
		if len(docs) > 0 {
			ix.avg[f] /= float64(len(docs))
		}
		if ix.avg[f] == 0 {
			ix.avg[f] = 1
		}
	}
	for i, m := range tfs {
		for t, v := range m {
			ix.post[t] = append(ix.post[t], posting{doc: i, tf: ix.fieldTF(i, v)})
		}
	}
	return ix
}

// fieldTF is BM25F's term frequency of a term in doc i: each field's
// count, weighted and normalised by the field's length.
func (ix *Index) fieldTF(i int, tfs [numAll]float64) float64 {
	var tf float64
	for f := range numAll {
		if tfs[f] == 0 {
			continue
		}
		w, b := ix.p.ServerWeight, 0.3
		if f < numFields {
			w, b = ix.p.Weights[f], ix.p.B[f]
		} else if f == fieldRelated {
			w, b = ix.p.RelatedWeight, 0.5
		}
		norm := 1 - b + b*ix.length[i][f]/ix.avg[f]
		tf += w * tfs[f] / norm
	}
	return tf
}

// Len is the number of tools indexed.
func (ix *Index) Len() int { return len(ix.docs) }

// Search returns up to limit tools for query, best first. A query with no
// word that any tool has returns nothing. Ties keep the docs' order.
func (ix *Index) Search(query string, limit int) []Hit {
	return ix.Find(Query{Intent: query}, limit, nil)
}

// Query is what find_tools searches with: the calling model's intent (one
// sentence; or an old caller's query) and the keywords it adds (words and
// synonyms, each a word or a short phrase).
type Query struct {
	Intent   string
	Keywords []string
}

// parts are the query's texts, each expanded and paired on its own: the
// intent, then each keyword.
func (q Query) parts() []string {
	out := make([]string, 0, 1+len(q.Keywords))
	if strings.TrimSpace(q.Intent) != "" {
		out = append(out, q.Intent)
	}
	for _, k := range q.Keywords {
		if strings.TrimSpace(k) != "" {
			out = append(out, k)
		}
	}
	return out
}

// Words are the query's terms (intent and keywords), distinct, in order:
// what a search teaches a tool that is called after it (Learned.Add).
func (q Query) Words() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range q.parts() {
		for _, t := range queryWords(p) {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// Find returns up to limit tools for q, best first: the intent and each
// keyword are expanded on their own (synonyms, prefixes, WordNet...) and
// their terms scored as one query, a term at the highest weight any part
// gives it; adjacent pairs count within a part, never across two
// keywords. learned (nil: none) adds the words earlier searches taught
// each tool, at Params.LearnedWeight.
func (ix *Index) Find(query Query, limit int, learned *Learned) []Hit {
	if limit <= 0 || len(ix.docs) == 0 {
		return nil
	}
	q := map[string]float64{}
	var qpairs []string
	for _, part := range query.parts() {
		for t, w := range ix.queryTerms(part) {
			if w > q[t] {
				q[t] = w
			}
		}
		if ix.p.PhraseBoost > 0 {
			qw := queryWords(part)
			for i := 1; i < len(qw); i++ {
				qpairs = append(qpairs, qw[i-1]+" "+qw[i])
			}
		}
	}
	if len(q) == 0 {
		return nil
	}
	n := float64(len(ix.docs))
	// Sum over the query's terms in a fixed order (the same sum for the
	// same query, ties break alike), over the tools that hold each.
	qterms := make([]string, 0, len(q))
	for t := range q {
		qterms = append(qterms, t)
	}
	sort.Strings(qterms)
	scores := make([]float64, len(ix.docs))
	for _, term := range qterms {
		df := float64(ix.df[term])
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range ix.post[term] {
			scores[p.doc] += q[term] * idf * p.tf / (ix.p.K1 + p.tf)
		}
	}
	if learned != nil && ix.p.LearnedWeight > 0 {
		learned.score(ix, q, qterms, scores)
	}
	var hits []Hit
	for i, score := range scores {
		if score > 0 && ix.p.Coverage > 0 && len(ix.own[i]) > 0 {
			matched := 0
			for _, t := range ix.own[i] {
				if _, ok := q[t]; ok {
					matched++
				}
			}
			score *= 1 + ix.p.Coverage*float64(matched)/float64(len(ix.own[i]))
		}
		if score > 0 && len(qpairs) > 0 {
			m := 0
			for _, pr := range qpairs {
				if ix.pairs[i][pr] {
					m++
				}
			}
			score *= 1 + ix.p.PhraseBoost*float64(min(m, 2))
		}
		if score > 0 {
			hits = append(hits, Hit{Name: ix.docs[i].Name, Doc: i, Score: score})
		}
	}
	// Best first; ties in the docs' order (hits are in that order: the
	// same order as a stable sort by score).
	slices.SortFunc(hits, func(a, b Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.Doc, b.Doc)
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}

// queryTerms are the query's distinct terms with their weights: 1 for a
// word of the query, SynonymWeight for a related word it brings.
func (ix *Index) queryTerms(query string) map[string]float64 {
	q := map[string]float64{}
	qt := queryWords(query)
	for _, t := range qt {
		q[t] = 1
	}
	if ix.p.FuzzyWeight > 0 {
		for _, t := range qt {
			if len(t) < 5 || ix.df[t] > 0 || synonyms[t] != nil {
				continue
			}
			for _, it := range ix.terms {
				if _, ok := q[it]; !ok && oneEdit(t, it) {
					q[it] = ix.p.FuzzyWeight
				}
			}
		}
	}
	if ix.p.PrefixWeight > 0 {
		for _, t := range qt {
			if len(t) < 4 {
				continue
			}
			for _, it := range ix.terms {
				if len(it) > len(t) && strings.HasPrefix(it, t) {
					if _, ok := q[it]; !ok {
						q[it] = ix.p.PrefixWeight
					}
				}
				// A word no tool has, with a suffix the stemmer keeps,
				// meets the tools' shorter word: "reviewer" "review".
				if ix.p.BackOff && ix.df[t] == 0 && len(it) >= 4 && len(it) < len(t) && len(t)-len(it) <= 4 && strings.HasPrefix(t, it) {
					if _, ok := q[it]; !ok {
						q[it] = ix.p.PrefixWeight
					}
				}
			}
		}
	}
	for _, h := range queryHints(query) {
		if _, ok := q[h]; !ok {
			q[h] = ix.p.HintWeight
		}
	}
	if ix.p.SynonymWeight > 0 {
		var brought []string
		for i := range qt {
			for n := 1; n <= maxPhrase && i+n <= len(qt); n++ {
				brought = append(brought, synonyms[strings.Join(qt[i:i+n], " ")]...)
			}
		}
		for _, s := range brought {
			if _, ok := q[s]; !ok {
				q[s] = ix.p.SynonymWeight
			}
		}
	}
	if ix.p.LexNear > 0 || ix.p.LexFar > 0 {
		ix.lexExpand(q, qt)
	}
	return q
}

// addRelated adds to a tool's terms m (doc i) the related field: the
// near words of the WordNet table for each term of its name and title.
func (ix *Index) addRelated(i int, m map[string][numAll]float64) {
	var src []string
	for t, v := range m {
		if v[FieldName] > 0 || v[FieldTitle] > 0 {
			src = append(src, t)
		}
	}
	sort.Strings(src) // the same terms in the same order: the same lengths
	for _, t := range src {
		near, _ := lexicon(t)
		for _, r := range near {
			v := m[r]
			v[fieldRelated]++
			m[r] = v
			ix.length[i][fieldRelated]++
		}
	}
}

// lexExpand adds to q the index terms that the WordNet table relates to
// the query's words that no tool has, and to its phrases of two or three
// words. A word some tool has is not looked up: its other senses would
// bring more noise than help (measured: docs/toolsearch.md).
func (ix *Index) lexExpand(q map[string]float64, qt []string) {
	bring := func(ts []string, w float64) {
		for _, t := range ts {
			if _, ok := q[t]; !ok && w > 0 && ix.df[t] > 0 {
				q[t] = w
			}
		}
	}
	for i := range qt {
		for n := 1; n <= maxPhrase && i+n <= len(qt); n++ {
			if n == 1 && ix.df[qt[i]] > 0 {
				continue
			}
			near, far := lexicon(strings.Join(qt[i:i+n], " "))
			bring(near, ix.p.LexNear)
			bring(far, ix.p.LexFar)
		}
	}
}

// firstSentence is the description up to its first ". ", newline or 200
// bytes: what the tool does, before the notes on how to use it.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200]
	}
	return s
}

// ownTerms are the distinct terms of a tool's own name: its exposed name
// without the server's prefix, less the server's words.
func ownTerms(d Doc) []string {
	name := d.Name
	if d.Server != "" {
		name = strings.TrimPrefix(name, d.Server+"__")
	}
	server := map[string]bool{}
	for _, t := range terms(d.Server) {
		server[t] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range terms(name) {
		if !server[t] && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// oneEdit says whether a and b (ASCII, a != b) are one insertion,
// deletion, substitution or swap of neighbours apart.
func oneEdit(a, b string) bool {
	if a == b {
		return false
	}
	la, lb := len(a), len(b)
	if la > lb {
		a, b, la, lb = b, a, lb, la
	}
	if lb-la > 1 {
		return false
	}
	i := 0
	for i < la && a[i] == b[i] {
		i++
	}
	if la == lb {
		if a[i+1:] == b[i+1:] {
			return true // substitution
		}
		return i+1 < la && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:] // swap
	}
	return a[i:] == b[i+1:] // insertion
}

// pairsOf are the adjacent term pairs of texts, each text on its own.
func pairsOf(texts ...string) map[string]bool {
	out := map[string]bool{}
	for _, text := range texts {
		t := terms(text)
		for i := 1; i < len(t); i++ {
			out[t[i-1]+" "+t[i]] = true
		}
	}
	return out
}

// schemaJSON is a tool's input schema as JSON (the go-sdk gives it as
// json.RawMessage, []byte or a decoded value); nil when there is none or
// it does not encode.
func schemaJSON(schema any) []byte {
	switch v := schema.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return v
	case []byte:
		return v
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	return b
}
