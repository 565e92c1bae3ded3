//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// officialPack validates dir's manifest.json and packs dir into out with
// the official CLI (@anthropic-ai/mcpb, pinned in
// engine/stdio/testdata/npm), as a bundle's author does.
func officialPack(t *testing.T, mcpb, dir, out string) {
	t.Helper()
	for _, args := range [][]string{{"validate", filepath.Join(dir, "manifest.json")}, {"pack", dir, out}} {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		b, err := exec.CommandContext(ctx, mcpb, args...).CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("mcpb %s: %v\n%s", strings.Join(args, " "), err, b)
		}
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBundlesOfficialCLI: bundles built by the official CLI around real
// servers — a Go binary (bench/host/mcpserver) and a node one
// (@modelcontextprotocol/server-filesystem, pinned, with its
// node_modules in the bundle) — installed under their sandboxes with a
// real host, called through a real bridge; the Go one upgraded (the
// manifest's diff, the same tools), rolled back and removed.
func TestBundlesOfficialCLI(t *testing.T) {
	mcpb := testkit.NpmServer(t, "mcpb")
	fsVersion := ""
	{
		var pj struct{ Dependencies map[string]string }
		b, err := os.ReadFile("../../engine/stdio/testdata/npm/package.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &pj); err != nil {
			t.Fatal(err)
		}
		fsVersion = pj.Dependencies["@modelcontextprotocol/server-filesystem"]
	}
	work := t.TempDir()

	// The Go bundle: the binary under server/, at two versions.
	goDir := filepath.Join(work, "go-echo")
	build := exec.Command("go", "build", "-o", filepath.Join(goDir, "server", "mcpserver"), "../../bench/host/mcpserver")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the Go server: %v\n%s", err, out)
	}
	goManifest := func(version, desc string) map[string]any {
		return map[string]any{"manifest_version": "0.3", "name": "go-echo", "version": version, "description": desc,
			"author": map[string]any{"name": "Switchboard tests"},
			"server": map[string]any{"type": "binary", "entry_point": "server/mcpserver",
				"mcp_config": map[string]any{"command": "${__dirname}/server/mcpserver", "args": []string{}}},
			"tools": []map[string]any{{"name": "echo", "description": "returns its text"}}}
	}
	writeJSON(t, filepath.Join(goDir, "manifest.json"), goManifest("1.0.0", "a Go echo server"))
	goV1 := filepath.Join(work, "go-echo-1.0.0.mcpb")
	officialPack(t, mcpb, goDir, goV1)
	writeJSON(t, filepath.Join(goDir, "manifest.json"), goManifest("1.1.0", "a Go echo server, second release"))
	goV2 := filepath.Join(work, "go-echo-1.1.0.mcpb")
	officialPack(t, mcpb, goDir, goV2)

	// The node bundle: server-filesystem installed into it by npm (from
	// npm's cache, which scripts/deps.sh filled), as an author builds one.
	nodeDir := filepath.Join(work, "files")
	writeJSON(t, filepath.Join(nodeDir, "package.json"), map[string]any{"name": "files-bundle", "private": true,
		"dependencies": map[string]string{"@modelcontextprotocol/server-filesystem": fsVersion}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	npm := exec.CommandContext(ctx, "npm", "install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error")
	npm.Dir = nodeDir
	out, err := npm.CombinedOutput()
	cancel()
	if err != nil {
		t.Fatalf("npm install in the node bundle: %v\n%s", err, out)
	}
	writeJSON(t, filepath.Join(nodeDir, "manifest.json"), map[string]any{"manifest_version": "0.3", "name": "files", "version": fsVersion,
		"description": "the filesystem server as a bundle", "author": map[string]any{"name": "Switchboard tests"},
		"server": map[string]any{"type": "node", "entry_point": "node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
			"mcp_config": map[string]any{"command": "node", "args": []string{"${__dirname}/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "${user_config.folders}"}}},
		"user_config":   map[string]any{"folders": map[string]any{"type": "directory", "title": "Folders", "description": "the folders it may read and write", "multiple": true, "required": true}},
		"compatibility": map[string]any{"runtimes": map[string]string{"node": ">=18.0.0"}}})
	nodeBundle := filepath.Join(work, "files.mcpb")
	officialPack(t, mcpb, nodeDir, nodeBundle)

	sb := newSandbox(t)
	writeConfig(t, sb.configPath(), `{"mcpServers": {}}`)
	sb.serve(t)
	shared := filepath.Join(sb.home, "Projects", "shared")
	if err := os.MkdirAll(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shared, "note.txt"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}

	out1 := sb.cli(t, "bundles", "install", goV1)
	out2 := sb.cli(t, "bundles", "install", nodeBundle, "--set", "folders="+shared)
	for _, c := range []struct{ out, want string }{{out1, "installed go-echo: go-echo 1.0.0"}, {out1, "first start"}, {out2, "installed files: files " + fsVersion}, {out2, "read_text_file"}} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("bundles install printed no %q:\n%s", c.want, c.out)
		}
	}
	sb.waitServer(t, "go-echo", "running", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools == 1 })
	sb.waitServer(t, "files", "running", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools > 5 })
	b := sb.bridge(t, "")
	if got := b.call(t, "go-echo__echo", map[string]any{"text": "through the bridge"}); got != "through the bridge" {
		t.Errorf("go-echo's echo through the bridge: %q", got)
	}
	if got := b.call(t, "files__read_text_file", map[string]any{"path": filepath.Join(shared, "note.txt")}); !strings.Contains(got, "hello") {
		t.Errorf("files' read_text_file of the granted folder: %q", got)
	}
	up := sb.cli(t, "bundles", "install", goV2, "--yes")
	for _, want := range []string{"go-echo: go-echo 1.0.0 -> 1.1.0", "version: 1.0.0 -> 1.1.0", "the same 1 tool definitions", "switched go-echo to go-echo 1.1.0"} {
		if !strings.Contains(up, want) {
			t.Errorf("the upgrade printed no %q:\n%s", want, up)
		}
	}
	if !strings.Contains(sb.cli(t, "bundles", "list"), "go-echo 1.1.0, unsigned; the other version kept: 1.0.0") {
		t.Errorf("bundles list after the upgrade:\n%s", sb.cli(t, "bundles", "list"))
	}
	sb.cli(t, "bundles", "rollback", "go-echo")
	if !strings.Contains(sb.cli(t, "bundles", "list"), "go-echo 1.0.0, unsigned; the other version kept: 1.1.0") {
		t.Errorf("bundles list after the rollback:\n%s", sb.cli(t, "bundles", "list"))
	}
	sb.waitServer(t, "go-echo", "running again", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools == 1 })
	if got := b.call(t, "go-echo__echo", map[string]any{"text": "after the rollback"}); got != "after the rollback" {
		t.Errorf("go-echo's echo after the rollback: %q", got)
	}
	rm := sb.cli(t, "bundles", "remove", "go-echo")
	if strings.Count(rm, "deleted ") != 2 {
		t.Errorf("bundles remove deleted not both versions:\n%s", rm)
	}
	entries, err := os.ReadDir(filepath.Join(sb.home, ".local", "state", "switchboard-packages", "bundles"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "go-echo") {
			t.Errorf("%s is left in the store", e.Name())
		}
	}
}
