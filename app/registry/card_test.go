package registry_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
)

func doc(t *testing.T, name string) registry.Server {
	t.Helper()
	for _, d := range registrytest.Documents(t) {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("no document %s", name)
	return registry.Server{}
}

// onlyNPX finds npx (and nothing else) in the servers' PATH.
func onlyNPX(cmd string) (string, error) {
	if cmd == "npx" {
		return "/usr/bin/npx", nil
	}
	return "", errors.New("not found")
}

// TestCard: the exact argv of each package type (no shell: an argv),
// with runtime and package arguments expanded, {variables} filled from
// defaults or left as <name>; the publisher's verification; https icons
// only; the version's age; inputs with isRequired and isSecret.
func TestCard(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	fs := &registry.Entry{Server: doc(t, "io.github.modelcontextprotocol/filesystem"), Registry: "official", PublishedAt: "2026-11-20T10:00:00Z"}
	c := registry.MakeCard(fs, onlyNPX, now)
	if c.Verified != "github" || !strings.Contains(c.VerifiedText, `"modelcontextprotocol"`) {
		t.Errorf("verification: %s %s", c.Verified, c.VerifiedText)
	}
	if c.Age != "14 days" || c.Status != "active" || c.RepositoryID == "" {
		t.Errorf("age %q status %q repository id %q", c.Age, c.Status, c.RepositoryID)
	}
	want := [][]string{
		{"npx", "-y", "@modelcontextprotocol/server-filesystem@1.0.2", "/Users/username/Desktop"},
		{"docker", "run", "-i", "--rm", "-e", "LOG_LEVEL", "--mount", "type=bind,src=<source_path>,dst=/project", "docker.io/mcp/filesystem:1.0.2", "/project"},
	}
	for i, w := range want {
		if !slices.Equal(c.Packages[i].Argv, w) {
			t.Errorf("package %d argv:\n got %q\nwant %q", i, c.Packages[i].Argv, w)
		}
	}
	if p := c.Packages[0]; !p.RuntimeFound || p.Runtime != "Node.js" || !strings.HasPrefix(p.Pin, "exact version 1.0.2") {
		t.Errorf("npm package: found %v runtime %q pin %q", p.RuntimeFound, p.Runtime, p.Pin)
	}
	if p := c.Packages[1]; p.RuntimeFound || p.Runtime != "Docker" || !strings.Contains(p.Pin, "tag, not a digest") {
		t.Errorf("oci package: found %v runtime %q pin %q", p.RuntimeFound, p.Runtime, p.Pin)
	}
	if !slices.ContainsFunc(c.Packages[1].Inputs, func(in registry.InputCard) bool {
		return in.Name == "source_path" && in.Required && in.Format == "filepath"
	}) {
		t.Errorf("the mount's variable is not an input: %+v", c.Packages[1].Inputs)
	}

	db := &registry.Entry{Server: doc(t, "io.github.example/database-manager")}
	c = registry.MakeCard(db, nil, now)
	w := []string{"docker", "run", "-i", "--rm", "-e", "DB_USERNAME", "-e", "DB_PASSWORD", "-e", "SSL_MODE",
		"--network", "host", "-e", "DB_TYPE=<db_type>", "docker.io/example/database-manager-mcp:3.1.0",
		"--host", "localhost", "<database_name>"}
	if !slices.Equal(c.Packages[0].Argv, w) {
		t.Errorf("database-manager argv:\n got %q\nwant %q", c.Packages[0].Argv, w)
	}
	var secret, choices bool
	for _, e := range c.Packages[0].Env {
		secret = secret || e.Name == "DB_PASSWORD" && e.Secret && e.Required
		choices = choices || e.Name == "SSL_MODE" && len(e.Choices) == 3 && !e.Required
	}
	if !secret || !choices {
		t.Errorf("env: %+v", c.Packages[0].Env)
	}

	hy := &registry.Entry{Server: doc(t, "io.modelcontextprotocol.anonymous/hybrid-mcp"), Registry: "official"}
	c = registry.MakeCard(hy, nil, now)
	if c.Verified != "domain" || !strings.Contains(c.VerifiedText, "anonymous.modelcontextprotocol.io") {
		t.Errorf("verification: %s %s", c.Verified, c.VerifiedText)
	}
	if !slices.Equal(c.Icons, []string{"https://hybrid.example.com/icon.svg"}) {
		t.Errorf("icons %q; want the https one only", c.Icons)
	}
	if len(c.Remotes) != 1 || c.Remotes[0].Variables[0].Name != "tenant_id" || !c.Remotes[0].Headers[0].Secret {
		t.Errorf("remotes: %+v", c.Remotes)
	}
	if !slices.Equal(c.Packages[0].Argv, []string{"npx", "-y", "@example/hybrid-mcp-server@1.5.0", "--mode", "local"}) {
		t.Errorf("hybrid argv %q", c.Packages[0].Argv)
	}

	for name, argv := range map[string][]string{
		"io.github.example/weather-mcp":      {"uvx", "weather-mcp-server==0.5.0"},
		"io.github.domdomegg/time-mcp-nuget": {"dnx", "TimeMcpServer@1.0.8", "--yes"},
	} {
		c := registry.MakeCard(&registry.Entry{Server: doc(t, name)}, nil, now)
		if !slices.Equal(c.Packages[0].Argv, argv) {
			t.Errorf("%s argv %q; want %q", name, c.Packages[0].Argv, argv)
		}
	}
	at := registry.MakeCard(&registry.Entry{Server: doc(t, "io.github.domdomegg/airtable-mcp-server")}, nil, now)
	if p := at.Packages[2]; p.Argv != nil || !strings.Contains(p.Unsupported, ".mcpb") || p.FileSHA256 == "" {
		t.Errorf("mcpb package: %+v", p)
	}

	cat := registry.CatalogEntries()
	c = registry.MakeCard(&cat[0], nil, now)
	if c.Verified != "catalog" {
		t.Errorf("catalog entry verified %q", c.Verified)
	}
}
