package aiapps

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
)

// TestImportGolden: what `clients import --yes` does to an app's file,
// for every input with servers of its own: the entries Switchboard takes
// are removed, the bridge entry added, everything else kept (golden
// files testdata/edit/APP/NAME.imported.json).
func TestImportGolden(t *testing.T) {
	for _, app := range Apps() {
		for _, c := range editCases(t, app) {
			doc, err := app.Parse(c.input)
			if err != nil {
				t.Fatal(err)
			}
			block, names, _ := doc.ImportBlock()
			if len(names) == 0 {
				continue
			}
			t.Run(app.ID+"/"+c.name, func(t *testing.T) {
				servers, _, _, err := config.ParseImport(block)
				if err != nil {
					t.Fatal(err)
				}
				var taken []string
				for _, n := range names {
					if servers[n] != nil {
						taken = append(taken, n)
					}
				}
				doc.Replace(taken, Bridge{Command: "/opt/switchboard/bin/switchboard"})
				out := doc.Bytes()
				golden(t, filepath.Join("testdata", "edit", app.ID, c.name+".imported.json"), out)
				after, err := app.Parse(out)
				if err != nil {
					t.Fatal(err)
				}
				var left []string
				for _, s := range after.Servers() {
					left = append(left, s.Name)
				}
				for _, n := range taken {
					if slices.Contains(left, n) {
						t.Errorf("%s is still in the app", n)
					}
				}
				if !slices.Contains(left, EntryName) {
					t.Error("no bridge entry")
				}
				if bytes.Contains(c.input, []byte("\r\n")) && bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
					t.Fatalf("CRLF in, a bare LF out:\n%q", out)
				}
				// Every comment outside the removed entries is still there.
				for _, cm := range comments(c.input) {
					if !strings.Contains(string(out), cm) && !inRemovedEntry(c.input, cm) {
						t.Errorf("comment %q lost", cm)
					}
				}
			})
		}
	}
}

// inRemovedEntry: the shared inputs put comments inside the "notes"
// entry and at the end of its line, which go with it.
func inRemovedEntry(in []byte, comment string) bool {
	return comment == "// via npx" || comment == "// end of notes"
}

// TestImportBlock: the app-specific keys become Switchboard's, the bridge
// entry and what cannot be imported are left out.
func TestImportBlock(t *testing.T) {
	zed, _ := Lookup("zed")
	doc, err := zed.Parse([]byte(`{
  "context_servers": {
    "ext": {"source": "extension", "settings": {}},
    "custom": {"source": "custom", "enabled": false, "command": "tool", "args": [], "timeout": 30, "remote": false},
    "legacy": {"command": {"path": "node", "args": ["x.js"], "env": {"A": "1"}}, "settings": {}},
    "switchboard": {"source": "custom", "command": "/bin/switchboard", "args": ["bridge"]},
    "renamed-bridge": {"command": "C:\\sb\\Switchboard.EXE", "args": ["bridge", "--servers", "a"]},
  },
}`))
	if err != nil {
		t.Fatal(err)
	}
	block, names, skipped := doc.ImportBlock()
	if !slices.Equal(names, []string{"custom", "legacy"}) {
		t.Fatalf("names %q", names)
	}
	if len(skipped) != 1 || !strings.Contains(skipped[0], `"ext": not imported: a server of a Zed extension`) {
		t.Fatalf("skipped %q", skipped)
	}
	checkBlock(t, block, `{"mcpServers":{
		"custom": {"command": "tool", "args": [], "disabled": true, "callTimeout": 30000},
		"legacy": {"command": "node", "settings": {}, "args": ["x.js"], "env": {"A": "1"}}}}`)

	gemini, _ := Lookup("gemini-cli")
	doc, _ = gemini.Parse([]byte(`{"mcpServers": {"py": {"command": "python", "args": ["-m", "srv"], "cwd": "/srv",
		"timeout": 15000, "trust": true, "includeTools": ["a", "b"], "excludeTools": ["c"]}}}`))
	block, _, _ = doc.ImportBlock()
	checkBlock(t, block, `{"mcpServers": {"py": {"command": "python", "args": ["-m", "srv"], "cwd": "/srv",
		"callTimeout": 15000, "tools": {"allow": ["a", "b"], "deny": ["c"]}}}}`)

	vscode, _ := Lookup("vscode")
	doc, _ = vscode.Parse([]byte(`{"servers": {"a": {"type": "stdio", "command": "x", "envFile": "${workspaceFolder}/.env"},
		"b": {"type": "stdio", "command": "y", "dev": {"watch": "src/**"}, "autoApprove": ["t"]}}}`))
	block, names, skipped = doc.ImportBlock()
	if !slices.Equal(names, []string{"b"}) || len(skipped) != 1 || !strings.Contains(skipped[0], `"a": not imported: it reads variables from an "envFile"`) {
		t.Fatalf("names %q skipped %q", names, skipped)
	}
	checkBlock(t, block, `{"mcpServers": {"b": {"type": "stdio", "command": "y"}}}`)

	// config.ParseImport takes the block: a Zed entry becomes a valid server.
	servers, _, _, err := config.ParseImport(mustBlock(t, zed, `{"context_servers": {"t": {"source": "custom", "enabled": true, "command": "/bin/cat", "args": []}}}`))
	if err != nil || servers["t"] == nil || len(servers["t"].Problems()) > 0 {
		t.Fatalf("ParseImport: %v %v", servers, err)
	}
}

