package host

import (
	"fmt"
	"strings"
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
		p := CommandIssue("s", nil, fmt.Errorf("wrapped: %w", notFoundErr(tc.command)))
		if p == nil || p.Remedy == nil || p.Remedy.Command != tc.command || p.Remedy.Program != tc.program || (tc.program != "") != (p.Remedy.URL != "") ||
			p.Key != "command" || p.Remedy.EntryPATH {
			t.Errorf("%s: %+v", tc.command, p)
		}
	}
	// An entry with a PATH of its own was looked up there: the issue is
	// at env.PATH, and the remedy says so.
	env := map[string]engine.EnvValue{"PATH": engine.Literal("/opt/bin")}
	if p := CommandIssue("s", env, notFoundErr("npx")); p == nil || p.Key != "env.PATH" || p.Remedy == nil || !p.Remedy.EntryPATH ||
		p.Remedy.Program != "Node.js" || !strings.Contains(p.Fact, "the PATH the entry sets (env.PATH)") || !strings.Contains(p.Remedy.Text, "the entry's env.PATH") {
		t.Errorf("with the entry's PATH: %+v %+v", p, p.Remedy)
	}
	if p := CommandIssue("s", nil, nil); p != nil {
		t.Errorf("no error: %+v", p)
	}
	if p := CommandIssue("s", nil, fmt.Errorf("other")); p != nil {
		t.Errorf("another error: %+v", p)
	}
}

func notFoundErr(command string) error {
	return &engine.NotFoundError{Server: "s", Command: command, Path: "/nowhere"}
}
