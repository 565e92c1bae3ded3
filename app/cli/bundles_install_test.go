//go:build linux

package cli

import (
	"archive/zip"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func init() { helpers["bundled"] = runBundled }

// runBundled is the server of the test bundles: reveal gives its TOKEN
// away (to prove the keyring's value reached it at spawn), echo echoes;
// with BUNDLE_V2=1 (the bundle's second version) it has a third tool.
func runBundled() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "bundled", Version: "1"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "reveal"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: os.Getenv("TOKEN")}}}, nil, nil
	})
	type echoArgs struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Message + " in " + os.Getenv("BUNDLE_DIR")}}}, nil, nil
	})
	if os.Getenv("BUNDLE_V2") == "1" {
		mcp.AddTool(s, &mcp.Tool{Name: "extra", Description: "the second version's tool"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "extra"}}}, nil, nil
		})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "bundled:", err)
	}
	return 0
}

// packBundle writes a bundle at path: manifest.json and files, zipped.
func packBundle(t *testing.T, path string, manifest map[string]any, files map[string]string) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mj, err := json.MarshalIndent(manifest, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	files = mapWith(files, "manifest.json", string(mj))
	for _, name := range slices.Sorted(mapKeys(files)) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[name])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mapWith(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

func mapKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// testBundleManifest is the manifest of the test bundle at version,
// running this test binary as the "bundled" helper: a sensitive api_key
// (its TOKEN), a folder (a directory option) and, from 1.1.0 on, a
// level with a range and BUNDLE_V2.
func testBundleManifest(sb *sandbox, version string) map[string]any {
	env := map[string]string{helperEnv: "bundled", markEnv: sb.mark, "GORACE": "atexit_sleep_ms=0",
		"TOKEN": "${user_config.api_key}", "BUNDLE_DIR": "${user_config.folder}"}
	uc := map[string]any{
		"api_key": map[string]any{"type": "string", "title": "API key", "description": "the service's key", "sensitive": true, "required": true},
		"folder":  map[string]any{"type": "directory", "title": "Folder", "description": "the folder it works in", "required": true},
	}
	if version != "1.0.0" {
		env["BUNDLE_V2"] = "1"
		env["LEVEL"] = "${user_config.level}"
		uc["level"] = map[string]any{"type": "number", "title": "Level", "description": "how much", "default": 3, "min": 1, "max": 5}
	}
	return map[string]any{
		"manifest_version": "0.3", "name": "test-bundle", "version": version, "description": "a test bundle",
		"author": map[string]any{"name": "Switchboard tests"},
		"server": map[string]any{"type": "binary", "entry_point": "server/README",
			"mcp_config": map[string]any{"command": testExe, "args": []string{}, "env": env}},
		"tools":       []map[string]any{{"name": "reveal", "description": "gives its token away"}, {"name": "echo", "description": "echoes"}},
		"user_config": uc,
	}
}

// TestBundlesInstall: a bundle installed with a real host and a real
// keyring is a server like any other: its sensitive value in the keyring
// only (in no file under the sandbox's folders, in no output), reaching
// the server at spawn; its folder a sandbox grant; reached through a
// real bridge; upgraded after the manifest's and the tools' diffs, with
// the values carried over; rolled back; removed with its folders and
// its secret.
func TestBundlesInstall(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program, a keyring, a host)")
	sb := newSandbox(t)
	addr := privateKeyring(t, sb)
	sb.env = sb.with("DBUS_SESSION_BUS_ADDRESS=" + addr)
	writeConfig(t, sb.configPath(), `{"mcpServers": {}}`)
	sb.serve(t)
	const canary = "canary-bundle-9c41e7d2a8"
	folder := filepath.Join(sb.home, "Projects", "data")
	if err := os.MkdirAll(folder, 0o700); err != nil {
		t.Fatal(err)
	}
	v1 := filepath.Join(sb.root, "test-1.0.0.mcpb")
	packBundle(t, v1, testBundleManifest(sb, "1.0.0"), map[string]string{"server/README": "the server is the test binary"})
	var outputs []string
	cli := func(args ...string) string {
		t.Helper()
		r := sb.run(t, "", args...)
		outputs = append(outputs, r.stdout, r.stderr)
		if r.code != 0 {
			t.Fatalf("switchboard %s: %s", strings.Join(args, " "), r)
		}
		return r.stdout
	}

	out := cli("bundles", "install", v1, "--set", "api_key="+canary, "--set", "folder="+folder)
	for _, want := range []string{"installed test-bundle: test-bundle 1.0.0 by Switchboard tests, unsigned", "secret test-bundle-api_key stored in the keyring", "first start", "reveal", "echo"} {
		if !strings.Contains(out, want) {
			t.Errorf("bundles install printed no %q:\n%s", want, out)
		}
	}
	state := sb.stateDir()
	lock, err := install.ReadLock(state)
	if err != nil {
		t.Fatal(err)
	}
	rec := lock.Servers["test-bundle"]
	if rec == nil || rec.Ecosystem != "mcpb" || rec.Package != "test-bundle" || rec.Version != "1.0.0" || rec.Bundle == nil ||
		rec.Bundle.Secrets["api_key"] != "test-bundle-api_key" || !slices.Equal(rec.Bundle.Values["folder"], []string{folder}) ||
		filepath.Dir(rec.Dir) != install.BundlesRoot(state) || len(rec.Tools) != 2 {
		t.Fatalf("servers.lock's record: %+v %+v", rec, rec.Bundle)
	}
	v1Dir := rec.Dir
	f, err := config.Load(sb.configPath())
	if err != nil {
		t.Fatal(err)
	}
	s := f.Servers["test-bundle"]
	if s == nil || s.Command != testExe || s.Env["TOKEN"] != "${keyring:test-bundle-api_key}" || s.Env["BUNDLE_DIR"] != folder {
		t.Fatalf("the config entry: %+v", s)
	}
	if sbx := s.Sandbox; sbx != nil && (!slices.Contains(sbx.Write, folder) || !slices.Contains(sbx.Read, v1Dir) || sbx.Preset != config.SandboxNetwork) {
		t.Errorf("the entry's sandbox %+v: want the folder writable, its own folder readable, network (a sensitive key)", sbx)
	}
	if !strings.Contains(cli("bundles", "list"), "test-bundle") {
		t.Error("bundles list does not list it")
	}

	sb.waitServer(t, "test-bundle", "running with its tools", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools == 2 })
	b := sb.bridge(t, "")
	if got := b.call(t, "test-bundle__reveal", map[string]any{}); got != canary {
		t.Fatalf("the server's TOKEN through the bridge is %q, want the keyring's value", got)
	}
	if got := b.call(t, "test-bundle__echo", map[string]any{"message": "hi"}); got != "echo: hi in "+folder {
		t.Errorf("echo through the bridge: %q", got)
	}

	// The upgrade: the diffs, then the switch with the values carried over.
	v2 := filepath.Join(sb.root, "test-1.1.0.mcpb")
	packBundle(t, v2, testBundleManifest(sb, "1.1.0"), map[string]string{"server/README": "the second version"})
	r := sb.run(t, "", "bundles", "install", v2)
	if r.code == 0 || !strings.Contains(r.stderr, "give --yes") {
		t.Fatalf("an upgrade without --yes and no terminal: %s", r)
	}
	out = cli("bundles", "install", v2, "--yes")
	for _, want := range []string{"test-bundle: test-bundle 1.0.0 -> 1.1.0", "version: 1.0.0 -> 1.1.0", "option level: added (number)", "env BUNDLE_V2: added", "+ extra: added", "switched test-bundle to test-bundle 1.1.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("the upgrade printed no %q:\n%s", want, out)
		}
	}
	if lock, err = install.ReadLock(state); err != nil {
		t.Fatal(err)
	}
	rec = lock.Servers["test-bundle"]
	if rec.Version != "1.1.0" || rec.Previous == nil || rec.Previous.Dir != v1Dir || rec.Dir == v1Dir || rec.Bundle.Secrets["api_key"] != "test-bundle-api_key" {
		t.Fatalf("servers.lock after the upgrade: %+v", rec)
	}
	v2Dir := rec.Dir
	f, _ = config.Load(sb.configPath())
	if s := f.Servers["test-bundle"]; s.Env["TOKEN"] != "${keyring:test-bundle-api_key}" || s.Env["BUNDLE_DIR"] != folder || s.Env["LEVEL"] != "3" {
		t.Fatalf("the entry after the upgrade: %+v", s.Env)
	}
	sb.waitServer(t, "test-bundle", "the new version's tools", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools == 3 })
	if got := b.call(t, "test-bundle__reveal", map[string]any{}); got != canary {
		t.Errorf("after the upgrade the server's TOKEN is %q", got)
	}

	out = cli("bundles", "rollback", "test-bundle")
	if !strings.Contains(out, "rolled test-bundle back to test-bundle 1.0.0") {
		t.Errorf("rollback printed %q", out)
	}
	f, _ = config.Load(sb.configPath())
	if s := f.Servers["test-bundle"]; s.Env["BUNDLE_V2"] != "" || s.Env["TOKEN"] != "${keyring:test-bundle-api_key}" {
		t.Fatalf("the entry after the rollback: %+v", s.Env)
	}
	sb.waitServer(t, "test-bundle", "the old version's tools", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Tools == 2 })

	// The secret is in no file and no output.
	filepath.WalkDir(sb.root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(p, filepath.Join(".local", "share", "keyrings")) || d.Type()&fs.ModeType != 0 {
			return nil // the keyring's own file is where it belongs
		}
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(canary)) {
			t.Errorf("the secret is in %s", p)
		}
		return nil
	})
	for _, o := range outputs {
		if strings.Contains(o, canary) {
			t.Errorf("the secret is in an output of the CLI:\n%s", o)
		}
	}

	out = cli("bundles", "remove", "test-bundle")
	for _, want := range []string{"removed test-bundle", "deleted " + v1Dir, "deleted " + v2Dir, "secret test-bundle-api_key removed"} {
		if !strings.Contains(out, want) {
			t.Errorf("bundles remove printed no %q:\n%s", want, out)
		}
	}
	for _, d := range []string{v1Dir, v2Dir} {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there: %v", d, err)
		}
	}
	if strings.Contains(cli("secret", "list"), "test-bundle-api_key") {
		t.Error("the bundle's secret is still in the keyring")
	}
}

