// Package deptest checks who imports whom, in the style of tailscale's
// tstest/deptest: `go list -deps` of every package of the module, for
// each OS the app ships on, against the rules below (docs/architecture.md
// says the same in words). A rule broken names the package, the import
// and the rule.
package deptest

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/switchboard-mcp/switchboard"

// pkg is what go list says of a package.
type pkg struct {
	ImportPath string
	Imports    []string // direct, not of its tests
	Deps       []string // transitive, not of its tests
	Error      *struct{ Err string }
}

// rel is a path inside the module ("app/host"), or "" for one outside it.
func rel(path string) string {
	if path == module {
		return "."
	}
	if r, ok := strings.CutPrefix(path, module+"/"); ok {
		return r
	}
	return ""
}

// under says whether p is dir or inside it.
func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// rule is one constraint on the packages it applies to.
type rule struct {
	name    string
	applies func(p string) bool
	// direct: only a package's own imports count; otherwise its whole
	// dependency closure does.
	direct    bool
	forbidden func(dep string) bool
}

// rules are the house's walls.
var rules = []rule{
	{
		// The UI is a client of the app's API: it may read and edit the
		// config file, but what runs servers (the host, its wiring, the
		// call pipeline, the gateway) and the engine are not in its build.
		name:    "a front end (ui/...) and the API client (app/client) depend on nothing of the engine, the host, the relay or the gateway",
		applies: func(p string) bool { return under(p, "ui") || p == "app/client" },
		forbidden: func(d string) bool {
			return under(d, "engine") || under(d, "app/host") || d == "app/hostrun" ||
				under(d, "app/relay") || under(d, "app/gateway")
		},
	},
	{
		name:    "the API client (app/client) depends on the local API and the contract only",
		applies: func(p string) bool { return p == "app/client" },
		// internal/accept, the local API's accept loop, imports nothing
		// of the module.
		forbidden: func(d string) bool { return d != "" && d != "app/api" && d != "app/hostapi" && d != "internal/accept" },
	},
	{
		name:      "the contract (app/hostapi), the accept loop (internal/accept) and the rules of a server's spec (internal/serverspec) depend on nothing of the module",
		applies:   func(p string) bool { return p == "app/hostapi" || p == "internal/accept" || p == "internal/serverspec" },
		forbidden: func(d string) bool { return d != "" },
	},
	{
		name:      "the command line (app/...) reaches the host only through app/hostrun, the wiring of serve",
		applies:   func(p string) bool { return under(p, "app") && !under(p, "app/host") && p != "app/hostrun" },
		direct:    true,
		forbidden: func(d string) bool { return d == "app/host" },
	},
	{
		name:      "the app (app/..., its tools included) knows nothing of the UI (ui/...)",
		applies:   func(p string) bool { return under(p, "app") },
		forbidden: func(d string) bool { return under(d, "ui") },
	},
	{
		name:      "the engine (engine/...) knows nothing of the app or the UI",
		applies:   func(p string) bool { return under(p, "engine") },
		forbidden: func(d string) bool { return under(d, "app") || under(d, "ui") },
	},
}

// list runs go list -deps over the module for one OS.
func list(t *testing.T, goos string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-json=ImportPath,Imports,Deps,Error", module+"/...")
	cmd.Env = append(os.Environ(), "GOOS="+goos)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list for %s: %v\n%s", goos, err, stderr.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("go list for %s: %v", goos, err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// violations are the rules the packages break, one line each.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		r := rel(p.ImportPath)
		for _, ru := range rules {
			if !ru.applies(r) {
				continue
			}
			deps := p.Deps
			if ru.direct {
				deps = p.Imports
			}
			verb := " depends on "
			if ru.direct {
				verb = " imports "
			}
			for _, d := range deps {
				if ru.forbidden(rel(d)) {
					out = append(out, r+verb+rel(d)+": "+ru.name)
				}
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func TestDependencies(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		t.Run(goos, func(t *testing.T) {
			pkgs := list(t, goos)
			if len(pkgs) < 20 {
				t.Fatalf("go list found %d packages: not the module's", len(pkgs))
			}
			for _, p := range pkgs {
				if p.Error != nil && rel(p.ImportPath) != "" {
					t.Errorf("go list: %s: %s", p.ImportPath, p.Error.Err)
				}
			}
			for _, v := range violations(pkgs) {
				t.Error(v)
			}
		})
	}
}

// TestRulesBite: each rule rejects the import it is there to reject, so a
// rule that a typo made vacuous fails here rather than passing forever.
func TestRulesBite(t *testing.T) {
	m := func(p string) string { return module + "/" + p }
	cases := []struct {
		pkg, dep string
		direct   bool
	}{
		{"ui/tray", "app/host", false},
		{"ui/window", "engine/supervisor", false},
		{"app/client", "app/gateway", false},
		{"ui/window", "engine", false},
		{"ui/tray", "engine/sandbox", false},
		{"ui", "app/relay", false},
		{"app/client", "app/hostrun", false},
		{"app/client", "app/config", false},
		{"app/hostapi", "app/api", false},
		{"internal/serverspec", "engine", false},
		{"app/cli", "app/host", true},
		{"app/service", "app/host", true},
		{"engine/stdio", "app/api", false},
		{"app/registry/gen/snapshot", "ui/window", false},
	}
	for _, c := range cases {
		p := pkg{ImportPath: m(c.pkg), Deps: []string{m(c.dep)}}
		if c.direct {
			p.Imports = p.Deps
		}
		if v := violations([]pkg{p}); len(v) == 0 {
			t.Errorf("%s importing %s breaks no rule", c.pkg, c.dep)
		}
	}
	// And what is allowed passes.
	ok := []pkg{
		{ImportPath: m("app/client"), Imports: []string{m("app/api"), m("app/hostapi")}, Deps: []string{m("app/api"), m("app/hostapi"), "encoding/json"}},
		{ImportPath: m("app/hostrun"), Imports: []string{m("app/host")}, Deps: []string{m("app/host"), m("engine")}},
		{ImportPath: m("ui/window"), Imports: []string{m("app/config")}, Deps: []string{m("app/config"), m("app/hostapi")}},
	}
	if v := violations(ok); len(v) > 0 {
		t.Errorf("allowed imports rejected: %q", v)
	}
}
