//go:build linux

package cli

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// pyWheel builds a pure-Python wheel of project at version (its files,
// METADATA with requires, console scripts, RECORD).
func pyWheel(t *testing.T, project, version string, requires []string, scripts, files map[string]string) (string, []byte) {
	t.Helper()
	dist := strings.ReplaceAll(project, "-", "_")
	info := dist + "-" + version + ".dist-info/"
	meta := "Metadata-Version: 2.1\nName: " + project + "\nVersion: " + version + "\n"
	for _, r := range requires {
		meta += "Requires-Dist: " + r + "\n"
	}
	all := maps.Clone(files)
	all[info+"METADATA"] = meta
	all[info+"WHEEL"] = "Wheel-Version: 1.0\nGenerator: switchboard-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
	if len(scripts) > 0 {
		eps := "[console_scripts]\n"
		for _, k := range slices.Sorted(maps.Keys(scripts)) {
			eps += k + " = " + scripts[k] + "\n"
		}
		all[info+"entry_points.txt"] = eps
	}
	var record strings.Builder
	for _, k := range slices.Sorted(maps.Keys(all)) {
		sum := sha256.Sum256([]byte(all[k]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", k, base64.RawURLEncoding.EncodeToString(sum[:]), len(all[k]))
	}
	record.WriteString(info + "RECORD,,\n")
	all[info+"RECORD"] = record.String()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, k := range slices.Sorted(maps.Keys(all)) {
		w, err := z.Create(k)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(all[k]))
	}
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return dist + "-" + version + "-py3-none-any.whl", buf.Bytes()
}

// upPyServer is a tiny MCP server over stdio in Python's standard
// library; its tools come from its dependency.
const upPyServer = `import json, sys
from sb_up_dep import TOOLS

def main():
    for line in sys.stdin:
        m = json.loads(line)
        if "id" not in m:
            continue
        meth = m.get("method")
        if meth == "initialize":
            r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}}, "serverInfo": {"name": "up-py", "version": "1"}}
        elif meth == "tools/list":
            r = {"tools": TOOLS}
        elif meth == "ping":
            r = {}
        else:
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "error": {"code": -32601, "message": "no method"}}) + "\n")
            sys.stdout.flush()
            continue
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}) + "\n")
        sys.stdout.flush()
`

// TestRegistryUpgradePyPI: a server added from a loopback registry as a
// locked PyPI install (its wheels from a loopback package index) gets a
// version whose dependency moves and which adds a tool; 'registry
// upgrade' installs it in a venv beside the old one, shows the
// requirements' diff and the tools of a sandboxed dry start, refuses to
// switch without --yes, switches the entry's venv python and the lock
// record together with it; 'registry rollback' returns to the old venv.
func TestRegistryUpgradePyPI(t *testing.T) {
	testkit.SkipShort(t, "Python venv installs and server starts")
	if _, err := exec.LookPath("python3"); err != nil {
		testkit.SkipOrFail(t, "python3 is not installed (Debian: apt-get install python3 python3-venv): %v", err)
	}
	files, pages := map[string][]byte{}, map[string][]string{}
	add := func(project, name string, b []byte) {
		files[name] = b
		pages[project] = append(pages[project], name)
	}
	tool := func(name, desc string) string {
		return `{"name": "` + name + `", "description": "` + desc + `", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}`
	}
	for v, tools := range map[string]string{"1.0.0": tool("echo", "Echo v1"), "2.0.0": tool("echo", "Echo v1") + ", " + tool("shout", "Shouts it back")} {
		n, b := pyWheel(t, "sb-up-py", v, []string{"sb-up-dep==" + v}, map[string]string{"sb-up-py": "sb_up_py:main"}, map[string]string{"sb_up_py/__init__.py": upPyServer})
		add("sb-up-py", n, b)
		n, b = pyWheel(t, "sb-up-dep", v, nil, nil, map[string]string{"sb_up_dep/__init__.py": "TOOLS = [" + tools + "]\n"})
		add("sb-up-dep", n, b)
	}
	ix := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p, ok := strings.CutPrefix(r.URL.Path, "/simple/"); ok {
			fmt.Fprint(w, "<!DOCTYPE html><html><body>\n")
			for _, n := range pages[strings.TrimSuffix(p, "/")] {
				sum := sha256.Sum256(files[n])
				fmt.Fprintf(w, "<a href=\"/files/%s#sha256=%s\">%s</a>\n", n, hex.EncodeToString(sum[:]), n)
			}
			fmt.Fprint(w, "</body></html>\n")
			return
		}
		if b, ok := files[strings.TrimPrefix(r.URL.Path, "/files/")]; ok {
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	defer ix.Close()

	sb := newSandbox(t)
	sb.env = append(sb.env, "PIP_INDEX_URL="+ix.URL+"/simple/", "PIP_NO_CACHE_DIR=1", "PIP_CONFIG_FILE=/dev/null")
	reg := registrytest.New(t)
	doc := func(v string) registry.Server {
		return registry.Server{Name: "io.github.example/up-py", Description: "a Python server to upgrade", Version: v,
			Packages: []registry.Package{{RegistryType: "pypi", Identifier: "sb-up-py", Version: v, Transport: registry.Transport{Type: "stdio"}}}}
	}
	reg.Publish(doc("1.0.0"))
	writeConfig(t, sb.configPath(), `{"mcpServers": {}, "registries": [{"name": "local", "url": "`+reg.URL+`"}]}`)
	sb.cli(t, "registry", "sync")
	out := sb.cli(t, "registry", "add", "io.github.example/up-py", "--name", "py")
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
	v1 := lock.Servers["py"]
	if v1 == nil || v1.Ecosystem != "pypi" || v1.Version != "1.0.0" || !v1.Installed() {
		t.Fatalf("the lock after the add: %+v\n%s", v1, out)
	}
	entryV1 := func() *config.Server {
		f, err := config.Load(sb.configPath())
		if err != nil {
			t.Fatal(err)
		}
		return f.Servers["py"]
	}
	s1 := entryV1()
	if s1.Command != v1.Bin {
		t.Fatalf("the entry after the add: %+v", s1)
	}

	reg.Tick(time.Since(reg.Tick(0)) - time.Hour)
	reg.Publish(doc("2.0.0"))
	sb.cli(t, "registry", "sync")
	r := sb.run(t, "", "registry", "upgrade", "py", "--allow-new")
	for _, want := range []string{"py: io.github.example/up-py 1.0.0 -> 2.0.0 (package sb-up-py 1.0.0 -> 2.0.0)", "package tree (2 packages",
		"sb-up-dep: 1.0.0 -> 2.0.0", "sb-up-py: 1.0.0 -> 2.0.0", "+ shout: added [read-only] Shouts it back"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the review lacks %q", want)
		}
	}
	if r.code != 1 || !strings.Contains(r.stderr, "stdin is not a terminal") {
		t.Errorf("an upgrade without --yes: %s", r)
	}
	if s := entryV1(); s.Command != v1.Bin {
		t.Errorf("the entry changed without --yes: %+v", s)
	}

	out = sb.cli(t, "registry", "upgrade", "py", "--allow-new", "--yes")
	lock, _ = install.ReadLock(state)
	v2 := lock.Servers["py"]
	if v2 == nil || v2.Version != "2.0.0" || v2.Dir == v1.Dir || v2.Previous == nil || v2.Previous.Dir != v1.Dir || v2.Tools["shout"] == "" {
		t.Fatalf("the lock after the upgrade: %+v\n%s", v2, out)
	}
	if s := entryV1(); s.Command != v2.Bin || !slices.Equal(s.Args, v2.Args) {
		t.Errorf("the entry after the upgrade: %+v", s)
	}

	out = sb.cli(t, "registry", "rollback", "py")
	lock, _ = install.ReadLock(state)
	if back := lock.Servers["py"]; back == nil || back.Dir != v1.Dir || back.TreeIntegrity != v1.TreeIntegrity || back.Previous != nil {
		t.Errorf("the lock after the rollback: %+v\n%s", back, out)
	}
	if s := entryV1(); s.Command != v1.Bin || !slices.Equal(s.Args, s1.Args) {
		t.Errorf("the entry after the rollback: %+v", s)
	}
}
