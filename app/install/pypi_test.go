package install

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// wheel builds a pure-Python wheel of project at version: its files,
// its METADATA (with requires), its console scripts, a RECORD.
func wheel(t *testing.T, project, version string, requires []string, scripts map[string]string, files map[string]string) (string, []byte) {
	t.Helper()
	dist := strings.ReplaceAll(project, "-", "_")
	info := dist + "-" + version + ".dist-info/"
	meta := "Metadata-Version: 2.1\nName: " + project + "\nVersion: " + version + "\n"
	for _, r := range requires {
		meta += "Requires-Dist: " + r + "\n"
	}
	all := map[string]string{}
	for k, v := range files {
		all[k] = v
	}
	all[info+"METADATA"] = meta
	all[info+"WHEEL"] = "Wheel-Version: 1.0\nGenerator: switchboard-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
	if len(scripts) > 0 {
		eps := "[console_scripts]\n"
		for _, k := range slices.Sorted(mapsKeys(scripts)) {
			eps += k + " = " + scripts[k] + "\n"
		}
		all[info+"entry_points.txt"] = eps
	}
	var record strings.Builder
	for _, k := range slices.Sorted(mapsKeys(all)) {
		sum := sha256.Sum256([]byte(all[k]))
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", k, base64.RawURLEncoding.EncodeToString(sum[:]), len(all[k]))
	}
	record.WriteString(info + "RECORD,,\n")
	all[info+"RECORD"] = record.String()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, k := range slices.Sorted(mapsKeys(all)) {
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

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// pyIndex is a PEP 503 "simple" package index on loopback: each
// project's page links its wheels with #sha256= as PyPI does. After
// swap, a wheel's later downloads get other bytes and its page no
// longer gives the hash (an index, or a network in between, that
// changed the file after the resolution).
type pyIndex struct {
	*httptest.Server
	mu      sync.Mutex
	files   map[string][]byte   // file name: bytes
	pages   map[string][]string // normalized project: file names
	swap    map[string][]byte   // file name: the bytes served once it was served once
	fetched map[string]int      // file name: downloads
}

func newPyIndex(t *testing.T) *pyIndex {
	ix := &pyIndex{files: map[string][]byte{}, pages: map[string][]string{}, swap: map[string][]byte{}, fetched: map[string]int{}}
	ix.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ix.mu.Lock()
		defer ix.mu.Unlock()
		w.Header().Set("Cache-Control", "no-store")
		if p, ok := strings.CutPrefix(r.URL.Path, "/simple/"); ok {
			names, ok := ix.pages[strings.TrimSuffix(p, "/")]
			if !ok {
				http.NotFound(w, r)
				return
			}
			fmt.Fprint(w, "<!DOCTYPE html><html><body>\n")
			for _, n := range names {
				frag := ""
				if _, swapped := ix.swap[n]; !swapped || ix.fetched[n] == 0 {
					sum := sha256.Sum256(ix.files[n])
					frag = "#sha256=" + hex.EncodeToString(sum[:])
				}
				fmt.Fprintf(w, "<a href=\"/files/%s%s\">%s</a>\n", n, frag, n)
			}
			fmt.Fprint(w, "</body></html>\n")
			return
		}
		if n, ok := strings.CutPrefix(r.URL.Path, "/files/"); ok {
			b, ok := ix.files[n]
			if !ok {
				http.NotFound(w, r)
				return
			}
			if other, swapped := ix.swap[n]; swapped && ix.fetched[n] > 0 {
				b = other
			}
			ix.fetched[n]++
			w.Write(b)
			return
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(ix.Close)
	return ix
}

func (ix *pyIndex) add(project, file string, b []byte) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.files[file] = b
	p := normalizePyPI(project)
	ix.pages[p] = append(ix.pages[p], file)
}

// pyServer is a tiny MCP server over stdio, in Python's standard
// library only; its name comes from its dependency (a second package).
const pyServer = `import json, sys
from sb_fixture_dep import NAME

def main():
    for line in sys.stdin:
        m = json.loads(line)
        if m.get("method") == "initialize":
            sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {
                "protocolVersion": m["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": NAME, "version": "1.0.0"}}}) + "\n")
            sys.stdout.flush()

def other():
    pass
`

func findPython(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		testkit.SkipOrFail(t, "python3 is not installed (Debian: apt-get install python3 python3-venv): %v", err)
	}
	return p
}

// fixtureIndex serves sb-fixture-py 1.0.0 (a server with two console
// scripts, one named like it) and its dependency sb-fixture-dep 2.0.0.
func fixtureIndex(t *testing.T) *pyIndex {
	ix := newPyIndex(t)
	n, b := wheel(t, "sb-fixture-py", "1.0.0", []string{"sb-fixture-dep>=2"},
		map[string]string{"sb-fixture-py": "sb_fixture_py:main", "sb-fixture-other": "sb_fixture_py:other"},
		map[string]string{"sb_fixture_py/__init__.py": pyServer})
	ix.add("sb-fixture-py", n, b)
	n, b = wheel(t, "sb-fixture-dep", "2.0.0", nil, nil, map[string]string{"sb_fixture_dep/__init__.py": "NAME = 'sb-fixture-py'\n"})
	ix.add("sb_fixture_dep", n, b)
	return ix
}

func pythonFor(t *testing.T, ix *pyIndex) Python {
	env := append(os.Environ(), "PIP_NO_CACHE_DIR=1", "PIP_FIND_LINKS=", "PIP_CONFIG_FILE="+os.DevNull)
	return Python{Path: findPython(t), Env: env, Index: ix.URL + "/simple/"}
}

// initializeArgv starts argv as the config entry would and returns the
// serverInfo name of its answer to initialize over stdio.
func initializeArgv(t *testing.T, argv ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return initializeCmd(t, exec.CommandContext(ctx, argv[0], argv[1:]...))
}

// TestInstallPyPI: a server and its dependency from a loopback index
// are installed into a venv of their own: the requirements pin both
// with the index's SHA-256, the lock's tree integrity is the listing's,
// the venv's python with the console script named like the package
// answers initialize (and a first start leaves the tree as locked), a
// second server takes the same folder, and a file changed in the venv
// is named by Verify and refused to a new add.
func TestInstallPyPI(t *testing.T) {
	ix := fixtureIndex(t)
	py := pythonFor(t, ix)
	state := t.TempDir()
	r := Request{Server: "fx", Registry: "local", Entry: "io.github.x/fixture", EntryVersion: "1.0.0", Package: "sb_fixture.py", Version: "1.0.0"}
	l, err := InstallPyPI(context.Background(), state, py, r)
	if err != nil {
		t.Fatal(err)
	}
	dir := PyPIFolder(state, "sb-fixture-py", "1.0.0")
	if l.Dir != dir || l.Bin != venvPython(dir) || l.Packages != 2 || l.Ecosystem != "pypi" || l.Package != "sb-fixture-py" ||
		len(l.Args) != 2 || l.Args[0] != "-c" || !strings.Contains(l.Args[1], "from sb_fixture_py import main") {
		t.Fatalf("the lock entry: %+v", l)
	}
	reqs, err := os.ReadFile(filepath.Join(dir, RequirementsFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"sb_fixture_py-1.0.0-py3-none-any.whl", "sb_fixture_dep-2.0.0-py3-none-any.whl"} {
		sum := sha256.Sum256(ix.files[f])
		name, version, _ := strings.Cut(strings.TrimSuffix(f, "-py3-none-any.whl"), "-")
		want := normalizePyPI(name) + "==" + version + " --hash=sha256:" + hex.EncodeToString(sum[:])
		if !strings.Contains(string(reqs), want+"\n") {
			t.Errorf("%s has no %q:\n%s", RequirementsFile, want, reqs)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(PackagesRoot(state), "pypi", ".*")); len(left) > 0 {
		t.Errorf("temporary folders are left: %v", left)
	}
	if name := initializeArgv(t, append([]string{l.Bin}, l.Args...)...); name != "sb-fixture-py" {
		t.Errorf("%s %q: serverInfo %q", l.Bin, l.Args, name)
	}
	if c, err := Verify(l, 10); c != nil || err != nil {
		t.Errorf("after a first start the tree differs from its lock: %q %v", c, err)
	}
	if err := UpdateLock(state, func(k *Lock) { k.Servers["fx"] = l }); err != nil {
		t.Fatal(err)
	}
	r.Server = "fx2"
	l2, err := InstallPyPI(context.Background(), state, py, r)
	if err != nil || l2.TreeIntegrity != l.TreeIntegrity || l2.Dir != l.Dir || !slices.Equal(l2.Args, l.Args) {
		t.Errorf("a second install of the same version: %+v %v", l2, err)
	}
	sp, _ := filepath.Glob(filepath.Join(dir, "lib", "python*", "site-packages", "sb_fixture_dep", "__init__.py"))
	if runtime.GOOS == "windows" {
		sp = []string{filepath.Join(dir, "Lib", "site-packages", "sb_fixture_dep", "__init__.py")}
	}
	if len(sp) != 1 {
		t.Fatalf("the dependency's file: %v", sp)
	}
	if err := os.WriteFile(sp[0], []byte("NAME = 'evil'\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(dir, sp[0])
	if c, _ := Verify(l, 10); len(c) != 1 || !strings.HasPrefix(c[0], "file "+filepath.ToSlash(rel)+": changed") {
		t.Errorf("a changed dependency: %q", c)
	}
	if _, err := InstallPyPI(context.Background(), state, py, r); err == nil || !strings.Contains(err.Error(), "that tree differs from its lock") {
		t.Errorf("an install over a tampered folder: %v", err)
	}
}

// TestInstallPyPIHashChecked: the dependency's file changes after the
// resolution (the index serves other bytes, and no longer gives the
// hash on its page): pip's install refuses it against the pinned
// SHA-256, and nothing is installed.
func TestInstallPyPIHashChecked(t *testing.T) {
	ix := fixtureIndex(t)
	_, evil := wheel(t, "sb-fixture-dep", "2.0.0", nil, nil, map[string]string{"sb_fixture_dep/__init__.py": "NAME = 'evil'\n"})
	ix.mu.Lock()
	ix.swap["sb_fixture_dep-2.0.0-py3-none-any.whl"] = evil
	ix.mu.Unlock()
	state := t.TempDir()
	_, err := InstallPyPI(context.Background(), state, pythonFor(t, ix), Request{Server: "fx", Package: "sb-fixture-py", Version: "1.0.0"})
	if err == nil || !strings.Contains(err.Error(), "DO NOT MATCH THE HASHES") {
		t.Fatalf("an install whose file changed after the resolution: %v", err)
	}
	ix.mu.Lock()
	fetched := ix.fetched["sb_fixture_dep-2.0.0-py3-none-any.whl"]
	ix.mu.Unlock()
	if fetched < 2 {
		t.Fatalf("the changed file was not downloaded again (%d): the test did not test", fetched)
	}
	if left, _ := os.ReadDir(filepath.Join(PackagesRoot(state), "pypi")); len(left) > 0 {
		t.Errorf("a refused install left %v", left)
	}
}

// TestPyPIRequestChecks: a name PyPI would not have, a range or a tag
// instead of a version: refused before python runs.
func TestPyPIRequestChecks(t *testing.T) {
	py := Python{Path: "/nonexistent/python3"}
	for _, r := range []Request{
		{Package: "../etc", Version: "1.0.0"},
		{Package: "a b", Version: "1.0.0"},
		{Package: "ok", Version: ">=1.0"},
		{Package: "ok", Version: "1.0.*"},
		{Package: "ok", Version: "latest"},
		{Package: "ok", Version: "1.0+local"},
	} {
		if _, err := InstallPyPI(context.Background(), t.TempDir(), py, r); err == nil || strings.Contains(err.Error(), "venv") {
			t.Errorf("%s==%s: %v", r.Package, r.Version, err)
		}
	}
	for v, ok := range map[string]bool{"pip 23.0.1 from /x (python 3.11)": true, "pip 22.2 from /x": true, "pip 22.0.2 from /x (python 3.10)": false, "pip 9.0.1": false, "Python 3": false} {
		if err := pipNewEnough(v); (err == nil) != ok {
			t.Errorf("pip --version %q: %v", v, err)
		}
	}
	if got := PyPIFolder("/st/switchboard", "Mcp_Server.Time", "2025.9.25"); got != filepath.FromSlash("/st/switchboard-packages/pypi/mcp-server-time@2025.9.25") {
		t.Errorf("PyPIFolder: %s", got)
	}
}
