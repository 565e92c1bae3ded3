package configedit

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

const file = `{
  "version": 1,
  "mcpServers": {
    "a": {"command": "/bin/a"},
    "files": {
      "x-mine": {"keep": true},
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
      "env": {"TOKEN": "${keyring:files-TOKEN}", "PLAIN": "v"},
      "tools": {"allow": ["read_*"], "deny": ["read_secret"]},
      "callTimeout": 1000
    },
    "z": {"command": "/bin/z"}
  },
  "x-top": 1
}
`

func parse(t *testing.T) *config.File {
	t.Helper()
	f, err := config.Parse([]byte(file))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func code(err error) string {
	var he *hostapi.Error
	if errors.As(err, &he) {
		return he.Code
	}
	return ""
}

// TestRename renames an entry: the key changes in its place, every key of
// the entry stays as written (an unknown one, the tool filter, the
// secret reference), and the rest of the file is untouched.
func TestRename(t *testing.T) {
	f := parse(t)
	if err := Rename(f, "files", "docs"); err != nil {
		t.Fatal(err)
	}
	if got := f.Names(); !slices.Equal(got, []string{"a", "docs", "z"}) {
		t.Fatalf("names after the rename: %v", got)
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(file, `"files": {`, `"docs": {`, 1)
	g, _ := config.Parse(out)
	w, _ := config.Parse([]byte(want))
	gb, _ := g.Marshal()
	wb, _ := w.Marshal()
	if string(gb) != string(wb) {
		t.Fatalf("after the rename:\n%s\nwant:\n%s", gb, wb)
	}
	if refs := f.Servers["docs"].SecretRefs(); !slices.Equal(refs, []string{"files-TOKEN"}) {
		t.Fatalf("the secret references changed: %v", refs)
	}
	if r := f.Check(); len(r.Problems()) > 0 {
		t.Fatalf("the renamed file has problems: %v", r.Problems())
	}
	// The same name: no change, no error.
	if err := Rename(f, "docs", "docs"); err != nil {
		t.Fatalf("a rename to the same name: %v", err)
	}
}

// TestRenameRefused names each refusal's code and changes nothing.
func TestRenameRefused(t *testing.T) {
	for _, c := range []struct {
		old, new, code, msg string
	}{
		{"nope", "b", hostapi.CodeNotFound, `"nope" is not in the config; 'switchboard status'`},
		{"fiels", "b", hostapi.CodeNotFound, `"fiels" is not in the config (did you mean "files"?)`},
		{"files", "a", hostapi.CodeAlreadyExists, `a server named "a" already exists`},
		{"files", "Bad_Name", hostapi.CodeInvalidName, `for example "bad-name"`},
		{"files", "", hostapi.CodeInvalidName, "is invalid"},
	} {
		f := parse(t)
		before, _ := f.Marshal()
		err := Rename(f, c.old, c.new)
		if code(err) != c.code || err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Rename(%q, %q): %v (code %q), want code %q and %q", c.old, c.new, err, code(err), c.code, c.msg)
		}
		if c.code != hostapi.CodeNotFound {
			var he *hostapi.Error
			if errors.As(err, &he) && (len(he.Problems) != 1 || he.Problems[0].Key != hostapi.KeyName) {
				t.Errorf("Rename(%q, %q): the problem does not name the name field: %+v", c.old, c.new, he.Problems)
			}
		}
		after, _ := f.Marshal()
		if string(before) != string(after) {
			t.Errorf("a refused rename changed the file:\n%s", after)
		}
	}
}

func TestSetToolPolicyKeepsEverything(t *testing.T) {
	f, err := config.Parse([]byte(`{"mcpServers": {"fs": {"command": "echo", "x-note": "kept", "policy": {"default": "ask", "tools": {"read_*": "allow"}}}}, "other": [1]}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := SetToolPolicy(f, "fs", "delete_file", config.PolicyAllow); err != nil {
		t.Fatal(err)
	}
	if err := SetToolPolicy(f, "nope", "t", config.PolicyAllow); err == nil {
		t.Fatal("a policy was set on a server not in the config")
	}
	out, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	g, err := config.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	p := g.Servers["fs"].Policy
	if p == nil || p.Default != "ask" || p.Tools["read_*"] != "allow" || p.Tools["delete_file"] != "allow" {
		t.Fatalf("policy after the edit: %+v\n%s", p, out)
	}
	for _, keep := range []string{`"x-note": "kept"`, `"other": [`} {
		if !strings.Contains(string(out), keep) {
			t.Errorf("the edit lost %s:\n%s", keep, out)
		}
	}
}
