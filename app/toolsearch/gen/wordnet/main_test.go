package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A small WordNet in the database's own format: the table keeps the
// first senses, synonyms and derived forms as near, hypernyms as far, only
// words of the vocabulary, and merges lemmas with the same terms.
func TestTableFromWordNetFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"index.noun": "  1 licence header line\n" +
			"sister n 1 1 @ 1 1 00000100  \n" +
			"memory n 1 1 + 1 1 00000300  \n" +
			"sibling n 1 0 1 0 00000200  \n",
		"data.noun": "  1 licence header line\n" +
			"00000100 18 n 01 sister 0 001 @ 00000200 n 0000 | a female sibling  \n" +
			"00000200 18 n 02 sibling 0 sib 0 000 | a brother or sister  \n" +
			"00000300 09 n 02 memory 0 remembering 0 001 + 00000400 v 0101 | the power of retaining  \n",
		"index.verb": "memorize v 2 1 + 2 1 00000400 00000500  \n" +
			"memorise v 1 1 + 1 0 00000400  \n",
		"data.verb": "00000400 31 v 02 memorize 0 memorise 0 001 + 00000300 n 0101 | commit to memory  \n" +
			"00000500 31 v 01 study 0 000 | a second sense  \n",
		"index.adj": "", "data.adj": "", "index.adv": "", "data.adv": "",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wn, err := load(dir, 1)
	if err != nil {
		t.Fatal(err)
	}
	vocab := map[string]bool{"sibl": true, "memory": true, "memoriz": true, "memoris": true, "study": true, "sib": true}
	got := wn.table(vocab)
	want := []string{
		"memoris\tmemoriz\t",        // a synonym; the derived noun is memorize's (word 1)
		"memoriz\tmemoris memory\t", // synonym, derived noun; "study" is a second sense
		"memory\tmemoriz\t",         // the derived verb's word 1, not "memorise"
		"sibl\tsib\t",               // terms, stemmed; no hypernym
		"sister\t\tsib sibl",        // the hypernym's words
	}
	if !slices.Equal(got, want) {
		t.Fatalf("table:\n%q\nwant\n%q", got, want)
	}
	if _, err := load(t.TempDir(), 1); err == nil {
		t.Fatal("an empty folder loaded")
	}
}
