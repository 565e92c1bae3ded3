package gateway

import (
	"strings"
	"testing"
)

func TestCleanClientName(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	for _, c := range []struct{ in, want string }{
		{"claude-ai", "claude-ai"},
		{"  Visual Studio Code \n", "Visual Studio Code"},
		{"evil\x1b[31mred\x07", "evil[31mred"},
		{"bad\xffutf8", "badutf8"},
		{"\t\r\n", ""},
		{long, strings.Repeat("é", 32)}, // cut at 64 bytes, on a rune's start
		{"a" + long, "a" + strings.Repeat("é", 31)},
	} {
		if got := cleanClientName(c.in); got != c.want {
			t.Errorf("cleanClientName(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
