package catalog

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

var (
	exactVersion = regexp.MustCompile(`^[0-9]+(\.[0-9]+){1,3}$`)
	npmName      = regexp.MustCompile(`^(@[a-z0-9][a-z0-9._-]*/)?[a-z0-9][a-z0-9._-]*$`)
	// PEP 508 names; the index normalizes case and runs of -_. .
	pypiName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$`)
	envName  = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)
)

// archived are packages upstream archived or deprecated, which the
// catalog must not offer: the reference servers moved to
// modelcontextprotocol/servers-archived (seven remain in
// modelcontextprotocol/servers: everything, fetch, filesystem, git,
// memory, sequential-thinking, time).
var archived = map[string]string{
	"@modelcontextprotocol/server-github":           "GitHub's own github-mcp-server replaces it",
	"@modelcontextprotocol/server-postgres":         "in modelcontextprotocol/servers-archived, no successor",
	"@modelcontextprotocol/server-slack":            "in servers-archived; @zencoderai/slack-mcp-server continues it",
	"@modelcontextprotocol/server-brave-search":     "in servers-archived; @brave/brave-search-mcp-server replaces it",
	"@modelcontextprotocol/server-puppeteer":        "in servers-archived",
	"@modelcontextprotocol/server-gdrive":           "in servers-archived",
	"@modelcontextprotocol/server-sqlite":           "in servers-archived",
	"mcp-server-sqlite":                             "in servers-archived",
	"@modelcontextprotocol/server-gitlab":           "in servers-archived",
	"@modelcontextprotocol/server-redis":            "in servers-archived",
	"@modelcontextprotocol/server-google-maps":      "in servers-archived",
	"@modelcontextprotocol/server-everart":          "in servers-archived",
	"@modelcontextprotocol/server-aws-kb-retrieval": "in servers-archived",
	"mcp-server-sentry":                             "in servers-archived; @sentry/mcp-server replaces it",
}

// TestCategories checks that every category has a template, so that the
// window never offers an empty one.
func TestCategories(t *testing.T) {
	for _, c := range Categories() {
		if !slices.ContainsFunc(All(), func(s Server) bool { return s.Category == c }) {
			t.Errorf("category %q has no template", c)
		}
	}
}

// TestMatches checks the catalog's search: every word must match the
// title, name, description, package or category, in any case.
func TestMatches(t *testing.T) {
	fs, _ := Lookup("filesystem")
	for q, want := range map[string]bool{
		"":                         true,
		"FILES":                    true,
		"server-filesystem":        true,
		"directories allow":        true, // two words of the description
		"read directories nothere": false,
		"postgres":                 false,
		"files  ":                  true,
	} {
		if got := fs.Matches(q); got != want {
			t.Errorf("filesystem.Matches(%q) = %v, want %v", q, got, want)
		}
	}
	var names []string
	for _, s := range All() {
		if s.Matches("browser") {
			names = append(names, s.Name)
		}
	}
	if !slices.Equal(names, []string{"chrome-devtools", "playwright"}) {
		t.Errorf("searching for browser found %v", names)
	}
}

// TestTemplates checks the form of every template and that each, given
// plausible values, builds an entry the config accepts with no problem.
func TestTemplates(t *testing.T) {
	all := All()
	if len(all) < 15 {
		t.Errorf("the catalog has %d templates; the window promises about 15", len(all))
	}
	seen := map[string]bool{}
	dir := t.TempDir()
	for _, s := range all {
		t.Run(s.Name, func(t *testing.T) {
			if !config.ValidServerName(s.Name) {
				t.Errorf("name %q is not a valid server name", s.Name)
			}
			if seen[s.Name] {
				t.Errorf("name %q appears twice", s.Name)
			}
			seen[s.Name] = true
			if s.Title == "" || s.Description == "" || !strings.HasPrefix(s.Homepage, "https://") {
				t.Errorf("title, description and an https homepage are required: %+v", s)
			}
			if !slices.Contains(Categories(), s.Category) {
				t.Errorf("category %q is not one of %v", s.Category, Categories())
			}
			if why, ok := archived[s.Package]; ok {
				t.Errorf("%s is archived upstream (%s): it is not offered", s.Package, why)
			}
			if !exactVersion.MatchString(s.Version) {
				t.Errorf("version %q is not pinned to an exact release", s.Version)
			}
			switch s.Registry {
			case NPM:
				if !npmName.MatchString(s.Package) {
					t.Errorf("%q is not an npm package name", s.Package)
				}
			case PyPI:
				if !pypiName.MatchString(s.Package) {
					t.Errorf("%q is not a PyPI project name", s.Package)
				}
			default:
				t.Errorf("unknown registry %q", s.Registry)
			}
			ids := map[string]bool{}
			vals := Values{}
			for _, f := range s.Fields {
				if f.ID == "" || ids[f.ID] || f.Label == "" || f.Help == "" {
					t.Errorf("field %+v: a unique ID, a label and help are required", f)
				}
				ids[f.ID] = true
				if f.Env != "" && !envName.MatchString(f.Env) {
					t.Errorf("field %s: %q is not an environment variable name", f.ID, f.Env)
				}
				if f.Kind == Secret && f.Env == "" {
					t.Errorf("field %s: a secret can only be passed in the environment (the keyring fills env values)", f.ID)
				}
				switch f.Kind {
				case Dir, Dirs:
					vals[f.ID] = []string{dir}
				case File:
					vals[f.ID] = []string{filepath.Join(dir, "f.json")}
				default:
					vals[f.ID] = []string{"x"}
				}
			}
			b, errs := s.Build(vals)
			if len(errs) > 0 {
				t.Fatalf("Build: %v", errs)
			}
			env := map[string]string{}
			for k, v := range b.Env {
				env[k] = v
			}
			for k := range b.Secrets {
				env[k] = config.KeyringRef(config.SuggestSecretName(s.Name, k))
			}
			entry, _ := json.Marshal(map[string]any{"command": b.Command, "args": b.Args, "env": env})
			cs, err := config.ParseServer(s.Name, entry)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range cs.Problems() {
				t.Errorf("the built entry has a problem: %v", p)
			}
			// Without values, exactly the required fields are reported.
			_, errs = s.Build(nil)
			want := 0
			for _, f := range s.Fields {
				if !f.Optional {
					want++
				}
			}
			if len(errs) != want {
				t.Errorf("Build(nil) reported %v; want one problem per required field (%d)", errs, want)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	fs, _ := Lookup("filesystem")
	b, errs := fs.Build(Values{"dirs": {dir, " ", dir + "/"}})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	want := []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", dir, dir + "/"}
	if b.Command != "npx" || strings.Join(b.Args, "|") != strings.Join(want, "|") {
		t.Errorf("filesystem: %s %q; want npx %q", b.Command, b.Args, want)
	}
	if b.ArgField[2] != "dirs" || b.ArgField[3] != "dirs" || b.ArgField[0] != "" {
		t.Errorf("ArgField = %v", b.ArgField)
	}
	if _, errs := fs.Build(Values{"dirs": {"rel/dir"}}); len(errs) != 1 || !strings.Contains(errs[0].Msg, "is not absolute") {
		t.Errorf("a relative directory: %v", errs)
	}
	if _, errs := fs.Build(Values{"dirs": {filepath.Join(dir, "nope")}}); len(errs) != 1 || !strings.Contains(errs[0].Msg, "does not exist") {
		t.Errorf("a missing directory: %v", errs)
	}

	bs, _ := Lookup("brave-search")
	b, errs = bs.Build(Values{"key": {"BSA-x"}})
	if len(errs) > 0 || b.Secrets["BRAVE_API_KEY"] != "BSA-x" || len(b.Env) != 0 {
		t.Errorf("brave-search: %+v %v", b, errs)
	}

	tm, _ := Lookup("time")
	b, _ = tm.Build(Values{"timezone": {"Europe/Paris"}})
	if b.Command != "uvx" || strings.Join(b.Args, " ") != "mcp-server-time==2026.10.19 --local-timezone Europe/Paris" {
		t.Errorf("time: %s %q", b.Command, b.Args)
	}
	if b.ArgField[1] != "timezone" || b.ArgField[2] != "timezone" {
		t.Errorf("time: ArgField = %v", b.ArgField)
	}
}

// TestNPMPackagesExist asks the npm registry whether every npm template's
// pinned version still exists. Without npm it skips, except under CI
// (CI=true), which must have it. PyPI is not reachable here: those
// templates are checked for their form only (TestTemplates).
func TestNPMPackagesExist(t *testing.T) {
	testkit.SkipShort(t, "npm view of the catalog's packages (npm, the network)")
	ci := os.Getenv("CI") == "true"
	if _, err := exec.LookPath("npm"); err != nil {
		if ci {
			t.Fatalf("npm is not installed (%v); CI=true, where it must be", err)
		}
		t.Skipf("npm is not installed (%v): install Node.js to check the catalog's packages", err)
	}
	for _, s := range All() {
		if s.Registry != NPM {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "npm", "view", s.Spec(), "version")
			cmd.Dir = t.TempDir() // no project .npmrc
			out, err := cmd.CombinedOutput()
			got := strings.TrimSpace(string(out))
			switch {
			case err == nil && got == s.Version:
			case err == nil:
				t.Errorf("npm view %s version printed %q: the pinned version %s is not published; pick one that `npm view %s versions` lists", s.Spec(), got, s.Version, s.Package)
			case strings.Contains(got, "E404") || ci:
				t.Errorf("npm view %s: %v\n%s", s.Spec(), err, got)
			default:
				t.Skipf("npm view %s failed, probably no network here: %v\n%s", s.Spec(), err, got)
			}
		})
	}
}
