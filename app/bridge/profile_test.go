package bridge

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestParseArgsProfile: --profile in both spellings, beside the other
// flags, and into the preamble's filter.
func TestParseArgsProfile(t *testing.T) {
	for _, args := range [][]string{
		{"bridge", "--profile", "coding", "--servers", "git"},
		{"--profile=coding", "--servers=git"},
	} {
		a, err := ParseArgs(args)
		if err != nil || a.Filter.Profile != "coding" || !slices.Equal(a.Filter.Servers, []string{"git"}) {
			t.Errorf("%q: %+v %v", args, a, err)
		}
		if a.Filter.IsZero() {
			t.Errorf("%q: a filter with a profile is zero", args)
		}
	}
	if _, err := ParseArgs([]string{"--profile"}); err == nil || !strings.Contains(err.Error(), "needs a value") {
		t.Errorf("--profile without a value: %v", err)
	}
	b := helloBytes(Hello{Filter: Filter{Profile: "coding"}})
	var h helloLine
	if err := json.Unmarshal(b, &h); err != nil || h.Switchboard.Profile != "coding" || !strings.Contains(string(b), `"profile":"coding"`) {
		t.Errorf("the preamble: %s %v", b, err)
	}
	if IsZero := (Filter{}).IsZero(); !IsZero {
		t.Error("the empty filter is not zero")
	}
}
