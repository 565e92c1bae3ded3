// Package english writes counts and lists in the sentences Switchboard
// shows a person: "1 client", "2 clients", "a, b and c". One place, so
// that no message says "1 clients" or "a and b and c".
package english

import (
	"fmt"
	"strings"
)

// Plural returns n and the noun, in the singular when n is 1: Plural(1,
// "client") is "1 client", Plural(3, "client") "3 clients". The plural is
// made by the usual rule (+s; +es after s, x, z, ch, sh; y after a
// consonant becomes ies) unless it is given: Plural(2, "value looks like a
// secret", "values look like secrets") is "2 values look like secrets".
func Plural(n int, noun string, plural ...string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, noun)
	}
	if len(plural) > 0 {
		return fmt.Sprintf("%d %s", n, plural[0])
	}
	return fmt.Sprintf("%d %s", n, Plurals(noun))
}

// Plurals is the plural of a noun by the usual rule (see Plural).
func Plurals(noun string) string {
	switch {
	case noun == "":
		return noun
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !strings.ContainsRune("aeiou", rune(noun[len(noun)-2])):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

// List joins items as a sentence does: "a", "a and b", "a, b and c"
// (no serial comma); "" for none.
func List(items []string) string {
	return join(items, "and")
}

// ListOr is List with "or": "a, b or c".
func ListOr(items []string) string {
	return join(items, "or")
}

func join(items []string, word string) string {
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + word + " " + items[len(items)-1]
}

// Nearest returns the word of among that word is probably a misspelling
// of, for a "did you mean" in a message: the nearest within two edits (an
// adjacent transposition is one; case aside), provided the edits are fewer
// than half the word's length, and the only one that near; else "".
// Nearest("evrything", ["everything", "files"]) is "everything".
func Nearest(word string, among []string) string {
	lw := strings.ToLower(word)
	best, bestD, n := "", 0, 0
	for _, w := range among {
		if w == word {
			return "" // there, so not a misspelling
		}
		d := EditDistance(lw, strings.ToLower(w))
		if d > 2 || 2*d >= len(word) {
			continue
		}
		switch {
		case best == "" || d < bestD:
			best, bestD, n = w, d, 1
		case d == bestD:
			n++
		}
	}
	if n != 1 {
		return "" // none, or two as near: no guess
	}
	return best
}

// DidYouMean is " (did you mean "W"?)" for the word of among that word
// is probably a misspelling of (Nearest), or "".
func DidYouMean(word string, among []string) string {
	if w := Nearest(word, among); w != "" {
		return fmt.Sprintf(" (did you mean %q?)", w)
	}
	return ""
}

// EditDistance is the optimal string alignment distance of a and b (an
// adjacent transposition counts as one edit).
func EditDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
