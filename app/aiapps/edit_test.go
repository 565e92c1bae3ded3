package aiapps

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/tailscale/hujson"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with the golden file, or writes it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n%s", path, Diff(path, "got", want, got))
	}
}

// editCase is one input file of one app.
type editCase struct {
	name  string // common-NAME for the shared inputs
	input []byte // nil: no file
}

// editCases returns the inputs for app: the shared ones of
// testdata/edit/common with @KEY@ replaced by the app's key (those named
// jsonc-* only for apps whose files allow comments and trailing commas),
// "missing" (no file), and the app's own in testdata/edit/APP.
func editCases(t *testing.T, app *App) []editCase {
	t.Helper()
	if app.format != nil {
		return nil // TOML and YAML: text_test.go
	}
	cases := []editCase{{name: "missing"}}
	common, _ := filepath.Glob(filepath.Join("testdata", "edit", "common", "*.json"))
	for _, p := range common {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		if strings.HasPrefix(name, "jsonc-") && !app.Comments {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, editCase{"common-" + name, bytes.ReplaceAll(b, []byte("@KEY@"), []byte(app.Key))})
	}
	own, _ := filepath.Glob(filepath.Join("testdata", "edit", app.ID, "*.json"))
	for _, p := range own {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		if strings.HasPrefix(name, "common-") || strings.Contains(name, ".") {
			continue // a golden file
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, editCase{name, b})
	}
	return cases
}

// bridgeFor is the bridge a case connects: with --servers for names that
// say "servers", a Windows binary for names that say "windows".
func bridgeFor(name string) Bridge {
	b := Bridge{Command: "/opt/switchboard/bin/switchboard"}
	if strings.Contains(name, "servers") {
		b.Servers = []string{"github", "files"}
	}
	if strings.Contains(name, "windows") {
		b.Command = `C:\Program Files\Switchboard\switchboard.exe`
	}
	return b
}

// restoredExactly reports whether connect then disconnect must give back
// the input byte for byte. The exceptions are by design: an entry that
// was there before connect (stale) is gone; a file that was missing or
// empty is now an object; a servers object connect added stays (empty)
// in an app's own mcp.json; one connect did not add goes from a settings
// file when it ends up empty.
func restoredExactly(app *App, name string) bool {
	switch strings.TrimPrefix(name, "common-") {
	case "missing", "empty", "stale-servers":
		return false
	case "empty-object", "other-keys":
		return !app.OwnFile
	case "empty-servers":
		return app.OwnFile
	}
	return true
}

// TestEditGolden: connect, for every app and every input (shared and the
// app's own), against golden files in testdata/edit/APP; then checks that
// hold for every case: the rest of the file is unchanged in meaning,
// comments and line endings are kept, standard JSON stays standard, the
// entry holds the bridge and nothing else (no token, no env), a second
// connect changes nothing, and a disconnect gives the input back.
func TestEditGolden(t *testing.T) {
	for _, app := range Apps() {
		if app.format != nil {
			continue // TestEditGoldenText
		}
		for _, c := range editCases(t, app) {
			t.Run(app.ID+"/"+c.name, func(t *testing.T) {
				b := bridgeFor(c.name)
				doc, err := app.Parse(c.input)
				if err != nil {
					t.Fatal(err)
				}
				if !doc.SetBridge(b) {
					t.Fatal("connect changed nothing")
				}
				out := doc.Bytes()
				golden(t, filepath.Join("testdata", "edit", app.ID, c.name+".connected.json"), out)

				checkConnected(t, app, b, c.input, out)

				// Connect again: nothing to change.
				again, err := app.Parse(out)
				if err != nil {
					t.Fatal(err)
				}
				if again.SetBridge(b) || !bytes.Equal(again.Bytes(), out) {
					t.Fatal("a second connect changed the file")
				}
				if got, _, ok := again.Connected(); !ok || got.Command != b.Command || !slices.Equal(got.Servers, b.Servers) {
					t.Fatalf("Connected() = %+v %v, want %+v", got, ok, b)
				}

				// Disconnect: the input again.
				if !again.Disconnect() {
					t.Fatal("disconnect found no entry")
				}
				back := again.Bytes()
				if restoredExactly(app, c.name) {
					if !bytes.Equal(back, c.input) {
						t.Fatalf("disconnect did not restore the input:\n%s", Diff("input", "after disconnect", c.input, back))
					}
				} else {
					golden(t, filepath.Join("testdata", "edit", app.ID, c.name+".disconnected.json"), back)
				}
				if _, _, ok := again.Connected(); ok || again.Disconnect() {
					t.Fatal("still connected after disconnect")
				}
				if c.input != nil && !bytes.Contains(c.input, []byte(`"`+EntryName+`"`)) {
					if !slices.Equal(comments(back), comments(c.input)) {
						t.Fatalf("comments after disconnect: %q, want %q", comments(back), comments(c.input))
					}
				}
			})
		}
	}
}

