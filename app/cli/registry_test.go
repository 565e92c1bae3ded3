//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
)

// TestRegistryCLI: with no config and no network, search answers from
// the built-in snapshot; against a v0.1 registry on loopback, 'registry
// sync' fills the index (under the state directory), a second sync takes
// a deprecation and a deletion, search badges the deprecated entry and no
// longer finds the deleted one, show prints the card with the exact argv
// (and --json the same card), a registry's control characters reach the
// terminal escaped, and a failing registry exits 1 saying to sync again.
func TestRegistryCLI(t *testing.T) {
	sb := newSandbox(t)

	// Offline, first start: the snapshot.
	out := sb.cli(t, "registry", "search", "airtable")
	if !strings.Contains(out, "io.github.domdomegg/airtable-mcp-server") || !strings.Contains(out, "snapshot built into Switchboard") {
		t.Fatalf("offline search:\n%s", out)
	}

	reg := registrytest.New(t)
	docs := registrytest.Documents(t)
	evil := registry.Server{Name: "io.github.evil/ansi", Description: "weather \x1b]0;pwned\x07 tool", Version: "1.0.0"}
	for _, d := range append(docs, evil) {
		reg.Publish(d)
	}
	writeConfig(t, sb.configPath(), `{"mcpServers": {}, "registries": [{"name": "local", "url": "`+reg.URL+`"}]}`)
	out = sb.cli(t, "registry", "sync")
	if !strings.Contains(out, "local: 8 servers (8 added, 0 updated, 0 removed, 0 newly deprecated)") {
		t.Fatalf("first sync:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(sb.home, ".local", "state", "switchboard", "registry", "local.json")); err != nil {
		t.Fatalf("the index file: %v", err)
	}

	reg.SetStatus("io.github.example/weather-mcp", registry.StatusDeprecated, "Moved to io.github.example/weather-2")
	reg.SetStatus("io.github.example/database-manager", registry.StatusDeleted, "Removed: malware")
	out = sb.cli(t, "registry", "sync", "local")
	// (Updated: the deprecated one, and the newest of the first sync,
	// whose time is the updated_since asked: the registry's bound is
	// inclusive.)
	if !strings.Contains(out, "local: 7 servers (0 added, 2 updated, 1 removed, 1 newly deprecated)") {
		t.Fatalf("second sync:\n%s", out)
	}
	if qs := reg.Requests(); len(qs) == 0 || qs[len(qs)-1].Get("updated_since") == "" {
		t.Errorf("the second sync asked %v: no updated_since", qs)
	}

	out = sb.cli(t, "registry", "search", "weather")
	if line := lineWith(out, "io.github.example/weather-mcp"); !strings.Contains(line, "[DEPRECATED]") {
		t.Errorf("the deprecated entry is not badged:\n%s", out)
	}
	if strings.Contains(out, "\x1b") || !strings.Contains(out, `\e]0;pwned\x07`) {
		t.Errorf("the registry's escape sequence reached the terminal (or was not shown escaped):\n%q", out)
	}
	if strings.Contains(out, "snapshot built into") {
		t.Errorf("a synced registry is said to be the snapshot:\n%s", out)
	}
	out = sb.cli(t, "registry", "search", "database operations")
	if strings.Contains(out, "io.github.example/database-manager") {
		t.Errorf("the deleted entry is still found:\n%s", out)
	}
	out = sb.cli(t, "--json", "registry", "search", "weather")
	var results []searchResult
	if err := json.Unmarshal([]byte(out), &results); err != nil {
		t.Fatalf("search --json: %v\n%s", err, out)
	}
	if i := slices.IndexFunc(results, func(r searchResult) bool { return r.Name == "io.github.example/weather-mcp" }); i < 0 ||
		results[i].Status != "deprecated" || results[i].StatusMessage != "Moved to io.github.example/weather-2" {
		t.Errorf("search --json: %+v", results)
	}

	// show: the name after the namespace is in two places (the registry
	// and the catalog): ambiguous.
	r := sb.run(t, "", "registry", "show", "filesystem")
	if r.code != 1 || !strings.Contains(r.stderr, "catalog: catalog/filesystem") || !strings.Contains(r.stderr, "local: io.github.modelcontextprotocol/filesystem") {
		t.Errorf("ambiguous show: %s", r)
	}
	out = sb.cli(t, "registry", "show", "filesystem", "--registry", "local")
	for _, want := range []string{
		"publisher:   io.github.modelcontextprotocol: GitHub-verified",
		"repository:  https://github.com/modelcontextprotocol/servers (id b94b5f7e-c7c6-d760-2c78-a5e9b8a5b8c9)",
		"version:     1.0.2, published ",
		"would run:  npx -y @modelcontextprotocol/server-filesystem@1.0.2 /Users/username/Desktop",
		"would run:  docker run -i --rm -e LOG_LEVEL --mount type=bind,src=<source_path>,dst=/project docker.io/mcp/filesystem:1.0.2 /project",
		"argument source_path (required, filepath): Source path on host",
		"env LOG_LEVEL (optional, default info)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	out = sb.cli(t, "--json", "registry", "show", "io.github.example/weather-mcp")
	var card registry.Card
	if err := json.Unmarshal([]byte(out), &card); err != nil {
		t.Fatalf("show --json: %v\n%s", err, out)
	}
	if !slices.Equal(card.Packages[0].Argv, []string{"uvx", "weather-mcp-server==0.5.0"}) || card.Status != "deprecated" ||
		!card.Packages[0].Env[0].Secret || card.Packages[0].Env[0].Name != "WEATHER_API_KEY" {
		t.Errorf("show --json: %+v", card)
	}

	// A registry that fails: exit 1, the progress kept.
	reg.Fail(func(string) bool { return true })
	r = sb.run(t, "", "registry", "sync")
	if r.code != 1 || !strings.Contains(r.stderr, "503") || !strings.Contains(r.stderr, "sync again") {
		t.Errorf("failing sync: %s", r)
	}
	if out := sb.cli(t, "registry", "search", "weather"); !strings.Contains(out, "io.github.example/weather-mcp") {
		t.Errorf("after a failed sync, the index is gone:\n%s", out)
	}

	// A config whose registries are wrong: the key and the remedy.
	writeConfig(t, sb.configPath(), `{"mcpServers": {}, "registries": [{"name": "x", "url": "http://registry.example.com"}]}`)
	r = sb.run(t, "", "registry", "search", "weather")
	if r.code != 1 || !strings.Contains(r.stderr, "registries[0].url") || !strings.Contains(r.stderr, "plain http") {
		t.Errorf("bad registries: %s", r)
	}
}

func writeConfig(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// lineWith is the first line of text that holds s.
func lineWith(text, s string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
