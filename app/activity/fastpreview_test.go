package activity

import (
	"strings"
	"testing"
)

// TestFastPreviewAgrees: where the fast path answers, it answers what the
// token-by-token path does; it stands aside for escapes, secrets, U+2028,
// invalid UTF-8, prefixes and arguments that do not fit.
func TestFastPreviewAgrees(t *testing.T) {
	r := NewRedactor(map[string]string{"TOKEN": "sk-canary-123"})
	for _, c := range []struct {
		args string
		fast bool
	}{
		{`{"a": 1, "b": [true, null, 2.50, "x y"], "c": {"d": "é"}}`, true},
		{`  [1,2,3]  `, true},
		{`"just a string"`, true},
		{`{"k":"<b>&amp;</b>"}`, true},
		{`{"dup":1,"dup":2}`, true},
		{`{"a":"sk-canary-123"}`, false},
		{`{"sk-canary-123":1}`, false},
		{`{"a":"\u0073k-canary-123"}`, false},
		{`{"a":"line\nbreak"}`, false},
		{"{\"a\":\"\u2028\"}", false},
		{"{\"a\":\"\xff\"}", false},
		{`{"a":"` + strings.Repeat("x", PreviewLimit) + `"}`, false},
		{`{"a":`, false},
		{`not json`, false},
	} {
		got, ok := fastPreview([]byte(c.args), true, r)
		if ok != c.fast {
			t.Errorf("%.60q: fast %v, want %v", c.args, ok, c.fast)
			continue
		}
		if !ok {
			continue
		}
		p := previewer{r: r}
		want, _ := p.run([]byte(c.args), true)
		if got != want {
			t.Errorf("%.60q: fast %q, tokens %q", c.args, got, want)
		}
	}
	if _, ok := fastPreview([]byte(`{"a":1}`), false, r); ok {
		t.Error("the fast path took a copied prefix")
	}
}