// checkConnected checks what must hold of any connected file.
func checkConnected(t *testing.T, app *App, b Bridge, in, out []byte) {
	t.Helper()
	v, err := hujson.Parse(bytes.Clone(bytes.TrimPrefix(out, utf8BOM)))
	if err != nil {
		t.Fatalf("the result does not parse: %v\n%s", err, out)
	}
	inStandard := true
	if len(bytes.TrimSpace(in)) > 0 {
		iv, err := hujson.Parse(bytes.Clone(bytes.TrimPrefix(in, utf8BOM)))
		if err != nil {
			t.Fatal(err)
		}
		inStandard = iv.IsStandard()
	}
	if inStandard && !json.Valid(bytes.TrimPrefix(out, utf8BOM)) {
		t.Fatalf("standard JSON in, not standard JSON out:\n%s", out)
	}
	if !app.Comments && !v.IsStandard() && inStandard {
		t.Fatal("a comment or trailing comma in the file of an app that reads strict JSON")
	}
	if bytes.HasPrefix(in, utf8BOM) != bytes.HasPrefix(out, utf8BOM) {
		t.Fatal("the byte order mark was not kept")
	}
	if bytes.Contains(in, []byte("\r\n")) && bytes.Count(out, []byte("\n")) != bytes.Count(out, []byte("\r\n")) {
		t.Fatalf("CRLF in, a bare LF out:\n%q", out)
	}
	if got, want := comments(out), comments(in); !slices.Equal(got, want) {
		t.Fatalf("comments: %q, want %q", got, want)
	}

	// The meaning: everything but the entry is as it was.
	inMap, outMap := decode(t, in), decode(t, out)
	servers, _ := outMap[app.Key].(map[string]any)
	entry, ok := servers[EntryName].(map[string]any)
	if !ok {
		t.Fatalf("no %q entry under %q: %v", EntryName, app.Key, outMap)
	}
	checkEntry(t, app, b, entry)
	if !reflect.DeepEqual(withoutEntry(app, inMap), withoutEntry(app, outMap)) {
		t.Fatalf("the rest of the file changed:\n in: %v\nout: %v", withoutEntry(app, inMap), withoutEntry(app, outMap))
	}
}

// entryExtras are the members of each app's entry beside command and
// args, as the app's documentation asks for them.
var entryExtras = map[string]map[string]any{
	"vscode":      {"type": "stdio"},
	"claude-code": {"type": "stdio"},
	"zed":         {"source": "custom"},
	"copilot-cli": {"type": "local", "tools": []any{"*"}},
	"continue":    {"name": EntryName},
	"goose":       {"enabled": true, "type": "stdio", "name": EntryName},
}

