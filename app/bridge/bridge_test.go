package bridge

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args    []string
		servers []string
		tools   []string
		help    bool
		version bool
		config  string
		mode    string
		err     string
	}{
		{args: nil},
		{args: []string{"bridge"}},
		{args: []string{"bridge", "--servers", "a, b,,c", "--tools", "a__*", "--tools=b__x"}, servers: []string{"a", "b", "c"}, tools: []string{"a__*", "b__x"}},
		{args: []string{"--servers=a", "-tools", "x"}, servers: []string{"a"}, tools: []string{"x"}},
		{args: []string{"-h"}, help: true},
		{args: []string{"bridge", "--help"}, help: true},
		{args: []string{"--version"}, version: true},
		{args: []string{"--json"}},
		{args: []string{"bridge", "--tool-mode", "search"}, mode: "search"},
		{args: []string{"--tool-mode=all", "--servers", "a"}, servers: []string{"a"}, mode: "all"},
		{args: []string{"--tool-mode"}, err: "flag --tool-mode needs a value"},
		{args: []string{"--config", "/x.json"}, config: "/x.json"},
		{args: []string{"bridge", "bridge"}, err: `unexpected "bridge"`},
		{args: []string{"--servers", "a", "extra", "more"}, err: `unexpected "extra more"`},
		{args: []string{"--", "x"}, err: `unexpected "-- x"`},
		{args: []string{"--servers"}, err: "flag --servers needs a value"},
		{args: []string{"--nope"}, err: "unknown flag --nope"},
	} {
		a, err := ParseArgs(c.args)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.args, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.args, err)
			continue
		}
		if !slices.Equal(a.Filter.Servers, c.servers) || !slices.Equal(a.Filter.Tools, c.tools) || a.Help != c.help || a.Version != c.version || a.Config != c.config || a.Filter.ToolMode != c.mode {
			t.Errorf("%q: %+v", c.args, a)
		}
	}
}

func TestFilter(t *testing.T) {
	f := Filter{Servers: []string{"a", "b"}, Tools: []string{"a__r*"}}
	for _, c := range []struct {
		server, name, exposed string
		want                  bool
	}{
		{"a", "read", "a__read", true},
		{"a", "write", "a__write", false},
		{"b", "read", "b__read", false},
		{"c", "read", "c__read", false},
		{"a", "read_long", "a__shortened_12345678", true}, // through the full name
	} {
		if got := f.SeesTool(c.server, c.name, c.exposed); got != c.want {
			t.Errorf("%s %s (%s): %v", c.server, c.name, c.exposed, got)
		}
	}
	if !(Filter{}).SeesTool("x", "y", "x__y") || !(Filter{}).IsZero() || f.IsZero() {
		t.Error("the empty filter does not let everything through")
	}
	if err := (Filter{Tools: []string{"["}}).Check(); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("a malformed pattern: %v", err)
	}
	for _, mode := range []string{"", "all", "search"} {
		if err := (Filter{ToolMode: mode}).Check(); err != nil {
			t.Errorf("tool mode %q: %v", mode, err)
		}
	}
	err := (Filter{ToolMode: "serach"}).Check()
	if err == nil || !strings.Contains(err.Error(), `"serach"`) || !strings.Contains(err.Error(), `"all"`) || !strings.Contains(err.Error(), `"search"`) {
		t.Errorf("an unknown tool mode: %v", err)
	}
	if !(Filter{ToolMode: "search"}).Search() || (Filter{ToolMode: "all"}).Search() || (Filter{}).Search() {
		t.Error("Search() does not tell the search mode")
	}
}

