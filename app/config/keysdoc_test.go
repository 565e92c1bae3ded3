package config

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// topKeyRead is how this package reads a top-level key it knows beyond
// "version" and "mcpServers": f.extra["profiles"].
var topKeyRead = regexp.MustCompile(`\bf\.extra\["([A-Za-z]+)"\]`)

// docLink is a link of README.md to a page of docs/.
var docLink = regexp.MustCompile(`\]\((docs/[A-Za-z0-9_-]+\.md)(?:#[^)]*)?\)`)

// topKeys are the top-level keys of the file: the two the parser knows,
// and those the package's other files read (found in their source, so
// that a new one cannot be missed).
func topKeys(t *testing.T) []string {
	t.Helper()
	keys := []string{"version", "mcpServers"}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range topKeyRead.FindAllStringSubmatch(string(src), -1) {
			if !slices.Contains(keys, m[1]) {
				keys = append(keys, m[1])
			}
		}
	}
	return keys
}

// undocumented returns the keys that no text names as `key` or "key".
func undocumented(keys []string, texts []string) []string {
	var out []string
	for _, k := range keys {
		if !slices.ContainsFunc(texts, func(s string) bool {
			return strings.Contains(s, "`"+k+"`") || strings.Contains(s, `"`+k+`"`)
		}) {
			out = append(out, k)
		}
	}
	return out
}

// TestConfigKeysDocumented: every key of an entry and every top-level key
// of the file is named in README.md or in a page of docs/ that README.md
// links.
func TestConfigKeysDocumented(t *testing.T) {
	readme, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{string(readme)}
	var pages []string
	for _, m := range docLink.FindAllStringSubmatch(string(readme), -1) {
		if slices.Contains(pages, m[1]) {
			continue
		}
		pages = append(pages, m[1])
		data, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(m[1])))
		if err != nil {
			t.Errorf("README.md links %s: %v", m[1], err)
			continue
		}
		texts = append(texts, string(data))
	}
	top := topKeys(t)
	for _, want := range []string{"profiles", "defaults", "activity", "gateway", "approvals", "registries"} {
		if !slices.Contains(top, want) {
			t.Errorf("the top-level keys found in the source lack %q: %q (is topKeyRead still how they are read?)", want, top)
		}
	}
	for _, k := range undocumented(knownKeys, texts) {
		t.Errorf("the entry key %q is in no doc: add it to README.md's key table (or docs/config.md)", k)
	}
	for _, k := range undocumented(top, texts) {
		t.Errorf("the top-level key %q is in no doc: add it to README.md's key table (or docs/config.md)", k)
	}
	if t.Failed() {
		t.Logf("searched README.md and the pages it links: %q", pages)
	}
}