// checkEntry: the entry runs the bridge and holds nothing else: never an
// env, a header or anything that could carry a token.
func checkEntry(t *testing.T, app *App, b Bridge, entry map[string]any) {
	t.Helper()
	command := "command"
	if app.ID == "goose" {
		command = "cmd"
	}
	want := map[string]any{command: b.Command}
	var args []any
	for _, a := range b.Args() {
		args = append(args, a)
	}
	want["args"] = args
	for k, v := range entryExtras[app.ID] {
		want[k] = v
	}
	got := map[string]any{}
	for k, v := range entry {
		got[k] = v
		if l, ok := v.([]string); ok { // from YAML and TOML
			var a []any
			for _, s := range l {
				a = append(a, s)
			}
			got[k] = a
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("entry %v, want %v", got, want)
	}
}

// decode returns a file's meaning (nil for no file).
func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	b = bytes.TrimPrefix(b, utf8BOM)
	if len(bytes.TrimSpace(b)) == 0 {
		return map[string]any{}
	}
	s, err := hujson.Standardize(bytes.Clone(b))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(s, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// withoutEntry returns m without the bridge entry, and without the servers
// key if nothing else is in it.
func withoutEntry(app *App, m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		out[k] = v
	}
	if s, ok := out[app.Key].(map[string]any); ok {
		rest := map[string]any{}
		for k, v := range s {
			if k != EntryName {
				rest[k] = v
			}
		}
		out[app.Key] = rest
		if len(rest) == 0 {
			delete(out, app.Key)
		}
	}
	return out
}

// comments returns the comments of a JSON-with-comments text, in order.
func comments(b []byte) []string {
	var out []string
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		case bytes.HasPrefix(b[i:], []byte("//")):
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				j = len(b) - i
			}
			out = append(out, strings.TrimRight(string(b[i:i+j]), "\r"))
			i += j
		case bytes.HasPrefix(b[i:], []byte("/*")):
			j := bytes.Index(b[i+2:], []byte("*/"))
			out = append(out, string(b[i:i+2+j+2]))
			i += 2 + j + 1
		}
	}
	return out
}

// TestRemove: removing entries anywhere in the servers object keeps the
// comments and blank lines before an entry's line, drops the comment on
// its own line, and passes the trailing comma style on.
func TestRemove(t *testing.T) {
	zed, _ := Lookup("zed")
	for _, tc := range []struct {
		name, in string
		remove   []string
		want     string
	}{
		{"first", "{\"context_servers\": {\n  \"a\": 1, // about a\n  \"b\": 2\n}}", []string{"a"},
			"{\"context_servers\": {\n  \"b\": 2\n}}"},
		{"middle, block comment", "{\"context_servers\": {\n  \"a\": 1,\n  // above b\n  \"b\": 2, /* about\n  b */\n  \"c\": 3\n}}", []string{"b"},
			"{\"context_servers\": {\n  \"a\": 1,\n  // above b\n  \"c\": 3\n}}"},
		{"last, previous line's comment", "{\"context_servers\": {\n  \"a\": 1, // about a\n  \"b\": 2 // about b\n}}", []string{"b"},
			"{\"context_servers\": {\n  \"a\": 1 // about a\n}}"},
		{"last with a trailing comma", "{\"context_servers\": {\n  \"a\": 1,\n  \"b\": 2,\n},}", []string{"b"},
			"{\"context_servers\": {\n  \"a\": 1,\n},}"},
		{"CRLF", "{\"context_servers\": {\r\n  \"a\": 1, // about a\r\n  \"b\": 2, // about b\r\n  \"c\": 3\r\n}}", []string{"b"},
			"{\"context_servers\": {\r\n  \"a\": 1, // about a\r\n  \"c\": 3\r\n}}"},
		{"one line", `{"context_servers": {"a": 1, "b": 2, "c": 3}}`, []string{"a", "c"}, `{"context_servers": {"b": 2}}`},
		{"all, with a comment inside", "{\"x\": 1, \"context_servers\": {\n  // keep\n  \"a\": 1\n}}", []string{"a"},
			"{\"x\": 1, \"context_servers\": {\n  // keep\n}}"},
		{"all: the key goes", "{\n  \"x\": 1,\n  \"context_servers\": {\n    \"a\": 1\n  }\n}", []string{"a"}, "{\n  \"x\": 1\n}"},
	} {
		doc, err := zed.Parse([]byte(tc.in))
		if err != nil {
			t.Fatal(err)
		}
		doc.Remove(tc.remove...)
		if got := string(doc.Bytes()); got != tc.want {
			t.Errorf("%s:\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}
