package bundle

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestParseManifestVersions: a minimal manifest of each version, and an
// old .dxt one with dxt_version, parses without a problem; uv needs 0.4
// and may leave out mcp_config.
func TestParseManifestVersions(t *testing.T) {
	for _, v := range []string{"0.1", "0.2", "0.3", "0.4"} {
		for _, key := range []string{"manifest_version", "dxt_version"} {
			m, ps := ParseManifest([]byte(strings.Replace(goodManifest, `"manifest_version":"0.3"`, fmt.Sprintf("%q:%q", key, v), 1)))
			if len(ps) != 0 || m.ManifestVersion != v || m.Name != "demo" || m.Server.MCPConfig.Command.Command != "node" {
				t.Errorf("%s %s: %+v %v", key, v, m, ps)
			}
		}
	}
	uv := `{"manifest_version":"0.4","name":"u","version":"1","description":"d","author":{"name":"a"},"server":{"type":"uv","entry_point":"src/server.py"}}`
	if m, ps := ParseManifest([]byte(uv)); len(ps) != 0 || m.Server.Type != "uv" || m.Server.MCPConfig != nil {
		t.Errorf("uv 0.4: %+v %v", m, ps)
	}
	_, ps := ParseManifest([]byte(strings.Replace(uv, `"0.4"`, `"0.3"`, 1)))
	want := Problems{{Key: "server.type", Message: `"uv" needs manifest_version 0.4: raise manifest_version or use python`}}
	if !slices.Equal(ps, want) {
		t.Errorf("uv 0.3:\n got %v\nwant %v", ps, want)
	}
}

// full is a manifest using every part this reader reads.
const full = `{
  "manifest_version": "0.3",
  "name": "files",
  "display_name": "Files",
  "version": "2.1.0",
  "description": "Reads files",
  "author": {"name": "Acme", "email": "a@example.com", "url": "https://example.com"},
  "server": {
    "type": "node",
    "entry_point": "server/index.js",
    "mcp_config": {
      "command": "node",
      "args": ["${__dirname}${/}server${/}index.js", "--dirs", "${user_config.dirs}", "--max=${user_config.max_mb}", "--verbose=${user_config.verbose}", "${user_config.label}"],
      "env": {"API_KEY": "${user_config.api_key}", "AUTH": "Bearer ${user_config.api_key}", "ALLOWED": "${user_config.dirs}", "OUT": "${DOWNLOADS}", "LABEL": "${user_config.label}"},
      "platform_overrides": {
        "win32": {"command": "node.exe", "env": {"OUT": "${DOCUMENTS}"}},
        "darwin": {"args": ["${__dirname}/mac.js"]}
      }
    }
  },
  "user_config": {
    "api_key": {"type": "string", "title": "API key", "description": "k", "sensitive": true, "required": true},
    "dirs": {"type": "directory", "title": "Folders", "description": "f", "multiple": true, "default": ["${HOME}/Desktop", "${DOCUMENTS}"]},
    "max_mb": {"type": "number", "title": "Max MB", "description": "m", "min": 1, "max": 100, "default": 10},
    "verbose": {"type": "boolean", "title": "Verbose", "description": "v", "default": false},
    "label": {"type": "string", "title": "Label", "description": "l"}
  },
  "compatibility": {"claude_desktop": ">=0.10.0", "platforms": ["darwin", "linux", "win32"], "runtimes": {"node": ">=18.0.0"}},
  "tools": [{"name": "read", "description": "Read a file"}],
  "prompts": [{"name": "sum", "text": "Summarise ${arguments.f}", "arguments": ["f"]}],
  "icons": [{"src": "icon.png", "size": "16x16"}]
}`

// TestParseManifestFull: every part is read, user_config in the file's
// order.
func TestParseManifestFull(t *testing.T) {
	m, ps := ParseManifest([]byte(full))
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	if !slices.Equal(m.Keys, []string{"api_key", "dirs", "max_mb", "verbose", "label"}) {
		t.Errorf("Keys = %v", m.Keys)
	}
	o := m.UserConfig["max_mb"]
	if o.Type != "number" || *o.Min != 1 || *o.Max != 100 || o.Default != 10.0 {
		t.Errorf("max_mb = %+v", o)
	}
	if !m.UserConfig["api_key"].Sensitive || !m.UserConfig["dirs"].Multiple {
		t.Errorf("user_config = %+v", m.UserConfig)
	}
	if m.Author.Email != "a@example.com" || m.Tools[0].Name != "read" || m.Prompts[0].Arguments[0] != "f" || m.Icons[0].Size != "16x16" {
		t.Errorf("manifest = %+v", m)
	}
	if m.Compatibility.Runtimes["node"] != ">=18.0.0" || m.Compatibility.Clients["claude_desktop"] != ">=0.10.0" || len(m.Compatibility.Platforms) != 3 {
		t.Errorf("compatibility = %+v", m.Compatibility)
	}
	if o := m.Server.MCPConfig.PlatformOverrides["win32"]; !o.HasCommand || o.Command != "node.exe" || o.Args != nil {
		t.Errorf("win32 override = %+v", o)
	}
}

