package install

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func TestMain(m *testing.M) { os.Exit(testkit.Run(m)) }

// TestEntry: the bin node runs, from a string or a map (the one named
// like the package, else the only one), and an error naming the choices
// when neither; a path out of the package is refused.
func TestEntry(t *testing.T) {
	for _, c := range []struct{ name, bin, want, err string }{
		{"@s/srv", `"dist/index.js"`, "dist/index.js", ""},
		{"@s/srv", `{"srv": "./a.js", "other": "b.js"}`, "a.js", ""},
		{"srv", `{"srv": "a.js", "other": "b.js"}`, "a.js", ""},
		{"@s/srv", `{"mcp-srv": "dist/index.js"}`, "dist/index.js", ""},
		{"@s/srv", `{"x": "a.js", "y": "b.js"}`, "", "@s/srv has 2 programs in its bin (x, y) and none is named srv"},
		{"@s/srv", ``, "", "has no bin"},
		{"@s/srv", `"../../evil.js"`, "", "outside the package"},
		{"@s/srv", `{"srv": "/etc/passwd"}`, "", "outside the package"},
	} {
		p := packageJSON{Name: c.name, Bin: json.RawMessage(c.bin)}
		if c.bin == "" {
			p.Bin = nil
		}
		got, err := p.entry()
		if got != c.want || (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s bin %s: %q %v, want %q %q", c.name, c.bin, got, err, c.want, c.err)
		}
	}
}

// TestRequestChecks: a name npm would not publish, a range instead of a
// version: refused before npm runs.
func TestRequestChecks(t *testing.T) {
	npm := NPM{Path: "/nonexistent/npm"}
	for _, r := range []Request{
		{Package: "../etc", Version: "1.0.0"},
		{Package: "@a/../b", Version: "1.0.0"},
		{Package: "Caps", Version: "1.0.0"},
		{Package: "ok", Version: "^1.0.0"},
		{Package: "ok", Version: "latest"},
		{Package: "ok", Version: "1.0"},
	} {
		if _, err := InstallNPM(context.Background(), t.TempDir(), npm, r); err == nil || strings.Contains(err.Error(), "npm install") {
			t.Errorf("%s@%s: %v", r.Package, r.Version, err)
		}
	}
	if got := Folder("/st/switchboard", "@scope/pkg", "1.2.3"); got != filepath.FromSlash("/st/switchboard-packages/npm/@scope/pkg@1.2.3") {
		t.Errorf("Folder: %s", got)
	}
}

