package toolsearch

import (
	"math"
	"slices"
	"sync"
)

// Bounds of what a Learned holds: the words of at most maxLearnedWords
// per tool (the most taught kept), for at most maxLearnedTools tools (the
// most recently taught kept). About 1,024 x 32 short strings: well under a
// megabyte, whatever the use.
const (
	maxLearnedTools = 1024
	maxLearnedWords = 32
)

// Learned are the words that searches taught the tools called after them
// (the gateway: a find_tools answer listed the tool, and the same
// connection called it shortly after): a per-tool field that Find scores
// at Params.LearnedWeight, so that the next search in the same words
// finds the tool the user's app chose. It holds index terms only (no
// request text), in memory; safe for concurrent use.
type Learned struct {
	mu    sync.RWMutex
	tools map[string]*learnedTool // by the tool's name (Doc.Name)
	df    map[string]int          // per term, how many tools learned it
	clock uint64
}

type learnedTool struct {
	words map[string]float64 // term -> times taught
	last  uint64             // the clock when last taught
}

// NewLearned is an empty Learned.
func NewLearned() *Learned {
	return &Learned{tools: map[string]*learnedTool{}, df: map[string]int{}}
}

// Add teaches tool the words of q (Query.Words): each once per call.
func (l *Learned) Add(tool string, q Query) {
	words := q.Words()
	if tool == "" || len(words) == 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clock++
	lt := l.tools[tool]
	if lt == nil {
		if len(l.tools) >= maxLearnedTools {
			l.forgetOldest()
		}
		lt = &learnedTool{words: map[string]float64{}}
		l.tools[tool] = lt
	}
	lt.last = l.clock
	for _, w := range words {
		if lt.words[w] == 0 {
			l.df[w]++
		}
		lt.words[w]++
	}
	for len(lt.words) > maxLearnedWords {
		// The least taught word goes (ties: the greatest term, so that
		// the same history keeps the same words).
		var drop string
		for w, c := range lt.words {
			if drop == "" || c < lt.words[drop] || c == lt.words[drop] && w > drop {
				drop = w
			}
		}
		delete(lt.words, drop)
		l.forget(drop)
	}
}

// forgetOldest drops the tool taught longest ago (l.mu held).
func (l *Learned) forgetOldest() {
	var oldest string
	for name, lt := range l.tools {
		if oldest == "" || lt.last < l.tools[oldest].last {
			oldest = name
		}
	}
	for w := range l.tools[oldest].words {
		l.forget(w)
	}
	delete(l.tools, oldest)
}

func (l *Learned) forget(w string) {
	if l.df[w]--; l.df[w] <= 0 {
		delete(l.df, w)
	}
}

// Len is the number of tools that learned words.
func (l *Learned) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.tools)
}

// score adds to scores (per doc of ix) the learned field's BM25 for the
// query's terms q (in the fixed order qterms): weight x the term's query
// weight x its idf among ix's tools and the tools that learned it x the
// saturated count taught.
func (l *Learned) score(ix *Index, q map[string]float64, qterms []string, scores []float64) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	if len(l.tools) == 0 {
		return
	}
	n := float64(len(ix.docs))
	// The docs that learned something, in the docs' order.
	type taught struct {
		doc   int
		words map[string]float64
	}
	var ds []taught
	for name, lt := range l.tools {
		for _, i := range ix.byName[name] {
			ds = append(ds, taught{i, lt.words})
		}
	}
	if len(ds) == 0 {
		return
	}
	slices.SortFunc(ds, func(a, b taught) int { return a.doc - b.doc })
	for _, term := range qterms {
		df := float64(ix.df[term] + l.df[term])
		if l.df[term] == 0 {
			continue
		}
		idf := math.Log(1 + max(n-df+0.5, 0.5)/(df+0.5))
		for _, d := range ds {
			if c := d.words[term]; c > 0 {
				scores[d.doc] += ix.p.LearnedWeight * q[term] * idf * c / (ix.p.K1 + c)
			}
		}
	}
}
