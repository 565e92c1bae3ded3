package host

import (
	"fmt"
	"testing"

	"github.com/switchboard-mcp/switchboard/engine"
)

// TestCommandIssue: the install remedy names the program behind a common
// launcher however the entry spells it, and is given only for a bare name
// not found in PATH.
func TestCommandIssue(t *testing.T) {
	for _, tc := range []struct{ command, program string }{
		{"npx", "Node.js"}, {"NPX.CMD", "Node.js"}, {"uvx", "uv"}, {"uv", "uv"}, {"docker", "Docker"},
		{"python3", "Python"}, {"sb-unknown", ""},
	} {
		p := CommandIssue("s", fmt.Errorf("wrapped: %w", notFoundErr(tc.command)))
		if p == nil || p.Remedy == nil || p.Remedy.Command != tc.command || p.Remedy.Program != tc.program || (tc.program != "") != (p.Remedy.URL != "") {
			t.Errorf("%s: %+v", tc.command, p)
		}
	}
	if p := CommandIssue("s", nil); p != nil {
		t.Errorf("no error: %+v", p)
	}
	if p := CommandIssue("s", fmt.Errorf("other")); p != nil {
		t.Errorf("another error: %+v", p)
	}
}

func notFoundErr(command string) error {
	return &engine.NotFoundError{Server: "s", Command: command, Path: "/nowhere"}
}
