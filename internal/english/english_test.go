package english

import "testing"

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n      int
		noun   string
		plural []string
		want   string
	}{
		{0, "client", nil, "0 clients"},
		{1, "client", nil, "1 client"},
		{2, "client", nil, "2 clients"},
		{1, "process", nil, "1 process"},
		{3, "process", nil, "3 processes"},
		{2, "match", nil, "2 matches"},
		{2, "entry", nil, "2 entries"},
		{2, "key", nil, "2 keys"},
		{1, "value looks like a secret", []string{"values look like secrets"}, "1 value looks like a secret"},
		{4, "value looks like a secret", []string{"values look like secrets"}, "4 values look like secrets"},
		{-1, "thing", nil, "-1 things"},
	} {
		if got := Plural(tc.n, tc.noun, tc.plural...); got != tc.want {
			t.Errorf("Plural(%d, %q, %q) = %q, want %q", tc.n, tc.noun, tc.plural, got, tc.want)
		}
	}
}

func TestList(t *testing.T) {
	for _, tc := range []struct {
		items   []string
		and, or string
	}{
		{nil, "", ""},
		{[]string{"a"}, "a", "a"},
		{[]string{"a", "b"}, "a and b", "a or b"},
		{[]string{"argv", "bad8", "late"}, "argv, bad8 and late", "argv, bad8 or late"},
		{[]string{"a", "b", "c", "d"}, "a, b, c and d", "a, b, c or d"},
	} {
		if got := List(tc.items); got != tc.and {
			t.Errorf("List(%q) = %q, want %q", tc.items, got, tc.and)
		}
		if got := ListOr(tc.items); got != tc.or {
			t.Errorf("ListOr(%q) = %q, want %q", tc.items, got, tc.or)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"everything", "files", "github", "git"}
	for _, c := range []struct{ word, want string }{
		{"evrything", "everything"},
		{"everyhting", "everything"}, // a transposition is one edit
		{"Files", "files"},
		{"fils", "files"},
		{"everything", ""}, // there: no guess
		{"gti", "git"},
		{"gitub", "github"},
		{"xyz", ""}, // nothing near
		{"gi", ""},  // one edit of "git" is half of "gi": too far to guess
		{"fetch", ""},
	} {
		if got := Nearest(c.word, names); got != c.want {
			t.Errorf("Nearest(%q) = %q, want %q", c.word, got, c.want)
		}
	}
	if got := Nearest("abcx", []string{"abcd", "abce"}); got != "" {
		t.Errorf("two as near: Nearest = %q, want no guess", got)
	}
	if got := DidYouMean("evrything", names); got != ` (did you mean "everything"?)` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := DidYouMean("xyz", names); got != "" {
		t.Errorf("DidYouMean with nothing near = %q", got)
	}
}
