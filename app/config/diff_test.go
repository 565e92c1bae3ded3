package config

import (
	"reflect"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	const base = `{"mcpServers": {
		"a": {"command": "node", "args": ["a.js"], "env": {"K": "${keyring:k}"}},
		"b": {"command": "node", "args": ["b.js"]},
		"c": {"command": "node", "disabled": true},
		"d": {"command": "node", "cwd": "relative"},
		"r": {"url": "https://example.com/mcp"}
	}}`
	parse := func(doc string) *File {
		t.Helper()
		f, err := Parse([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	tests := []struct {
		name                    string
		old, new                string // old "" means nil
		added, removed, changed []string
	}{
		{"identical", base, base, nil, nil, nil},
		{"reordered, reformatted, a default written out, an unknown key added", base, `{"version": 1, "x": 1, "mcpServers": {
			"b": {"args": ["b.js"], "command": "node", "termGrace": 2000, "maxMessageBytes": 8388608, "stderr": "capture"},
			"a": {"note": "hi", "env": {"K": "${keyring:k}"}, "command": "node", "args": ["a.js"], "inheritEnv": []},
			"c": {"command": "node", "disabled": true}, "d": {"command": "node", "cwd": "relative"}, "r": {"url": "https://example.com/mcp"}}}`,
			nil, nil, nil},
		{"args changed", base, replace(base, `["a.js"]`, `["a.js", "--v"]`), nil, nil, []string{"a"}},
		{"secret reference changed", base, replace(base, `${keyring:k}`, `${keyring:k2}`), nil, nil, []string{"a"}},
		{"explicit 0 is not the default", base, replace(base, `["b.js"]}`, `["b.js"], "termGrace": 0}`), nil, nil, []string{"b"}},
		{"a limit changed", base, replace(base, `["b.js"]}`, `["b.js"], "maxReconnects": 7}`), nil, nil, []string{"b"}},
		{"callTimeout and tools need no restart", base, replace(base, `["b.js"]}`, `["b.js"], "callTimeout": 5, "tools": {"deny": ["x"]}}`), nil, nil, nil},
		{"added", base, replace(base, `"r":`, `"e": {"command": "x"}, "r":`), []string{"e"}, nil, nil},
		{"removed", base, replace(base, `"b": {"command": "node", "args": ["b.js"]},`, ``), nil, []string{"b"}, nil},
		{"disabled counts as removed", base, replace(base, `"args": ["b.js"]`, `"args": ["b.js"], "disabled": true`), nil, []string{"b"}, nil},
		{"enabled counts as added", base, replace(base, `"disabled": true`, `"disabled": false`), []string{"c"}, nil, nil},
		{"fixed counts as added", base, replace(base, `"relative"`, `"/"`), []string{"d"}, nil, nil},
		{"broken counts as removed", base, replace(base, `["a.js"]`, `"a.js"`), nil, []string{"a"}, nil},
		{"a disabled entry's change is nothing", base, replace(base, `"disabled": true`, `"disabled": true, "args": ["new"]`), nil, nil, nil},
		{"remote stays out", base, replace(base, `example.com`, `example.org`), nil, nil, nil},
		{"renamed", base, replace(base, `"b":`, `"b2":`), []string{"b2"}, []string{"b"}, nil},
		{"everything at once", base, `{"mcpServers": {"a": {"command": "deno"}, "c": {"command": "node"}, "z": {"command": "z"}}}`,
			[]string{"c", "z"}, []string{"b"}, []string{"a"}},
		{"first load", "", base, []string{"a", "b"}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var old *File
			if tt.old != "" {
				old = parse(tt.old)
			}
			added, removed, changed := Diff(old, parse(tt.new))
			if !reflect.DeepEqual(added, tt.added) || !reflect.DeepEqual(removed, tt.removed) || !reflect.DeepEqual(changed, tt.changed) {
				t.Errorf("Diff = added %v, removed %v, changed %v; want %v, %v, %v", added, removed, changed, tt.added, tt.removed, tt.changed)
			}
		})
	}
}

func replace(s, old, new string) string {
	i := strings.Index(s, old)
	if i < 0 {
		panic("replace: " + old + " not found")
	}
	return s[:i] + new + s[i+len(old):]
}
