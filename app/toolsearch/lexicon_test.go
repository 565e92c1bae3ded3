package toolsearch

import (
	"slices"
	"strings"
	"testing"
)

// The embedded table is well formed: sorted, one line per key, every word
// an index term (lowercase letters and digits). A change to the stemmer
// fails TestLexiconRelatesWords (its words are looked up through terms):
// then run go generate ./app/toolsearch/.
func TestLexiconTableIsCurrent(t *testing.T) {
	text := lexiconText()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) < 10000 {
		t.Fatalf("the table has %d lines", len(lines))
	}
	prev := ""
	bad := 0
	for _, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 3 || f[0] == "" || f[1] == "" && f[2] == "" {
			t.Fatalf("line %q: want KEY<TAB>NEAR<TAB>FAR", l)
		}
		if f[0] <= prev {
			t.Fatalf("key %q after %q: not sorted or repeated", f[0], prev)
		}
		prev = f[0]
		for _, w := range strings.Fields(f[0] + " " + f[1] + " " + f[2]) {
			if strings.Trim(w, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
				bad++
				if bad <= 5 {
					t.Errorf("%q in line %q is not an index term", w, f[0])
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d words of the table are not index terms: regenerate it (go generate ./app/toolsearch/)", bad)
	}
	// The binary search finds the first and the last key, and only keys.
	first, _, _ := strings.Cut(lines[0], "\t")
	last, _, _ := strings.Cut(lines[len(lines)-1], "\t")
	for _, k := range []string{first, last} {
		if n, f := lexicon(k); len(n)+len(f) == 0 {
			t.Errorf("lexicon(%q) found nothing", k)
		}
	}
	for _, k := range []string{"", "zzzzzz", "aaaa aaaa", first[:len(first)-1]} {
		if n, f := lexicon(k); len(n)+len(f) != 0 {
			t.Errorf("lexicon(%q) = %q %q, want nothing", k, n, f)
		}
	}
}

func TestLexiconRelatesWords(t *testing.T) {
	for _, c := range []struct {
		word, near, far string
	}{
		{"memorised", "memory", ""},
		{"reviewer", "review", ""},
		{"sister", "", "member"},
		{"dismiss", "ignore", "reject"},
		{"respond", "reply", ""},
		{"tear down", "", "destroy"},
	} {
		key := strings.Join(terms(c.word), " ")
		near, far := lexicon(key)
		if c.near != "" && !slices.Contains(near, stem(c.near)) {
			t.Errorf("%q: near %q lacks %q", c.word, near, c.near)
		}
		if c.far != "" && !slices.Contains(far, stem(c.far)) {
			t.Errorf("%q: far %q lacks %q", c.word, far, c.far)
		}
	}
}

func TestLexiconExpandsUnknownWordsOnly(t *testing.T) {
	docs := []Doc{
		{Name: "mem__read_graph", Server: "mem", Description: "Read the whole memory graph"},
		{Name: "fs__read_file", Server: "fs", Description: "Read a file from disk"},
		{Name: "web__search", Server: "web", Description: "Search the web"},
	}
	ix := New(docs)
	if h := ix.Search("everything you memorised", 1); len(h) == 0 || h[0].Name != "mem__read_graph" {
		t.Fatalf("memorised did not find the memory tool: %v", h)
	}
	p := DefaultParams
	p.LexNear, p.LexFar = 0, 0
	if h := NewWith(docs, p).Search("everything you memorised", 1); len(h) != 0 {
		t.Fatalf("without the table, memorised found %v", h)
	}
	// "file" is a word of the tools: its WordNet relatives ("register",
	// "data file"...) are not brought, though the table has them.
	if near, _ := lexicon("file"); len(near) == 0 {
		t.Fatal("the table has nothing for file")
	}
	p = DefaultParams
	p.SynonymWeight = 0
	if q := NewWith(docs, p).queryTerms("file"); len(q) != 1 {
		t.Fatalf("a known word was expanded: %v", q)
	}
}

// A word WordNet relates to a tool's name ("deal" to "handle") finds the
// tool through the related field, and only through it.
func TestRelatedFieldFromToolNames(t *testing.T) {
	docs := []Doc{
		{Name: "pw__browser_handle_dialog", Server: "pw", Description: "Respond to a dialog"},
		{Name: "pw__browser_close", Server: "pw", Description: "Close the page"},
	}
	p := DefaultParams
	p.LexNear, p.LexFar = 0, 0 // the query side's WordNet look-up would find it too
	ix := NewWith(docs, p)
	if h := ix.Search("deal with it", 2); len(h) != 1 || h[0].Name != "pw__browser_handle_dialog" {
		t.Fatalf("deal did not find handle: %v", h)
	}
	var related [numAll]float64
	related[fieldRelated] = 1 // once, in the related field only
	if post := ix.post["deal"]; len(post) != 1 || post[0].doc != 0 || post[0].tf != ix.fieldTF(0, related) {
		t.Fatalf("deal: postings %v; want doc 0 with tf %v (the related field's, once)", post, ix.fieldTF(0, related))
	}
	p.RelatedWeight = 0
	if h := NewWith(docs, p).Search("deal with it", 2); len(h) != 0 {
		t.Fatalf("without the related field, deal found %v", h)
	}
}