// TestParseManifestProblems: every problem of a bad manifest is named at
// once, each with its key path and remedy.
func TestParseManifestProblems(t *testing.T) {
	bad := `{
  "manifest_version": "0.2",
  "name": "",
  "version": 3,
  "author": {"nam": "x"},
  "icons": [{"src": "i.png", "size": "big"}],
  "server": {
    "type": "java",
    "entry_point": "x",
    "mcp_config": {"command": "node", "args": ["${__dirname}/a.js", "${user_config.missing}", "${HOMEDIR}", 4],
      "platform_overrides": {"windows": {"command": "n.exe"}}}
  },
  "user_config": {
    "api_key": {"type": "secret", "title": "K", "description": "d"},
    "n": {"type": "number", "title": "N", "description": "d", "min": 10, "max": 1, "default": "five"},
    "b": {"type": "boolean", "title": "B", "description": "d", "multiple": true, "default": true},
    "m": {"type": "number", "title": "M", "description": "d", "max": 10, "default": 11},
    "s": {"type": "string", "title": "S", "description": "d", "default": ["a", "b"]},
    "d": {"type": "directory", "description": "d", "min": 3, "sensitive": true}
  },
  "compatibility": {"platforms": ["macos"], "runtimes": {"node": ">=eighteen", "ruby": ">=3"}},
  "tools": [{"description": "no name"}],
  "serverr": {}
}`
	_, ps := ParseManifest([]byte(bad))
	var got []string
	for _, p := range ps {
		s := p.Error()
		if p.Warning {
			s = "warning " + s
		}
		got = append(got, s)
	}
	want := []string{
		`warning author.nam: is not a key this version of the format defines (name, email or url): it is ignored; remove it or check its spelling`,
		`warning icons: needs manifest_version 0.3 or later (this manifest is 0.2): raise manifest_version`,
		`name: is empty: give it a value`,
		`version: is a number: write it as a string`,
		`description: is missing: add it as a string`,
		`author.name: is missing: add it as a string`,
		`server.type: "java" is not a server type: use node, python, binary or uv`,
		`server.mcp_config.args[3]: is a number: write it as a string`,
		`server.mcp_config.platform_overrides.windows: "windows" is not a platform: use darwin, win32 or linux`,
		`user_config.api_key.type: "secret" is not a type: use string, number, boolean, directory or file`,
		`user_config.n.min: 10 is above max 1: swap them`,
		`user_config.n.default: is a string: a number option's default is a number`,
		`user_config.m.default: 11 is above max 10: use a value up to 10`,
		"warning serverr: is not a key this version of the format defines ($schema, dxt_version, manifest_version, name, display_name, version, description, long_description, author, repository, homepage, documentation, support, icon, icons, screenshots, localization, server, tools, tools_generated, prompts, prompts_generated, keywords, license, privacy_policies, compatibility, user_config or _meta): it is ignored; remove it or check its spelling",
		`user_config.b.multiple: is for directory and file options, not boolean: remove it`,
		`user_config.s.default: is an array but the option is not multiple: give one string, or add "multiple": true`,
		`user_config.d.title: is missing: add it as a string`,
		`user_config.d.sensitive: is for string options, not directory: remove it or make the option a string`,
		`user_config.d.min: is for number options, not directory: remove it`,
		`compatibility.platforms[0]: "macos" is not a platform: use darwin, win32 or linux`,
		`compatibility.runtimes.node: ">=eighteen" is not a version range ("eighteen" is not a number): write one like ">=18.0.0"`,
		`compatibility.runtimes.ruby: is not a runtime: use node or python`,
		`tools[0].name: is missing: add it as a string`,
		`icons[0].size: "big" is not WIDTHxHEIGHT: write it like "16x16"`,
		`server.mcp_config.args[1]: ${user_config.missing} names no user_config key: declare "missing" under user_config or remove the reference`,
		`server.mcp_config.args[2]: ${HOMEDIR} is not a variable: use ${__dirname}, ${HOME}, ${DESKTOP}, ${DOCUMENTS}, ${DOWNLOADS}, ${/} or ${user_config.KEY}`,
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("missing problem:\n  %s", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			t.Errorf("unexpected problem:\n  %s", g)
		}
	}
	if !ps.Refusing() {
		t.Error("Refusing() = false")
	}
	if _, ps := ParseManifest([]byte(`{"manifest_version": "0.9"}`)); !strings.Contains(ps.Error(), `manifest_version: "0.9" is not a manifest version this reader knows: use 0.1, 0.2, 0.3 or 0.4`) {
		t.Errorf("0.9: %v", ps)
	}
	if _, ps := ParseManifest([]byte(`{"name": `)); len(ps) != 1 || !strings.Contains(ps[0].Message, "not valid JSON") {
		t.Errorf("broken JSON: %v", ps)
	}
}
