package toolsearch

import (
	"slices"
	"testing"
)

// Tests of the ranking parts added for recall (docs/toolsearch.md,
// "Raising recall"): each fails if its part is switched off or broken.

func TestOneEdit(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"screnshot", "screenshot", true}, // deletion
		{"screenshot", "screnshot", true}, // insertion
		{"scraep", "scrape", true},        // swap
		{"navigat", "navigate", true},
		{"commet", "comment", true},
		{"branch", "brunch", true}, // substitution
		{"branch", "branch", false},
		{"branch", "bench", false},
		{"pod", "pods2", false},
		{"", "a", true},
		{"ab", "ba", true},
		{"abc", "cab", false},
	} {
		if got := oneEdit(c.a, c.b); got != c.want {
			t.Errorf("oneEdit(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestQueryWordsDropGlue(t *testing.T) {
	got := queryWords("Tell me everything about the pod, thanks")
	if want := []string{"about", "pod"}; !slices.Equal(got, want) {
		t.Fatalf("queryWords = %q, want %q", got, want)
	}
	// Tools keep the words: a server may be called "everything".
	if got := terms("everything"); !slices.Equal(got, []string{stem("everything")}) {
		t.Fatalf("terms(everything) = %q", got)
	}
}

func TestQueryHintsShapes(t *testing.T) {
	for q, want := range map[string][]string{
		"list every page of docs.stripe.com":   {"url"},
		"show the README.md of facebook/react": {"file", stem("repository")},
		"fork golang/go":                       {stem("repository")},
		"open src/main.go":                     {"file"},
		"a/b and 10/12":                        nil,
		"/etc/hosts":                           nil,
	} {
		if got := queryHints(q); !slices.Equal(got, want) {
			t.Errorf("queryHints(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestGeneralSynonyms(t *testing.T) {
	for from, to := range map[string]string{
		"fetch":       "get",
		"retrieve":    "get",
		"modify":      "update",
		"popup":       "dialog",
		"xhr":         "request",
		"pods":        "container",
		"report":      "create",
		"kick off":    "start",
		"sql":         "query",
		"environment": "env",
	} {
		key := ""
		for i, t := range terms(from) {
			if i > 0 {
				key += " "
			}
			key += t
		}
		if !slices.Contains(synonyms[key], stem(to)) {
			t.Errorf("%q does not bring %q: %q", from, to, synonyms[key])
		}
	}
}

func TestTyposFindTools(t *testing.T) {
	docs := obviousDocs()
	if h := New(docs).Search("take a screnshot", 1); len(h) == 0 || h[0].Name != "browser__take_screenshot" {
		t.Fatalf("typo not matched: %v", h)
	}
	p := DefaultParams
	p.FuzzyWeight = 0
	p.SynonymWeight = 0
	if h := NewWith(docs, p).Search("screnshot", 1); len(h) != 0 {
		t.Fatalf("without fuzzy matching a typo found %v", h)
	}
}

func TestBackOffMeetsShorterWord(t *testing.T) {
	docs := []Doc{
		{Name: "gh__get_reviews", Server: "gh", Description: "Get the reviews on a pull request"},
		{Name: "gh__get_comments", Server: "gh", Description: "Get the comments on a pull request"},
	}
	if h := New(docs).Search("what did the reviewers say", 1); len(h) == 0 || h[0].Name != "gh__get_reviews" {
		t.Fatalf("reviewers did not meet review: %v", h)
	}
	p := DefaultParams
	p.BackOff = false
	p.LexNear, p.LexFar = 0, 0 // WordNet knows reviewer and review too
	if h := NewWith(docs, p).Search("reviewers", 1); len(h) != 0 {
		t.Fatalf("without back-off, reviewers found %v", h)
	}
}

func TestPhraseBoostPrefersAdjacentWords(t *testing.T) {
	docs := []Doc{
		{Name: "a__one", Server: "a", Description: "request the pull of a branch"},
		{Name: "a__two", Server: "a", Description: "pull request of a branch"},
	}
	h := New(docs).Search("pull request", 2)
	if len(h) != 2 || h[0].Name != "a__two" {
		t.Fatalf("adjacent words not preferred: %v", h)
	}
	p := DefaultParams
	p.PhraseBoost = 0
	if h := NewWith(docs, p).Search("pull request", 2); len(h) != 2 || h[0].Score != h[1].Score {
		t.Fatalf("without the phrase boost the two should tie: %v", h)
	}
	if got := pairsOf("Create a new pull request"); !got["pull request"] || !got[stem("create")+" new"] || got[stem("create")+" pull"] {
		t.Fatalf("pairsOf = %v", got)
	}
}

func TestServerNameIsItsOwnField(t *testing.T) {
	docs := []Doc{
		{Name: "google-maps__maps_search_places", Server: "google-maps", Description: "Search for places using the Places API"},
		{Name: "web__web_search", Server: "web", Description: "Search the web for any topic"},
	}
	ix := New(docs)
	if h := ix.Search("google this on the web", 1); len(h) == 0 || h[0].Name != "web__web_search" {
		t.Fatalf("the server word google outweighed web: %v", h)
	}
	if h := ix.Search("search google maps", 1); len(h) == 0 || h[0].Name != "google-maps__maps_search_places" {
		t.Fatalf("the server's name does not count: %v", h)
	}
	// The exposed name's SERVER__ prefix is not counted twice.
	var server [numAll]float64
	server[fieldServer] = 1 // once, in the server's field only
	if post := ix.post[stem("google")]; len(post) != 1 || post[0].doc != 0 || post[0].tf != ix.fieldTF(0, server) {
		t.Fatalf("google: postings %v; want doc 0 with tf %v (the server field's, once)", post, ix.fieldTF(0, server))
	}
}
