package install

import (
	"archive/zip"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/bundle"
)

// zipBundle writes a bundle file of name → content.
func zipBundle(t *testing.T, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "b.mcpb")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, name := range slicesSorted(files) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(files[name]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return p
}

func slicesSorted(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// cardManifest's user_config is deliberately not in alphabetical order.
const cardManifest = `{"manifest_version":"0.3","name":"Demo Files","display_name":"Demo files","version":"1.2.0","description":"reads files",
 "author":{"name":"Acme","email":"a@acme.example"},
 "server":{"type":"binary","entry_point":"bin/demo","mcp_config":{"command":"${__dirname}/bin/demo","args":["--root","${user_config.root}","--n=${user_config.n}"],"env":{"TOKEN":"${user_config.token}"}}},
 "tools":[{"name":"read","description":"reads a file"}],"prompts":[{"name":"summarize","description":"sums up","text":"x"}],
 "user_config":{"token":{"type":"string","title":"Token","description":"t","sensitive":true,"required":true},
  "root":{"type":"directory","title":"Root","description":"r","required":true,"multiple":true},
  "n":{"type":"number","title":"N","description":"n","min":1,"max":9,"default":3}}}`

// TestInspectBundle: the card of a good bundle has its options in the
// file's order with their bounds, its tools and prompts, the command
// with the sensitive option as the keyring reference an install writes
// (given or not: its value never appears), ${__dirname} as is, multiple
// values as several arguments; nothing is left in the temporary folder.
// Problems are all named at once, compatibility's also on their own.
func TestInspectBundle(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	home := t.TempDir()
	dirs := BundleDirs(home)
	file := zipBundle(t, map[string]string{"manifest.json": cardManifest, "bin/demo": "x"})
	c, err := InspectBundle(context.Background(), file, InspectOptions{Dirs: dirs,
		Values: map[string][]string{"root": {"/a", "/b"}, "token": {"sk-SECRET-1"}}})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range c.Options {
		keys = append(keys, o.Key)
	}
	if !slices.Equal(keys, []string{"token", "root", "n"}) {
		t.Errorf("options not in the file's order: %v", keys)
	}
	if n := c.Options[2]; n.Min == nil || *n.Min != 1 || n.Max == nil || *n.Max != 9 || n.Default != 3.0 || n.Type != "number" {
		t.Errorf("the number option: %+v", n)
	}
	if o := c.Options[0]; !o.Sensitive || !o.Required || o.Title != "Token" {
		t.Errorf("the sensitive option: %+v", o)
	}
	if !c.Options[1].Multiple || c.Options[1].Type != "directory" {
		t.Errorf("the directory option: %+v", c.Options[1])
	}
	if c.Local != "demo-files" || c.DisplayName != "Demo files" || c.Author != "Acme" || c.AuthorEmail != "a@acme.example" || c.SignatureText != "unsigned" {
		t.Errorf("card: %+v", c)
	}
	if c.Command != "${__dirname}/bin/demo" || !slices.Equal(c.Args, []string{"--root", "/a", "/b", "--n=3"}) || c.Env["TOKEN"] != "${keyring:demo-files-token}" {
		t.Errorf("what it runs: %q %q %v", c.Command, c.Args, c.Env)
	}
	if len(c.Tools) != 1 || c.Tools[0] != (BundleTool{"read", "reads a file"}) || len(c.Prompts) != 1 || c.Prompts[0].Name != "summarize" {
		t.Errorf("tools and prompts: %+v %+v", c.Tools, c.Prompts)
	}
	if len(c.Problems) != 0 || !c.Unpackable {
		t.Errorf("problems of a good bundle: %q", c.Problems)
	}
	raw, _ := json.Marshal(c)
	if strings.Contains(string(raw), "sk-SECRET-1") {
		t.Errorf("the card holds the sensitive value: %s", raw)
	}
	if !strings.Contains(string(raw), `"options":[{"key":"token"`) {
		t.Errorf("the card's JSON: %s", raw)
	}

	// Every problem at once: a value out of range, an unknown option, a
	// required one missing, another platform.
	other := "darwin"
	if bundle.Platform("") == "darwin" {
		other = "linux"
	}
	m := strings.Replace(cardManifest, `"tools"`, `"compatibility":{"platforms":["`+other+`"]},"tools"`, 1)
	c, err = InspectBundle(context.Background(), zipBundle(t, map[string]string{"manifest.json": m}), InspectOptions{Dirs: dirs,
		Values: map[string][]string{"n": {"12"}, "nope": {"x"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"user_config.nope: is not an option", "user_config.root: is required", "user_config.n: 12 is above max 9", "compatibility.platforms: the bundle runs on " + other}
	for _, w := range want {
		if !slices.ContainsFunc(c.Problems, func(p string) bool { return strings.HasPrefix(p, w) }) {
			t.Errorf("problems lack %q: %q", w, c.Problems)
		}
	}
	// What it would run all the same: each option with a problem as
	// <KEY>, a form's field to fill.
	if !slices.Equal(c.Args, []string{"--root", "<root>", "--n=<n>"}) || c.Env["TOKEN"] != "${keyring:demo-files-token}" {
		t.Errorf("the command with problems: %q %v", c.Args, c.Env)
	}
	if len(c.Compatibility) != 1 || !strings.HasPrefix(c.Compatibility[0], "compatibility.platforms:") {
		t.Errorf("compatibility: %q", c.Compatibility)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("inspect left %v in the temporary folder", left)
	}
}