func mustBlock(t *testing.T, app *App, s string) []byte {
	t.Helper()
	doc, err := app.Parse([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	b, _, _ := doc.ImportBlock()
	return b
}

func checkBlock(t *testing.T, got []byte, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Fatalf("block\n%s\nwant\n%s", got, want)
	}
}

// TestSecretValuesRedact: literal secrets of the app's servers are found
// and hidden in text, also as escaped in JSON.
func TestSecretValuesRedact(t *testing.T) {
	cursor, _ := Lookup("cursor")
	doc, err := cursor.Parse([]byte(`{"mcpServers": {
		"gh": {"command": "npx", "env": {"GITHUB_TOKEN": "ghp_a\"b\\c", "LOG_LEVEL": "debug", "API_KEY": "${keyring:k}"}},
		"switchboard": {"command": "/x/switchboard", "args": ["bridge"]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	secrets := doc.SecretValues()
	if !slices.Equal(secrets, []string{`ghp_a"b\c`}) {
		t.Fatalf("secrets %q", secrets)
	}
	text := Diff("a", "b", nil, []byte(`"GITHUB_TOKEN": "ghp_a\"b\\c"`+"\n"))
	got := Redact(text, secrets)
	if strings.Contains(got, "ghp_") || !strings.Contains(got, `"GITHUB_TOKEN": "********"`) {
		t.Fatalf("redacted: %s", got)
	}
}

// TestParseErrors: a file Switchboard cannot read is refused, never
// rewritten.
func TestParseErrors(t *testing.T) {
	cursor, _ := Lookup("cursor")
	for in, want := range map[string]string{
		`{"mcpServers": {`:       "is not valid JSON",
		`[1, 2]`:                 "top level is not an object",
		`{"mcpServers": []}`:     `its "mcpServers" is not an object`,
		`{"mcpServers": null}`:   `its "mcpServers" is not an object`,
		`{"a": 1} trailing`:      "is not valid JSON",
		"\xef\xbb\xbf{\"a\": 1}": "",
		"  \n\t ":                "",
	} {
		_, err := cursor.Parse([]byte(in))
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	zed, _ := Lookup("zed")
	if _, err := zed.Parse([]byte("{")); err == nil || !strings.Contains(err.Error(), "not valid JSON with comments") {
		t.Errorf("zed: %v", err)
	}
}

// TestDuplicateKeys: of a key written twice the last counts (as in
// JavaScript); a disconnect removes every copy of the entry.
func TestDuplicateKeys(t *testing.T) {
	cursor, _ := Lookup("cursor")
	in := `{
  "mcpServers": {"old": {"command": "a"}},
  "mcpServers": {
    "switchboard": {"command": "/old/switchboard", "args": ["bridge"]},
    "x": {"command": "x"},
    "switchboard": {"command": "/new/switchboard", "args": ["bridge", "--servers=a,b"]}
  }
}`
	doc, err := cursor.Parse([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	b, _, ok := doc.Connected()
	if !ok || b.Command != "/new/switchboard" || !slices.Equal(b.Servers, []string{"a", "b"}) {
		t.Fatalf("Connected: %+v %v", b, ok)
	}
	if n := doc.Remove(EntryName); n != 2 {
		t.Fatalf("removed %d", n)
	}
	want := `{
  "mcpServers": {"old": {"command": "a"}},
  "mcpServers": {
    "x": {"command": "x"}
  }
}`
	if got := string(doc.Bytes()); got != want {
		t.Fatalf("got\n%s", got)
	}
}
