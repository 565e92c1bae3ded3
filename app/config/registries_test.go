package config

import (
	"slices"
	"strings"
	"testing"
)

// TestRegistries: no "registries" is the official registry; a list is
// read in order; [] is none; each mistake is a problem of the file,
// naming the item and the key, and makes Registries fail.
func TestRegistries(t *testing.T) {
	parse := func(t *testing.T, text string) *File {
		t.Helper()
		f, err := Parse([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	t.Run("default", func(t *testing.T) {
		rs, err := parse(t, `{"mcpServers": {}}`).Registries()
		if err != nil || !slices.Equal(rs, []RegistrySettings{OfficialRegistry}) {
			t.Fatalf("got %v, %v; want the official registry", rs, err)
		}
	})
	t.Run("list", func(t *testing.T) {
		f := parse(t, `{"mcpServers": {}, "registries": [
			{"name": "work", "url": "https://mcp.example.com/registry"},
			{"name": "local", "url": "http://127.0.0.1:8080"}]}`)
		rs, err := f.Registries()
		want := []RegistrySettings{{"work", "https://mcp.example.com/registry"}, {"local", "http://127.0.0.1:8080"}}
		if err != nil || !slices.Equal(rs, want) {
			t.Fatalf("got %v, %v; want %v", rs, err, want)
		}
		if f.Report().Len() != 0 {
			t.Fatalf("problems: %v", f.Report().Problems())
		}
	})
	t.Run("none", func(t *testing.T) {
		rs, err := parse(t, `{"mcpServers": {}, "registries": []}`).Registries()
		if err != nil || len(rs) != 0 {
			t.Fatalf("got %v, %v; want none", rs, err)
		}
	})
	for _, c := range []struct{ name, value, key, says string }{
		{"object", `{"name": "x"}`, "registries", "not a list"},
		{"item", `["https://x.example"]`, "registries[0]", "not a registry"},
		{"http", `[{"name": "a", "url": "http://registry.example.com"}]`, "registries[0].url", "plain http"},
		{"scheme", `[{"name": "a", "url": "ftp://registry.example.com"}]`, "registries[0].url", "not an https URL"},
		{"credentials", `[{"name": "a", "url": "https://u:p@registry.example.com"}]`, "registries[0].url", "password"},
		{"no url", `[{"name": "a"}]`, "registries[0].url", "missing"},
		{"no name", `[{"url": "https://r.example"}]`, "registries[0].name", "missing"},
		{"bad name", `[{"name": "../x", "url": "https://r.example"}]`, "registries[0].name", "not a registry name"},
		{"catalog", `[{"name": "catalog", "url": "https://r.example"}]`, "registries[0].name", "built-in"},
		{"twice", `[{"name": "a", "url": "https://r.example"}, {"name": "a", "url": "https://s.example"}]`, "registries[1].name", "two registries"},
		{"unknown key", `[{"name": "a", "url": "https://r.example", "token": "x"}]`, "registries[0].token", "not a known key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := parse(t, `{"mcpServers": {}, "registries": `+c.value+`}`)
			if _, err := f.Registries(); err == nil {
				t.Errorf("Registries accepted %s", c.value)
			}
			var found bool
			for _, p := range f.Report().File {
				if p.Key == c.key && strings.Contains(p.Message, c.says) {
					found = true
				}
			}
			if !found {
				t.Errorf("no problem at %s saying %q: %v", c.key, c.says, f.Report().File)
			}
		})
	}
}
