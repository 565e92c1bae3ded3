package toolsearch

import (
	"slices"
	"testing"
)

func TestWordsSplitsNames(t *testing.T) {
	for in, want := range map[string][]string{
		"get_file_contents":       {"get", "file", "contents"},
		"get-file-contents":       {"get", "file", "contents"},
		"getFileContents":         {"get", "File", "Contents"},
		"HTTPServer":              {"HTTP", "Server"},
		"API-retrieve-a-page":     {"API", "retrieve", "a", "page"},
		"github__create_issue":    {"github", "create", "issue"},
		"read config.yaml, then!": {"read", "config", "yaml", "then"},
		"o200k":                   {"o200k"},
		"":                        nil,
		"café_crème":              {"café", "crème"},
	} {
		if got := words(in); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStemMeetsForms(t *testing.T) {
	groups := [][]string{
		{"create", "creates", "creating", "created"},
		{"file", "files"},
		{"directory", "directories"},
		{"run", "running", "runs"},
		{"search", "searches", "searching", "searched"},
		{"repository", "repositories"},
	}
	for _, g := range groups {
		for _, w := range g[1:] {
			if stem(w) != stem(g[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q: want the same", w, stem(w), g[0], stem(g[0]))
			}
		}
	}
	for _, w := range []string{"news", "status", "address", "https"} {
		if s := stem(w); len(s) < len(w)-1 {
			t.Errorf("stem(%q) = %q: cut too much", w, s)
		}
	}
	if stem("news") == stem("new") {
		t.Error(`"news" and "new" stem alike`)
	}
}

func TestTermsDropStopWords(t *testing.T) {
	got := terms("Can you show me all the files in my folder?")
	want := []string{"show", "file", "folder"}
	if !slices.Equal(got, want) {
		t.Fatalf("terms = %q, want %q", got, want)
	}
}

func TestQueryHints(t *testing.T) {
	for q, want := range map[string][]string{
		"open https://example.com now": {"url"},
		"read notes.txt":               {"file"},
		"post it to #releases":         {"channel"},
		"version 1.2 please":           nil,
		"what is e.g. this":            nil,
	} {
		if got := queryHints(q); !slices.Equal(got, want) {
			t.Errorf("queryHints(%q) = %q, want %q", q, got, want)
		}
	}
}

func TestSynonymsAreStemmedAndPhrased(t *testing.T) {
	if !slices.Contains(synonyms[stem("folder")], stem("directory")) {
		t.Errorf("folder does not bring directory: %q", synonyms[stem("folder")])
	}
	if !slices.Contains(synonyms["sea level"], stem("elevation")) {
		t.Errorf(`the phrase "sea level" does not bring elevation: %q`, synonyms["sea level"])
	}
	if got := synonyms[stem("pr")]; !slices.Contains(got, "pull") || !slices.Contains(got, "request") {
		t.Errorf("pr brings %q, want pull and request", got)
	}
}

func TestQueryWordsShapesAndGlue(t *testing.T) {
	for q, want := range map[string][]string{
		"show me the text of main.go":               {"show", "text", "main"},
		"watch acme.com for changes":                {"watch", "acme", stem("changes")},
		"fetch https://docs.stripe.com/api":         {"fetch", stem("docs"), stem("stripe"), "api"},
		"did anyone still mention what's going on?": {stem("mention")},
		"you've got it, don't you":                  {"got"},
	} {
		if got := queryWords(q); !slices.Equal(got, want) {
			t.Errorf("queryWords(%q) = %q, want %q", q, got, want)
		}
	}
}
