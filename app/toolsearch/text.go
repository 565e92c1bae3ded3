package toolsearch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// terms splits text into index terms: words split on anything that is not
// a letter or a digit and on camelCase humps (so "get_file_contents",
// "getFileContents" and "get-file-contents" give the same terms),
// lowercased, stop words dropped, lightly stemmed.
func terms(text string) []string {
	var out []string
	for _, w := range words(text) {
		w = strings.ToLower(w)
		if stop[w] || len(w) == 1 && w[0] >= 'a' && w[0] <= 'z' {
			continue // a single letter: "what's", "pod(s)", "you'd"
		}
		out = append(out, stem(w))
	}
	return out
}

// queryWords are the terms of a request: terms, less the words that
// carry no request of their own ("tell me everything about...",
// "give me something"). Tools keep these words: a server may be called
// "everything".
func queryWords(query string) []string {
	var out []string
	for _, w := range words(withoutExtensions(query)) {
		if queryGlue[strings.ToLower(w)] {
			continue
		}
		for _, t := range terms(w) {
			if !queryStop[t] {
				out = append(out, t)
			}
		}
	}
	return out
}

// queryGlue are the words of indirect requests ("did anyone...", "is
// there still...", "what's going on with...") that ask for nothing, as
// written: "going" is not "go" (navigate).
var queryGlue = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`going anyone anybody someone somebody whether ever still already yet
		lately`) {
		m[w] = true
	}
	return m
}()

// queryStop are words of requests that name no action nor thing, stemmed.
var queryStop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`everything anything something nothing thing things stuff tell give
		know hey thanks thank okay ok kindly quickly really actually maybe
		currently`) {
		m[stem(w)] = true
	}
	return m
}()

// words splits on non-alphanumerics and camelCase boundaries: "HTTPServer"
// is HTTP and Server, "readFile2" is read and File2.
func words(text string) []string {
	var out []string
	start := -1
	var prev rune
	flush := func(end int) {
		if start >= 0 && end > start {
			out = append(out, text[start:end])
		}
		start = -1
	}
	for i, r := range text {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			flush(i)
			prev = 0
			continue
		}
		if start < 0 {
			start = i
		} else if unicode.IsUpper(r) {
			if unicode.IsLower(prev) {
				flush(i)
				start = i
			} else if unicode.IsUpper(prev) {
				// The last capital of a run starts the next word: HTTPServer.
				next, _ := utf8.DecodeRuneInString(text[i+utf8.RuneLen(r):])
				if unicode.IsLower(next) {
					flush(i)
					start = i
				}
			}
		}
		prev = r
	}
	flush(len(text))
	return out
}

// stem is a light English suffix stripper (plural, -ing, -ed, a final e),
// applied alike to tools and queries: what matters is that "creates",
// "creating", "created" and "create" meet.
func stem(w string) string {
	if len(w) <= 3 || !isASCIILetters(w) || keep[w] {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "zes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ing") && len(w) > 5:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ed") && len(w) > 4:
		w = undouble(w[:len(w)-2])
	}
	if len(w) > 4 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns "runn" (of running) into "run", but keeps "ll" and "ss".
func undouble(w string) string {
	n := len(w)
	if n >= 2 && w[n-1] == w[n-2] && !strings.ContainsRune("lsaeiouy", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func isASCIILetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}

// stop words: the glue of a request ("can you show me all the ...") that
// would otherwise match every long description.
var stop = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by can could do does did for from
		had has have he her here him his how i if in into is it its it's just let let's me my
		no not of on or our please she should so some such than that the their them then there
		these they this those to too us was we were what when where which who whom why will
		with would you your yours i'm i'd i'll want need like also any all via
		ve re ll don didn doesn isn aren wasn weren haven hasn hadn couldn wouldn shouldn`) {
		m[w] = true
	}
	return m
}()

// keep are words the suffix rules would break: "news" is not "new".
var keep = map[string]bool{"news": true, "series": true, "species": true, "always": true, "perhaps": true,
	"canvas": true, "alias": true, "bias": true, "atlas": true, "chaos": true, "lens": true, "https": true, "kubernetes": true}

// Terms are the index terms of text, as the index makes them (for the
// table generator of gen/wordnet).
func Terms(text string) []string { return terms(text) }