// TestSibling: switchboard is found next to the bridge, or next to the
// file a symbolic link to the bridge points at; else the error names where
// it looked and what to do.
func TestSibling(t *testing.T) {
	dir := t.TempDir()
	inst := filepath.Join(dir, "opt")
	links := filepath.Join(dir, "bin")
	for _, d := range []string{inst, links} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	self := filepath.Join(inst, Name)
	sb := filepath.Join(inst, "switchboard")
	for _, f := range []string{self, sb} {
		if err := os.WriteFile(f, []byte("x"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(links, Name)
	if err := os.Symlink(self, link); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	for _, from := range []string{self, link} {
		if got, err := sibling(from, "switchboard"); err != nil || got != sb {
			t.Errorf("from %s: %q, %v; want %s", from, got, err, sb)
		}
	}
	if err := os.Remove(sb); err != nil {
		t.Fatal(err)
	}
	_, err := sibling(link, "switchboard")
	if err == nil || !strings.Contains(err.Error(), filepath.Join(links, "switchboard")) || !strings.Contains(err.Error(), sb) {
		t.Errorf("no switchboard: %v", err)
	}
	// A directory of that name is not the program.
	if err := os.Mkdir(sb, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := sibling(self, "switchboard"); err == nil {
		t.Errorf("a directory was taken for switchboard: %q", got)
	}
}

// TestLocate: the bridge of switchboard.mcpb, unpacked by Claude Desktop
// in its extensions folder (server/switchboard-bridge beside the bundle's
// manifest.json) with no switchboard beside it, finds the one a package
// installed, at each OS's path; a switchboard beside it comes first; with
// none, the error names the places and the remedy. A bridge that is not in
// a bundle looks beside itself only.
func TestLocate(t *testing.T) {
	dir := t.TempDir()
	ext := filepath.Join(dir, "Claude Extensions", "switchboard")
	self := filepath.Join(ext, "server", Name)
	if err := os.MkdirAll(filepath.Dir(self), 0o755); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"ProgramW6432": `C:\Program Files`, "ProgramFiles": `C:\Program Files (x86)`, "HOME": "/Users/u"}
	getenv := func(k string) string { return env[k] }
	manifest := filepath.Join(ext, "manifest.json")
	for _, c := range []struct{ goos, installed string }{
		{"linux", "/usr/bin/switchboard"},
		{"windows", `C:\Program Files\Switchboard\switchboard.exe`},
		{"darwin", "/Applications/Switchboard.app/Contents/MacOS/switchboard"},
		{"darwin", "/Users/u/Applications/Switchboard.app/Contents/MacOS/switchboard"},
	} {
		has := func(p string) bool { return p == c.installed || p == manifest }
		if got, err := locate(self, c.goos, getenv, has); err != nil || got != c.installed {
			t.Errorf("%s: installed at %s: %q, %v", c.goos, c.installed, got, err)
		}
		_, err := locate(self, c.goos, getenv, func(p string) bool { return p == manifest })
		if err == nil || !strings.Contains(err.Error(), filepath.Dir(self)) || !strings.Contains(err.Error(), c.installed) ||
			!strings.Contains(err.Error(), "switchboard serve") {
			t.Errorf("%s: none: %v", c.goos, err)
		}
		// Not in a bundle (no manifest.json): beside itself only.
		_, err = locate(self, c.goos, getenv, func(p string) bool { return p == c.installed })
		if err == nil || strings.Contains(err.Error(), c.installed) || !strings.Contains(err.Error(), "switchboard serve") {
			t.Errorf("%s: outside a bundle: %v", c.goos, err)
		}
	}
	// Beside the bridge comes first.
	beside := filepath.Join(filepath.Dir(self), "switchboard")
	if err := os.WriteFile(beside, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got, err := locate(self, "linux", getenv, func(string) bool { return true }); err != nil || got != beside {
		t.Errorf("beside: %q, %v", got, err)
	}
}

// TestExecutable: an app's entry names switchboard-bridge when it is
// installed next to switchboard, else switchboard.
func TestExecutable(t *testing.T) {
	dir := t.TempDir()
	sb := filepath.Join(dir, "switchboard"+exeSuffix)
	if got := beside(sb); got != sb {
		t.Errorf("without the bridge: %q", got)
	}
	br := filepath.Join(dir, Name+exeSuffix)
	if err := os.WriteFile(br, []byte("x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := beside(sb); got != br {
		t.Errorf("with the bridge: %q, want %q", got, br)
	}
}

// TestMainUsage: the command line's mistakes exit 2 and write nothing to
// stdout; --help and --version exit 0.
func TestMainUsage(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code := Main(args, strings.NewReader(""), &out, &errb, func(string) string { return "" })
		return code, out.String(), errb.String()
	}
	if code, out, errs := run("--tools", "["); code != 2 || out != "" || !strings.Contains(errs, "malformed") {
		t.Errorf("a malformed pattern: %d %q %q", code, out, errs)
	}
	if code, out, errs := run("extra"); code != 2 || out != "" || !strings.Contains(errs, "--help") {
		t.Errorf("an extra argument: %d %q %q", code, out, errs)
	}
	if code, out, errs := run("bridge", "--config", "/x.json"); code != 2 || out != "" || !strings.Contains(errs, "SWITCHBOARD_CONFIG") {
		t.Errorf("--config: %d %q %q", code, out, errs)
	}
	if code, out, _ := run("--help"); code != 0 || !strings.Contains(out, "switchboard-bridge [bridge]") {
		t.Errorf("--help: %d %q", code, out)
	}
	if code, out, _ := run("--version"); code != 0 || out != Name+" "+Version+"\n" {
		t.Errorf("--version: %d %q", code, out)
	}
}
