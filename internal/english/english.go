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