// TestBundlesInstallRefusals: a bundle refused leaves nothing behind (no
// entry, no folder in the store, no secret): a manifest with several
// problems names every one; a link in the zip; an invalid signature
// unless --insist; a required sensitive value not given, with no
// terminal to ask on.
func TestBundlesInstallRefusals(t *testing.T) {
	sb := newSandbox(t)
	writeConfig(t, sb.configPath(), `{"mcpServers": {}}`)
	state := sb.stateDir()
	nothingLeft := func(what string) {
		t.Helper()
		f, err := config.Load(sb.configPath())
		if err != nil || len(f.Servers) != 0 {
			t.Errorf("%s: the config has servers: %v %v", what, f, err)
		}
		entries, _ := os.ReadDir(install.BundlesRoot(state))
		if len(entries) != 0 {
			t.Errorf("%s: the store holds %v", what, entries)
		}
	}

	bad := testBundleManifest(sb, "1.0.0")
	bad["user_config"].(map[string]any)["folder"] = map[string]any{"type": "folder", "title": "Folder"}
	bad["server"].(map[string]any)["mcp_config"].(map[string]any)["args"] = []string{"${HOMEDIR}"}
	p := filepath.Join(sb.root, "bad.mcpb")
	packBundle(t, p, bad, nil)
	r := sb.run(t, "", "bundles", "install", p, "--set", "api_key=x")
	for _, want := range []string{`user_config.folder.type: "folder" is not a type`, "server.mcp_config.args[0]: ${HOMEDIR} is not a variable"} {
		if r.code == 0 || !strings.Contains(r.stderr, want) {
			t.Errorf("a bad manifest: no %q in %s", want, r)
		}
	}
	nothingLeft("a bad manifest")

	// A symbolic link in the zip.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mj, _ := json.Marshal(testBundleManifest(sb, "1.0.0"))
	w, _ := zw.Create("manifest.json")
	w.Write(mj)
	h := &zip.FileHeader{Name: "server/key"}
	h.SetMode(fs.ModeSymlink | 0o777)
	w, _ = zw.CreateHeader(h)
	w.Write([]byte("/home/user/.ssh/id_ed25519"))
	zw.Close()
	p = filepath.Join(sb.root, "link.mcpb")
	os.WriteFile(p, buf.Bytes(), 0o600)
	if r := sb.run(t, "", "bundles", "install", p, "--set", "api_key=x", "--set", "folder=/tmp"); r.code == 0 || !strings.Contains(r.stderr, `"server/key"`) || !strings.Contains(r.stderr, "link") {
		t.Errorf("a link in the bundle: %s", r)
	}
	nothingLeft("a link")

	// An invalid signature: the official bundle with one byte changed.
	signed, err := os.ReadFile("../bundle/testdata/official-signed.mcpb")
	if err != nil {
		t.Fatal(err)
	}
	signed[100] ^= 1
	p = filepath.Join(sb.root, "tampered.mcpb")
	os.WriteFile(p, signed, 0o600)
	if r := sb.run(t, "", "bundles", "install", p); r.code == 0 || !strings.Contains(r.stderr, "has an invalid signature") || !strings.Contains(r.stderr, "--insist") {
		t.Errorf("an invalid signature: %s", r)
	}
	nothingLeft("an invalid signature")

	// The sensitive api_key not given, stdin not a terminal.
	p = filepath.Join(sb.root, "good.mcpb")
	packBundle(t, p, testBundleManifest(sb, "1.0.0"), nil)
	if r := sb.run(t, "", "bundles", "install", p, "--set", "folder=/tmp"); r.code == 0 || !strings.Contains(r.stderr, "needs api_key (API key), which is sensitive: give it with --set api_key=VALUE") {
		t.Errorf("a sensitive value missing: %s", r)
	}
	nothingLeft("a sensitive value missing")
}

// stateDir is the state directory of a CLI run in the sandbox.
func (s *sandbox) stateDir() string {
	return config.StateDir(func(k string) string {
		if k == "HOME" {
			return s.home
		}
		return ""
	})
}
