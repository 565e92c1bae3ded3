//go:build linux

package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestRegistryAddLocked: 'registry add' of an npm package installs it
// locked by default (a real install from the npm registry of the
// server-filesystem version the repository's tests use, published in a
// v0.1 registry on loopback): the entry runs `node ENTRY ARGS` from the
// state directory's packages folder, servers.lock records the install,
// the host starts it and lists its tools; 'servers verify' passes, then
// names a file changed under node_modules and exits 1 (of a server
// renamed since, too: by the entry point it runs); --unlocked keeps
// npx, and writes no lock entry.
func TestRegistryAddLocked(t *testing.T) {
	testkit.SkipShort(t, "an npm install from the npm registry")
	if _, err := exec.LookPath("npm"); err != nil {
		testkit.SkipOrFail(t, "npm is not installed (Debian: apt-get install npm): %v", err)
	}
	var pj struct{ Dependencies map[string]string }
	b, err := os.ReadFile("../../engine/stdio/testdata/npm/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		t.Fatal(err)
	}
	const pkg = "@modelcontextprotocol/server-filesystem"
	version := pj.Dependencies[pkg]

	sb := newSandbox(t)
	reg := registrytest.New(t)
	docs := registrytest.Documents(t)
	fsDoc := docs[slices.IndexFunc(docs, func(d registry.Server) bool { return d.Name == "io.github.modelcontextprotocol/filesystem" })]
	fsDoc.Version, fsDoc.Packages[0].Version = version, version
	reg.Publish(fsDoc)
	writeConfig(t, sb.configPath(), `{"mcpServers": {}, "registries": [{"name": "local", "url": "`+reg.URL+`"}]}`)
	sb.cli(t, "registry", "sync")

	shared := filepath.Join(sb.root, "shared")
	if err := os.MkdirAll(shared, 0o700); err != nil {
		t.Fatal(err)
	}
	out := sb.cli(t, "registry", "add", "io.github.modelcontextprotocol/filesystem", "--name", "fs", "--package", "1", "--set", "target_dir="+shared)
	state := config.StateDir(func(k string) string {
		if k == "HOME" {
			return sb.home
		}
		return ""
	})
	dir := install.Folder(state, pkg, version)
	bin := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg), "dist", "index.js")
	f, err := config.Load(sb.configPath())
	if err != nil {
		t.Fatal(err)
	}
	s := f.Servers["fs"]
	if s == nil || s.Command != "node" || !slices.Equal(s.Args, []string{bin, shared}) || s.Env["LOG_LEVEL"] != "info" {
		t.Fatalf("the locked entry: %+v\n%s", s, out)
	}
	if !strings.Contains(out, "runs:   node "+bin+" "+shared) || !strings.Contains(out, "locked: "+pkg+"@"+version+" and ") || !strings.Contains(out, "install scripts off") {
		t.Errorf("what add said:\n%s", out)
	}
	lock, err := install.ReadLock(state)
	if err != nil {
		t.Fatal(err)
	}
	l := lock.Servers["fs"]
	if l == nil || l.Registry != "local" || l.Entry != "io.github.modelcontextprotocol/filesystem" || l.EntryVersion != version ||
		l.Ecosystem != "npm" || l.Package != pkg || l.Version != version || l.Dir != dir || l.Bin != bin ||
		!strings.HasPrefix(l.TreeIntegrity, "sha256-") || l.Packages < 10 || l.InstalledAt.IsZero() {
		t.Fatalf("servers.lock: %+v", l)
	}

	// The first start, with no host: in this process, under the
	// sandbox its inputs imply (the folder argument, read and write);
	// the tools with their annotations, their hashes in the lock, and
	// the same hashes pinned in the host's pin file.
	if !strings.Contains(out, "sandbox: strict; read and write "+shared) || !strings.Contains(out, "first start (sandbox strict; read and write "+shared+"): ") ||
		!strings.Contains(out, "[read-only") || !strings.Contains(out, "their definitions' hashes are in") {
		t.Errorf("the first start:\n%s", out)
	}
	checkFirstStart(t, state, "fs", out)

	// The host starts it with node, no resolver.
	sb.serve(t)
	sb.cli(t, "servers", "start", "fs")
	st := sb.waitServer(t, "fs", "running with tools", func(st hostapi.ServerStatus) bool { return st.State == "running" && st.Tools > 0 })
	if !strings.HasSuffix(st.Resolved, "/node") {
		t.Errorf("resolved %q, want node", st.Resolved)
	}

	// The first start through the running host: its gateway takes the
	// pins as it first sees the tools.
	out = sb.cli(t, "registry", "add", "io.github.modelcontextprotocol/filesystem", "--name", "fs3", "--package", "1", "--set", "target_dir="+shared)
	checkFirstStart(t, state, "fs3", out)

	if out := sb.cli(t, "servers", "verify", "fs"); !strings.Contains(out, "fs: ok: "+pkg+"@"+version+" as locked ("+l.TreeIntegrity+")") {
		t.Errorf("verify of a fresh install:\n%s", out)
	}
	tampered := filepath.Join(dir, "node_modules", "diff", "package.json")
	if err := os.WriteFile(tampered, []byte(`{"name": "diff", "scripts": {"postinstall": "curl evil"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := sb.run(t, "", "servers", "verify")
	if r.code != 1 || !strings.Contains(r.stdout, "fs: CHANGED: "+pkg+"@"+version+" in "+dir+" differs from its lock:\n  file node_modules/diff/package.json: changed") ||
		!strings.Contains(r.stderr, "2 locked install(s) changed") {
		t.Errorf("verify of a tampered tree: %s", r)
	}
	// Renamed since: its lock entry moves with it.
	sb.cli(t, "servers", "rename", "fs", "files")
	r = sb.run(t, "", "servers", "verify", "files")
	if r.code != 1 || !strings.Contains(r.stdout, "files: CHANGED") || !strings.Contains(r.stdout, "file node_modules/diff/package.json: changed") {
		t.Errorf("verify of a renamed server: %s", r)
	}
	if lock, _ = install.ReadLock(state); lock.Servers["fs"] != nil || lock.Servers["files"] == nil || lock.Servers["files"].Bin != bin {
		t.Errorf("servers.lock after the rename: %v", lock.Servers)
	}
	r = sb.run(t, "", "servers", "verify", "nope")
	if r.code != 1 || !strings.Contains(r.stderr, "nope has no locked install") {
		t.Errorf("verify of a server without a lock: %s", r)
	}

	// --unlocked: npx; the lock records the registry entry it came
	// from (for sync and upgrades), with no install to verify.
	// Not a locked install: not started at the add (npx fetches at its
	// start; its first start is the host's).
	if out := sb.cli(t, "registry", "add", "io.github.modelcontextprotocol/filesystem", "--name", "fs2", "--package", "1", "--unlocked"); !strings.Contains(out, "not started now (not a locked install)") {
		t.Errorf("an unlocked add:\n%s", out)
	}
	if f, _ := config.Load(sb.configPath()); f.Servers["fs2"] == nil || f.Servers["fs2"].Command != "npx" {
		t.Errorf("--unlocked: %+v", f.Servers["fs2"])
	}
	lock, _ = install.ReadLock(state)
	if l := lock.Servers["fs2"]; l == nil || l.Installed() || l.Entry != "io.github.modelcontextprotocol/filesystem" || l.Ecosystem != "npm" || l.Registry != "local" {
		t.Errorf("--unlocked's lock entry: %+v", l)
	}
	r = sb.run(t, "", "servers", "verify", "fs2")
	if r.code != 1 || !strings.Contains(r.stderr, "without a locked install") {
		t.Errorf("verify of an unlocked server: %s", r)
	}
	if r = sb.run(t, "", "servers", "verify"); !strings.Contains(r.stdout, "files: CHANGED") || strings.Contains(r.stdout, "fs2") {
		t.Errorf("verify of every server lists an unlocked one: %s", r)
	}
}

// checkFirstStart: the lock's record of name holds a hash for each tool
// the add listed (read_file among them), and the pin file holds the same
// hash for each, trusted (eventually: a host writes it as its gateway
// sees the list).
func checkFirstStart(t *testing.T, state, name, out string) {
	t.Helper()
	lock, err := install.ReadLock(state)
	if err != nil {
		t.Fatal(err)
	}
	l := lock.Servers[name]
	if l == nil || len(l.Tools) < 5 || !strings.HasPrefix(l.Tools["read_file"], "sha256:") || l.ToolsAt.IsZero() {
		t.Fatalf("%s's tools in servers.lock: %+v\n%s", name, l, out)
	}
	for tool := range l.Tools {
		if !strings.Contains(out, "  "+tool+" ") {
			t.Errorf("the add did not show %s:\n%s", tool, out)
		}
	}
	pins := filepath.Join(state, "pins.json")
	testkit.Eventually(t, fmt.Sprintf("the pins of %s in %s agree with servers.lock", name, pins), func() bool {
		var f struct {
			Servers map[string]struct {
				Tools map[string]struct {
					State  string
					Pinned struct{ Hash string }
				}
			}
		}
		b, err := os.ReadFile(pins)
		if err != nil || json.Unmarshal(b, &f) != nil {
			return false
		}
		got := f.Servers[name].Tools
		if len(got) != len(l.Tools) {
			return false
		}
		for tool, h := range l.Tools {
			if got[tool].State != "trusted" || got[tool].Pinned.Hash != h {
				return false
			}
		}
		return true
	})
}
