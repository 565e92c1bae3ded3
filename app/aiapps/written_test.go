package aiapps

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestFingerprint: an entry rewritten in another style (key order,
// spaces, an empty env or args an app adds on its own, the app's own
// on/off switch) keeps its
// fingerprint; a changed argument, command or env value does not.
func TestFingerprint(t *testing.T) {
	fp := func(s string) string { return Fingerprint(Server{Name: "x", JSON: json.RawMessage(s)}) }
	base := fp(`{"command":"npx","args":["-y","srv"],"env":{"A":"1"}}`)
	for _, same := range []string{
		`{"env": {"A": "1"}, "args": ["-y", "srv"], "command": "npx"}`,
		`{"command":"npx","args":["-y","srv"],"env":{"A":"1"},"headers":{},"cwd":"","disabled":null}`,
		`{"command":"npx","args":["-y","srv"],"env":{"A":"1"},"disabled":true,"autoApprove":["read"]}`,
	} {
		if fp(same) != base {
			t.Errorf("%s: another fingerprint than the same entry's", same)
		}
	}
	for _, other := range []string{
		`{"command":"npx","args":["-y","srv","--evil"],"env":{"A":"1"}}`,
		`{"command":"node","args":["-y","srv"],"env":{"A":"1"}}`,
		`{"command":"npx","args":["-y","srv"],"env":{"A":"2"}}`,
		`{"command":"npx","args":["-y","srv"],"env":{"A":"1","NODE_OPTIONS":"--require /tmp/x.js"}}`,
	} {
		if fp(other) == base {
			t.Errorf("%s: the fingerprint of the entry it changed", other)
		}
	}
}

// TestWrittenSaveLoad: the record survives a save and a load; a missing
// file is an empty record; Forget drops a file.
func TestWrittenSaveLoad(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	w, err := LoadWritten(dir)
	if err != nil || len(w.Files) != 0 {
		t.Fatalf("missing file: %v %v", w, err)
	}
	app, _ := Lookup("cursor")
	d, err := app.Parse([]byte(`{"mcpServers": {"a": {"command": "x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	w.Record(app, "/p/mcp.json", d)
	if err := w.Save(dir); err != nil {
		t.Fatal(err)
	}
	w2, err := LoadWritten(dir)
	if err != nil || w2.Files["/p/mcp.json"] == nil || w2.Files["/p/mcp.json"].Entries["a"] == "" || w2.Files["/p/mcp.json"].App != "cursor" {
		t.Fatalf("loaded %+v %v", w2, err)
	}
	if f := w2.Check(app, "/p/mcp.json", d); len(f) != 0 {
		t.Fatalf("the recorded file: %v", f)
	}
	w2.Forget("/p/mcp.json")
	if f := w2.Check(app, "/p/mcp.json", d); f != nil {
		t.Fatalf("a forgotten file is checked: %v", f)
	}
}
