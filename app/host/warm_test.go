package host

import (
	"slices"
	"testing"

	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

func TestNpxWarmArgs(t *testing.T) {
	tail := []string{"--", "node", "-e", "0"}
	cases := []struct {
		args []string
		want []string // nil: no warm-up
		pkgs []string
	}{
		{[]string{"-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"},
			append([]string{"--yes", "--package=@modelcontextprotocol/server-everything@2026.8.31"}, tail...),
			[]string{"@modelcontextprotocol/server-everything@2026.8.31"}},
		{[]string{"server-x"}, append([]string{"--yes", "--package=server-x"}, tail...), []string{"server-x"}},
		// npm options are kept, with their value in either form.
		{[]string{"--registry", "https://npm.example/", "-y", "pkg", "--registry", "ignored"},
			append([]string{"--yes", "--package=pkg", "--registry=https://npm.example/"}, tail...), []string{"pkg"}},
		{[]string{"--prefer-offline", "--loglevel=silent", "pkg@1"},
			append([]string{"--yes", "--package=pkg@1", "--prefer-offline", "--loglevel=silent"}, tail...), []string{"pkg@1"}},
		// --package names the packages; the command after them is not one.
		{[]string{"-y", "-p", "a", "--package=b", "run-a", "arg"},
			append([]string{"--yes", "--package=a", "--package=b"}, tail...), []string{"a", "b"}},
		{[]string{"-p", "a", "-c", "a-cli serve"}, append([]string{"--yes", "--package=a"}, tail...), []string{"a"}},
		{[]string{"-y", "--", "pkg", "x"}, append([]string{"--yes", "--package=pkg"}, tail...), []string{"pkg"}},
		// Installing is forbidden, or there is nothing to fetch.
		{[]string{"--no", "pkg"}, nil, nil},
		{[]string{"--no-install", "pkg"}, nil, nil},
		{[]string{"--offline", "pkg"}, nil, nil},
		{[]string{"-y"}, nil, nil},
		{[]string{"-c", "echo hi"}, nil, nil},
	}
	for _, c := range cases {
		got, pkgs, ok := npxWarmArgs(c.args)
		if ok != (c.want != nil) || !slices.Equal(got, c.want) || !slices.Equal(pkgs, c.pkgs) {
			t.Errorf("npxWarmArgs(%q) = %q, %q, %v; want %q, %q", c.args, got, pkgs, ok, c.want, c.pkgs)
		}
	}
}

func TestWarmSpec(t *testing.T) {
	for cmd, want := range map[string]bool{
		"npx": true, "/usr/bin/npx": true, `C:\Program Files\nodejs\npx.cmd`: true, "NPX.CMD": true,
		"node": false, "uvx": false, "npx-something": false, "npm": false,
	} {
		if _, _, _, ok := warmSpec(engine.Spec{Command: cmd, Args: []string{"-y", "pkg"}}); ok != want {
			t.Errorf("warmSpec of command %q: warms %v, want %v", cmd, ok, want)
		}
	}
	spec := engine.Spec{Name: "gh", Command: "npx", Args: []string{"-y", "pkg"}, Env: map[string]engine.EnvValue{
		"PLAIN":  engine.Literal("1"),
		"TOKEN":  engine.SecretRef("gh-token"),
		"BEARER": {{Text: "Bearer "}, {Secret: "gh-token"}},
	}}
	ws, key, _, ok := warmSpec(spec)
	if !ok {
		t.Fatal("no warm-up for an npx entry")
	}
	// The warm-up never gets the entry's secrets.
	if _, has := ws.Env["TOKEN"]; has || ws.Env["BEARER"] != nil || ws.Env["PLAIN"] == nil {
		t.Errorf("warm-up env = %v; want PLAIN only", ws.Env)
	}
	if ws.Stderr.Kind != engine.StderrCapture {
		t.Errorf("warm-up stderr = %v; want captured", ws.Stderr)
	}
	// The key follows the package and ignores the secrets' values (it
	// never sees them) and what the server is called.
	spec2 := spec
	spec2.Name = "other"
	if _, k2, _, _ := warmSpec(spec2); k2 != key {
		t.Errorf("key changed with the server's name: %s vs %s", k2, key)
	}
	spec2.Args = []string{"-y", "pkg@2"}
	if _, k2, _, _ := warmSpec(spec2); k2 == key {
		t.Errorf("key did not change with the package")
	}
}

// TestWarmSandboxedOutside: a sandboxed npx entry is warmed outside the
// sandbox (the server may only read the npx cache, so the host fills it)
// with the package's install scripts off, so that no code of the package
// runs unconfined; an unconfined entry's warm-up is left as it was.
func TestWarmSandboxedOutside(t *testing.T) {
	spec := engine.Spec{Name: "x", Command: "npx", Args: []string{"-y", "@acme/server"},
		Sandbox: sandbox.Policy{Enabled: true, Preset: "strict", Net: sandbox.NetNone, Required: true}}
	ws, _, _, ok := warmSpec(spec)
	if !ok {
		t.Fatal("an npx entry needs no warm-up")
	}
	if ws.Sandbox.Enabled {
		t.Errorf("the warm-up runs in the sandbox, whose npx cache is read-only: %+v", ws.Sandbox)
	}
	if v := ws.Env["npm_config_ignore_scripts"]; len(v) != 1 || v[0].Text != "true" {
		t.Errorf("the warm-up of a sandboxed entry runs install scripts: env %v", ws.Env)
	}
	spec.Sandbox = sandbox.Policy{}
	ws, _, _, _ = warmSpec(spec)
	if _, set := ws.Env["npm_config_ignore_scripts"]; set {
		t.Errorf("an unconfined entry's warm-up changed: %v", ws.Env)
	}
}