// fakeInstall makes an install folder as npm leaves it, with its lock.
func fakeInstall(t *testing.T) *Locked {
	dir := filepath.Join(t.TempDir(), "pkg@1.0.0")
	files := map[string]string{
		"package.json":                          `{}`,
		"package-lock.json":                     `{"packages": {"": {}, "node_modules/pkg": {"version": "1.0.0", "integrity": "sha512-AAA"}, "node_modules/dep": {"version": "2.0.0", "integrity": "sha512-BBB"}}}`,
		"node_modules/pkg/package.json":         `{"name": "pkg"}`,
		"node_modules/pkg/index.js":             `console.log("hi")`,
		"node_modules/dep/lib/with space.js":    `1`,
		"node_modules/.package-lock.json":       `{}`,
		"node_modules/dep/package.json":         `{"name": "dep"}`,
		"node_modules/dep/lib/nested/deeper.js": `2`,
	}
	for p, c := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	lines, err := Listing(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeListing(dir, lines); err != nil {
		t.Fatal(err)
	}
	return &Locked{Dir: dir, TreeIntegrity: Integrity(lines)}
}

// TestVerify: an untouched tree verifies; each change is named: a file
// changed, added, removed (a path with a space too), a package's
// integrity in package-lock.json; a listing changed as well is said to
// hide what changed; a folder gone is said.
func TestVerify(t *testing.T) {
	write := func(p, c string) {
		if err := os.WriteFile(p, []byte(c), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name   string
		change func(l *Locked)
		want   []string
	}{
		{"untouched", func(*Locked) {}, nil},
		{"file changed", func(l *Locked) { write(filepath.Join(l.Dir, "node_modules/pkg/index.js"), `steal()`) },
			[]string{"file node_modules/pkg/index.js: changed (SHA-256 was "}},
		{"file added", func(l *Locked) { write(filepath.Join(l.Dir, "node_modules/dep/lib/evil.js"), `x`) },
			[]string{"file node_modules/dep/lib/evil.js: added"}},
		{"file removed", func(l *Locked) { os.Remove(filepath.Join(l.Dir, "node_modules/dep/lib/with space.js")) },
			[]string{`file "node_modules/dep/lib/with space.js": removed`}},
		{"integrity", func(l *Locked) {
			p := filepath.Join(l.Dir, "package-lock.json")
			b, _ := os.ReadFile(p)
			write(p, strings.Replace(string(b), "sha512-BBB", "sha512-CCC", 1))
		}, []string{"package node_modules/dep: was 2.0.0 sha512-BBB, now 2.0.0 sha512-CCC", "file package-lock.json: changed"}},
		{"listing too", func(l *Locked) {
			write(filepath.Join(l.Dir, "node_modules/pkg/index.js"), `steal()`)
			write(ListingPath(l.Dir), "file x 0 -\n")
		}, []string{"what changed cannot be named: its listing " + "%DIR%.tree was changed too"}},
		{"gone", func(l *Locked) { os.RemoveAll(l.Dir) }, []string{"the install folder %DIR% is gone"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := fakeInstall(t)
			c.change(l)
			got, err := Verify(l, 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(c.want) {
				t.Fatalf("Verify: %q, want %q", got, c.want)
			}
			for i, w := range c.want {
				if w = strings.ReplaceAll(w, "%DIR%", l.Dir); !strings.Contains(got[i], w) {
					t.Errorf("Verify: %q, want %q", got[i], w)
				}
			}
		})
	}
}

func findNPM(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("npm")
	if err != nil {
		testkit.SkipOrFail(t, "npm is not installed (Debian: apt-get install npm): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		testkit.SkipOrFail(t, "node is not installed (Debian: apt-get install nodejs): %v", err)
	}
	return p
}

// fixture is a tiny MCP server package with install scripts that leave
// a marker in $SB_MARKERS; npm pack makes its tarball.
func fixture(t *testing.T, npm string) string {
	src := t.TempDir()
	marker := func(name string) string {
		return `node -e "require('fs').writeFileSync(require('path').join(process.env.SB_MARKERS, '` + name + `'), '')"`
	}
	pj, _ := json.Marshal(map[string]any{
		"name": "sb-fixture-server", "version": "1.0.0", "license": "MIT",
		"bin":     map[string]string{"sb-fixture-server": "server.js", "sb-fixture-tool": "tool.js"},
		"scripts": map[string]string{"preinstall": marker("preinstall"), "install": marker("install"), "postinstall": marker("postinstall"), "prepare": marker("prepare")},
	})
	server := `#!/usr/bin/env node
const rl = require('readline').createInterface({input: process.stdin});
rl.on('line', (l) => {
  const m = JSON.parse(l);
  if (m.method === 'initialize') process.stdout.write(JSON.stringify({jsonrpc: '2.0', id: m.id, result: {
    protocolVersion: m.params.protocolVersion, capabilities: {tools: {}}, serverInfo: {name: 'sb-fixture', version: '1.0.0'}}}) + '\n');
});
`
	for name, c := range map[string]string{"package.json": string(pj), "server.js": server, "tool.js": "#!/usr/bin/env node\n"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(c), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	cmd := exec.Command(npm, "pack", "--ignore-scripts", "--pack-destination", out)
	cmd.Dir = src
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm pack: %v\n%s", err, b)
	}
	return filepath.Join(out, "sb-fixture-server-1.0.0.tgz")
}

// initialize starts `node ENTRY ARGS...` as the config entry would and
// returns the serverInfo name of its answer to initialize over stdio.
func initialize(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return initializeCmd(t, exec.CommandContext(ctx, "node", append([]string{bin}, args...)...))
}

// initializeCmd starts cmd and returns the serverInfo name of its answer
// to initialize over stdio.
func initializeCmd(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); cmd.Process.Kill(); cmd.Wait() }()
	io := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"
	if _, err := in.Write([]byte(io)); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				ServerInfo struct{ Name string } `json:"serverInfo"`
			} `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.ID == 1 {
			return m.Result.ServerInfo.Name
		}
	}
	t.Fatalf("%s: no answer to initialize (%v)", cmd, sc.Err())
	return ""
}

// TestInstallScriptsOff: a package tarball whose preinstall, install,
// postinstall and prepare scripts each leave a marker is installed by
// the path of every install (InstallNPM, Args): no marker appears; the
// bin named like the package is chosen among two; the lock's tree
// integrity is the listing's; `node ENTRY` answers initialize; a second
// server of the same version takes the same folder; a tampered file is
// named by Verify.
func TestInstallScriptsOff(t *testing.T) {
	npm := findNPM(t)
	tgz := fixture(t, npm)
	state, markers := t.TempDir(), t.TempDir()
	n := NPM{Path: npm, Env: append(os.Environ(), "SB_MARKERS="+markers, "npm_config_cache="+filepath.Join(t.TempDir(), "cache"))}
	r := Request{Server: "fx", Registry: "local", Entry: "io.github.x/fixture", EntryVersion: "1.0.0",
		Package: "sb-fixture-server", Version: "1.0.0", Source: tgz}
	l, err := InstallNPM(context.Background(), state, n, r)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := os.ReadDir(markers); len(m) > 0 {
		t.Errorf("install scripts ran: %v", m)
	}
	dir := Folder(state, "sb-fixture-server", "1.0.0")
	if l.Dir != dir || l.Bin != filepath.Join(dir, "node_modules", "sb-fixture-server", "server.js") || l.Packages != 1 || l.Ecosystem != "npm" {
		t.Errorf("the lock entry: %+v", l)
	}
	if lines, err := Listing(dir); err != nil || Integrity(lines) != l.TreeIntegrity {
		t.Errorf("the tree integrity: %v %s, lock %s", err, Integrity(lines), l.TreeIntegrity)
	}
	if left, _ := filepath.Glob(filepath.Join(PackagesRoot(state), "npm", ".*.tmp")); len(left) > 0 {
		t.Errorf("the temporary folder is left: %v", left)
	}
	if name := initialize(t, l.Bin); name != "sb-fixture" {
		t.Errorf("node %s: serverInfo %q", l.Bin, name)
	}
	if err := UpdateLock(state, func(k *Lock) { k.Servers["fx"] = l }); err != nil {
		t.Fatal(err)
	}

	// The same version for a second server: the same folder, untouched.
	r.Server = "fx2"
	l2, err := InstallNPM(context.Background(), state, n, r)
	if err != nil || l2.TreeIntegrity != l.TreeIntegrity || l2.Dir != l.Dir {
		t.Errorf("a second install of the same version: %+v %v", l2, err)
	}

	if err := os.WriteFile(l.Bin, []byte("require('child_process').exec('curl evil')"), 0o644); err != nil {
		t.Fatal(err)
	}
	changes, err := Verify(l, 10)
	if err != nil || len(changes) != 1 || !strings.HasPrefix(changes[0], "file node_modules/sb-fixture-server/server.js: changed") {
		t.Errorf("a tampered entry: %q %v", changes, err)
	}
	// ... and a server added again does not take the tampered folder.
	if _, err := InstallNPM(context.Background(), state, n, r); err == nil || !strings.Contains(err.Error(), "that tree differs from its lock") {
		t.Errorf("an install over a tampered folder: %v", err)
	}
}

// TestInstallFromNPM: a real install from the npm registry of an MCP
// server at the version the repository's tests use: its tree is locked
// (every package with an integrity), `node ENTRY DIR` answers
// initialize, and a file of a dependency changed is named by Verify.
func TestInstallFromNPM(t *testing.T) {
	testkit.SkipShort(t, "an npm install from the npm registry")
	npm := findNPM(t)
	var pj struct{ Dependencies map[string]string }
	b, err := os.ReadFile("../../engine/stdio/testdata/npm/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		t.Fatal(err)
	}
	const pkg = "@modelcontextprotocol/server-filesystem"
	state := t.TempDir()
	l, err := InstallNPM(context.Background(), state, NPM{Path: npm}, Request{Server: "fs", Package: pkg, Version: pj.Dependencies[pkg]})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s@%s: %d packages, %s", pkg, l.Version, l.Packages, l.TreeIntegrity)
	lines, _ := Listing(l.Dir)
	for _, line := range lines {
		if strings.HasPrefix(line, "package ") && strings.HasSuffix(line, " -") {
			t.Errorf("a package without integrity: %s", line)
		}
	}
	if l.Packages < 10 || !strings.HasSuffix(l.Bin, filepath.FromSlash("server-filesystem/dist/index.js")) {
		t.Errorf("the lock entry: %+v", l)
	}
	if name := initialize(t, l.Bin, t.TempDir()); name == "" {
		t.Error("no serverInfo name")
	}
	if c, err := Verify(l, 10); c != nil || err != nil {
		t.Errorf("a fresh install does not verify: %q %v", c, err)
	}
	p := filepath.Join(l.Dir, "node_modules", "minimatch", "package.json")
	if err := os.WriteFile(p, []byte(`{"name":"minimatch","version":"0.0.1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, _ := Verify(l, 10); len(c) != 1 || !strings.HasPrefix(c[0], "file node_modules/minimatch/package.json: changed") {
		t.Errorf("a changed dependency: %q", c)
	}
}
