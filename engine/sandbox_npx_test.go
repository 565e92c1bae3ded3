package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestNpxDirect: a sandboxed npx entry runs the bin of the package the
// warm-up installed in npx's cache (the folder npx names by the hash of
// the package specs), with the entry's arguments; an entry in another form,
// or whose package is not there, runs through npx as written.
func TestNpxDirect(t *testing.T) {
	home := testkit.TempDir(t, "npx-")
	// What "npx -y @s/pkg@1.0.0" installed, in the folder npm names it
	// (node -e: sha512 of the specs, sorted, one a line; hex, first 16).
	if got := npxHash([]string{"@s/pkg@1.0.0"}); got != "b47276c6770c34bf" {
		t.Fatalf("npxHash = %s, npm's is b47276c6770c34bf", got)
	}
	if got := npxHash([]string{"b", "a"}); got != "377f7c6560b237d3" {
		t.Fatalf("npxHash(b, a) = %s, npm's is 377f7c6560b237d3", got)
	}
	dir := filepath.Join(home, ".npm", "_npx", "b47276c6770c34bf")
	pkg := filepath.Join(dir, "node_modules", "@s", "pkg")
	bin := filepath.Join(dir, "node_modules", ".bin")
	for _, d := range []string{pkg, bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"@s/pkg","bin":{"pkg":"index.js","pkg-admin":"admin.js"}}`), 0o644)
	os.WriteFile(filepath.Join(pkg, "index.js"), []byte("#!/usr/bin/env node\n"), 0o755)
	os.Symlink("../@s/pkg/index.js", filepath.Join(bin, "pkg"))
	npx := &Launch{Path: "/usr/bin/npx", Resolved: "/usr/bin/npx"}
	if goosName == "windows" {
		// npx's cache holds .cmd shims there, and no sandbox runs npx.
		if got, ok := npxDirect(&Spec{Args: []string{"-y", "@s/pkg@1.0.0"}}, npx, nil, home); ok {
			t.Errorf("on Windows npx is rewritten to %q", got.Args)
		}
		return
	}
	for _, c := range []struct {
		args []string
		env  []string
		want []string // nil: npx as written
	}{
		{[]string{"-y", "@s/pkg@1.0.0", "--flag", "x"}, nil, []string{filepath.Join(bin, "pkg"), "--flag", "x"}},
		{[]string{"--yes", "--package=@s/pkg@1.0.0", "--", "pkg", "a"}, nil, []string{filepath.Join(bin, "pkg"), "a"}},
		{[]string{"-p", "@s/pkg@1.0.0", "pkg"}, nil, []string{filepath.Join(bin, "pkg")}},
		{[]string{"-y", "@s/pkg@1.0.0"}, []string{"npm_config_cache=" + filepath.Join(home, "elsewhere")}, nil},
		{[]string{"-y", "@s/pkg@2.0.0"}, nil, nil},                         // not warmed
		{[]string{"-y", "--registry=http://x/", "@s/pkg@1.0.0"}, nil, nil}, // an npm option
		{[]string{"-y", "--package=@s/pkg@1.0.0", "--", "pkg-admin"}, nil, nil},
		{[]string{"-y", "--package=@s/pkg@1.0.0", "--", "../x"}, nil, nil},
		{[]string{"-y"}, nil, nil},
	} {
		spec := &Spec{Name: "s", Command: "npx", Args: c.args}
		got, ok := npxDirect(spec, npx, c.env, home)
		if c.want == nil {
			if ok {
				t.Errorf("%q: runs %q; want npx as written", c.args, got.Args)
			}
			continue
		}
		if !ok || got.Path != c.want[0] || !slices.Equal(got.Args, c.want) {
			t.Errorf("%q: %+v, %v; want %q", c.args, got, ok, c.want)
		}
	}
	if _, ok := npxDirect(&Spec{Args: []string{"-y", "@s/pkg@1.0.0"}}, &Launch{Path: "/usr/bin/node", Resolved: "/usr/bin/node"}, nil, home); ok {
		t.Error("a command other than npx is rewritten")
	}
}

func TestNpmNameAndBin(t *testing.T) {
	for in, want := range map[string]string{
		"@modelcontextprotocol/server-everything":           "@modelcontextprotocol/server-everything",
		"@modelcontextprotocol/server-everything@2026.8.31": "@modelcontextprotocol/server-everything",
		"pkg@latest": "pkg", "pkg": "pkg",
		"user/repo": "", "./dir": "", "git+https://x/y.git": "", "@scope": "", "@/x": "", "": "",
	} {
		if got := npmName(in); got != want {
			t.Errorf("npmName(%q) = %q, want %q", in, got, want)
		}
	}
	dir := testkit.TempDir(t, "npm-")
	for _, c := range []struct{ manifest, want string }{
		{`{"bin":"cli.js"}`, "pkg"},
		{`{"bin":{"only":"a.js"}}`, "only"},
		{`{"bin":{"a":"x.js","b":"x.js"}}`, "a"},
		{`{"bin":{"a":"x.js","pkg":"y.js"}}`, "pkg"},
		{`{"bin":{"a":"x.js","b":"y.js"}}`, ""},
		{`{}`, ""},
	} {
		p := filepath.Join(dir, "package.json")
		os.WriteFile(p, []byte(c.manifest), 0o644)
		if got := npxBin(p, "@s/pkg"); got != c.want {
			t.Errorf("npxBin(%s) = %q, want %q", c.manifest, got, c.want)
		}
	}
}
