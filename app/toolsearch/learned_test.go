package toolsearch

import (
	"fmt"
	"slices"
	"testing"
)

func names(hits []Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Name)
	}
	return out
}

// A search's words taught to the tool called after it rank that tool
// first for the same words, where the tools' own words put it third;
// without the Learned (or at LearnedWeight 0) the ranking is unchanged.
func TestLearnedChangesRanking(t *testing.T) {
	ix := New(obviousDocs())
	q := Query{Intent: "keep the text for later"}
	before := names(ix.Find(q, 8, nil))
	if len(before) < 3 || before[0] == "files__write_file" {
		t.Fatalf("before learning %v: the test needs write_file found, not first", before)
	}
	l := NewLearned()
	if got := names(ix.Find(q, 8, l)); !slices.Equal(got, before) {
		t.Errorf("an empty Learned changed the ranking: %v, want %v", got, before)
	}
	l.Add("files__write_file", q)
	if got := names(ix.Find(q, 8, l)); len(got) == 0 || got[0] != "files__write_file" {
		t.Errorf("after learning, %v: want files__write_file first (before: %v)", got, before)
	}
	if got := names(ix.Find(q, 8, nil)); !slices.Equal(got, before) {
		t.Errorf("without the Learned: %v, want %v", got, before)
	}
	off := NewWith(obviousDocs(), func() Params { p := DefaultParams; p.LearnedWeight = 0; return p }())
	if got := names(off.Find(q, 8, l)); !slices.Equal(got, before) {
		t.Errorf("LearnedWeight 0: %v, want %v", got, before)
	}
	// A word no tool has, learned, finds the tool on its own.
	l.Add("maps__maps_elevation", Query{Intent: "altimeter"})
	if got := names(ix.Find(Query{Keywords: []string{"altimeter"}}, 8, l)); !slices.Equal(got, []string{"maps__maps_elevation"}) {
		t.Errorf("a learned word no tool has: %v", got)
	}
	// Other tools' searches do not move a tool that learned nothing.
	if got := names(ix.Find(Query{Intent: "read a file"}, 1, l)); !slices.Equal(got, []string{"files__read_file"}) {
		t.Errorf("read a file: %v", got)
	}
}

// A Learned stays bounded: words per tool, tools in all (the most
// recently taught stay).
func TestLearnedBounded(t *testing.T) {
	l := NewLearned()
	for i := range maxLearnedWords + 10 {
		l.Add("a", Query{Intent: fmt.Sprintf("word%c%c", 'a'+i/26, 'a'+i%26)})
	}
	l.Add("a", Query{Intent: "wordaa"}) // taught twice: kept
	if n := len(l.tools["a"].words); n != maxLearnedWords {
		t.Errorf("%d words, want at most %d", n, maxLearnedWords)
	}
	if l.tools["a"].words["wordaa"] != 2 {
		t.Errorf("the most taught word went: %v", l.tools["a"].words)
	}
	for i := range maxLearnedTools + 5 {
		l.Add(fmt.Sprintf("tool%d", i), Query{Intent: "shared word"})
	}
	if l.Len() != maxLearnedTools {
		t.Errorf("%d tools, want %d", l.Len(), maxLearnedTools)
	}
	if l.tools["a"] != nil || l.tools["tool0"] != nil || l.tools[fmt.Sprintf("tool%d", maxLearnedTools+4)] == nil {
		t.Error("not the oldest tools dropped")
	}
	total := map[string]int{}
	for _, lt := range l.tools {
		for w := range lt.words {
			total[w]++
		}
	}
	for w, n := range total {
		if l.df[w] != n {
			t.Errorf("df[%s] = %d, %d tools hold it", w, l.df[w], n)
		}
	}
	if len(l.df) != len(total) {
		t.Errorf("df holds %d words, the tools %d", len(l.df), len(total))
	}
}
