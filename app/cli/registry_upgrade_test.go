//go:build linux

package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// upServer is a tiny MCP server (newline-delimited JSON-RPC on stdio,
// no dependency) that lists the tools TOOLS.
const upServer = `#!/usr/bin/env node
const tools = TOOLS;
require('readline').createInterface({input: process.stdin}).on('line', (l) => {
  let m; try { m = JSON.parse(l); } catch (e) { return; }
  if (m.id === undefined) return;
  let result;
  if (m.method === 'initialize') result = {protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'up', version: '1'}};
  else if (m.method === 'tools/list') result = {tools};
  else if (m.method === 'ping') result = {};
  else { process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, error: {code: -32601, message: 'no method'}}) + '\n'); return; }
  process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, result}) + '\n');
});
`

// npmTarball packs files as an npm package tarball (package/...).
func npmTarball(t *testing.T, files map[string]string) []byte {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg, ModTime: time.Unix(1700000000, 0)}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// TestRegistryUpgrade: a server added from a loopback registry (its npm
// package from a loopback npm registry) gets a new version that adds a
// tool, changes one, adds an environment variable and a package with an
// install script; 'registry upgrade' refuses a release younger than 3
// days, shows the three diffs and refuses to switch without a terminal
// or --yes; with --yes the entry and the lock switch together; 'registry
// rollback' returns to the old argv and lock record; no install script
// ever ran.
func TestRegistryUpgrade(t *testing.T) {
	testkit.SkipShort(t, "npm installs and server starts")
	for _, p := range []string{"npm", "node"} {
		if _, err := exec.LookPath(p); err != nil {
			testkit.SkipOrFail(t, "%s is not installed (Debian: apt-get install npm): %v", p, err)
		}
	}
	const pkg = "sb-upgrade-server"
	marker := filepath.Join(t.TempDir(), "install-script-ran")
	echo := func(desc string) map[string]any {
		return map[string]any{"name": "echo", "description": desc, "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"readOnlyHint": true}}
	}
	versions := map[string][]map[string]any{
		"1.0.0": {echo("Echo v1: says it back")},
		"2.0.0": {echo("Echo v2: says it back, louder"), {"name": "delete_all", "description": "Deletes everything", "inputSchema": map[string]any{"type": "object"}, "annotations": map[string]any{"destructiveHint": true}}},
	}
	tarballs := map[string][]byte{}
	npmReg := httptest.NewServer(nil)
	defer npmReg.Close()
	packument := map[string]any{"name": pkg, "dist-tags": map[string]string{"latest": "2.0.0"}}
	vs := map[string]any{}
	for v, tools := range versions {
		tj, _ := json.Marshal(tools)
		pj := map[string]any{"name": pkg, "version": v, "bin": map[string]string{pkg: "server.js"}}
		if v == "2.0.0" {
			pj["scripts"] = map[string]string{"postinstall": "node -e \"require('fs').writeFileSync('" + marker + "', '')\""}
		}
		pjb, _ := json.Marshal(pj)
		tgz := npmTarball(t, map[string]string{"package.json": string(pjb), "server.js": strings.Replace(upServer, "TOOLS", string(tj), 1)})
		tarballs[v] = tgz
		s512 := sha512.Sum512(tgz)
		s1 := sha1.Sum(tgz)
		meta := map[string]any{}
		json.Unmarshal(pjb, &meta)
		meta["dist"] = map[string]string{"tarball": npmReg.URL + "/" + pkg + "/-/" + pkg + "-" + v + ".tgz",
			"integrity": "sha512-" + base64.StdEncoding.EncodeToString(s512[:]), "shasum": hex.EncodeToString(s1[:])}
		if v == "2.0.0" {
			meta["hasInstallScript"] = true
		}
		vs[v] = meta
	}
	packument["versions"] = vs
	pb, _ := json.Marshal(packument)
	npmReg.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/"+pkg:
			w.Header().Set("Content-Type", "application/json")
			w.Write(pb)
		case strings.HasPrefix(r.URL.Path, "/"+pkg+"/-/"+pkg+"-"):
			v := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/"+pkg+"/-/"+pkg+"-"), ".tgz")
			if b, ok := tarballs[v]; ok {
				w.Write(b)
				return
			}
			http.NotFound(w, r)
		default:
			http.NotFound(w, r)
		}
	})

	sb := newSandbox(t)
	sb.env = append(sb.env, "npm_config_registry="+npmReg.URL+"/")
	reg := registrytest.New(t)
	doc := func(v string, env ...registry.KeyValue) registry.Server {
		return registry.Server{Name: "io.github.example/upgrade", Description: "a server to upgrade", Version: v,
			Packages: []registry.Package{{RegistryType: "npm", Identifier: pkg, Version: v, Transport: registry.Transport{Type: "stdio"},
				EnvironmentVariables: append([]registry.KeyValue{{Name: "LOG_LEVEL", Input: registry.Input{Default: "info"}}}, env...)}}}
	}
	reg.Publish(doc("1.0.0"))
	writeConfig(t, sb.configPath(), `{"mcpServers": {}, "registries": [{"name": "local", "url": "`+reg.URL+`"}]}`)
	sb.cli(t, "registry", "sync")
	out := sb.cli(t, "registry", "add", "io.github.example/upgrade", "--name", "up")
	if !strings.Contains(out, "sandbox: strict") || !strings.Contains(out, "echo") {
		t.Fatalf("the add:\n%s", out)
	}
	state := config.StateDir(func(k string) string {
		if k == "HOME" {
			return sb.home
		}
		return ""
	})
	lock, err := install.ReadLock(state)
	if err != nil {
		t.Fatal(err)
	}
	v1 := lock.Servers["up"]
	if v1 == nil || v1.Version != "1.0.0" || len(v1.Tools) != 1 {
		t.Fatalf("the lock after the add: %+v", v1)
	}
	entryV1, _ := config.Load(sb.configPath())
	argsV1 := entryV1.Servers["up"].Args

	// Version 2, published an hour ago.
	reg.Tick(time.Since(reg.Tick(0)) - time.Hour)
	reg.Publish(doc("2.0.0", registry.KeyValue{Name: "UP_MODE", Input: registry.Input{Default: "fast", Description: "how"}}))
	sb.cli(t, "registry", "sync")
	r := sb.run(t, "", "registry", "upgrade", "up")
	if r.code != 1 || !strings.Contains(r.stderr, "younger than 3 days") || !strings.Contains(r.stderr, "--allow-new") {
		t.Fatalf("an upgrade to a new release: %s", r)
	}
	r = sb.run(t, "", "registry", "upgrade", "up", "--allow-new")
	for _, want := range []string{"up: io.github.example/upgrade 1.0.0 -> 2.0.0", "environment variable UP_MODE: added",
		"node_modules/" + pkg + ": 1.0.0 -> 2.0.0", "node_modules/" + pkg + ": NEW install script",
		"+ delete_all: added [destructive] Deletes everything", "~ echo: changed", "was: Echo v1: says it back", "now: Echo v2: says it back, louder"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the review lacks %q", want)
		}
	}
	if r.code != 1 || !strings.Contains(r.stderr, "stdin is not a terminal") || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("an upgrade without a terminal or --yes: %s", r)
	}
	if f, _ := config.Load(sb.configPath()); strings.Join(f.Servers["up"].Args, " ") != strings.Join(argsV1, " ") {
		t.Errorf("the entry changed without --yes: %v", f.Servers["up"].Args)
	}

	out = sb.cli(t, "registry", "upgrade", "up", "--allow-new", "--yes")
	f, _ := config.Load(sb.configPath())
	lock, _ = install.ReadLock(state)
	v2 := lock.Servers["up"]
	if v2 == nil || v2.Version != "2.0.0" || v2.Previous == nil || v2.Previous.Version != "1.0.0" || len(v2.Tools) != 2 || v2.Tools["delete_all"] == "" {
		t.Fatalf("the lock after the upgrade: %+v\n%s", v2, out)
	}
	if s := f.Servers["up"]; s.Args[0] != v2.Bin || s.Env["UP_MODE"] != "fast" {
		t.Errorf("the entry after the upgrade: %+v", s)
	}
	if _, err := os.Stat(v1.Dir); err != nil {
		t.Errorf("the old install is gone: %v", err)
	}

	out = sb.cli(t, "registry", "rollback", "up")
	f, _ = config.Load(sb.configPath())
	lock, _ = install.ReadLock(state)
	back := lock.Servers["up"]
	if strings.Join(f.Servers["up"].Args, " ") != strings.Join(argsV1, " ") || back == nil || back.Version != "1.0.0" || back.Bin != v1.Bin ||
		back.TreeIntegrity != v1.TreeIntegrity || back.Tools["echo"] != v1.Tools["echo"] || back.Previous != nil {
		t.Errorf("after the rollback: %v %+v\n%s", f.Servers["up"].Args, back, out)
	}
	if r := sb.run(t, "", "registry", "rollback", "up"); r.code != 1 || !strings.Contains(r.stderr, "no previous install") {
		t.Errorf("a second rollback: %s", r)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("an install script ran")
	}
}
