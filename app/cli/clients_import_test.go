//go:build linux

package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/tailscale/hujson"
)

// importReport is what one run of `clients import` said it does: the
// entries it leaves (the "skipped:" lines), the Switchboard names it
// imports or finds there, and, per file, the entries the bridge entry
// takes the place of.
type importReport struct {
	skipped  []string
	imported []string // Switchboard names, imported or already there
	replaced []string // the "In FILE, ... (names)" lines
}

var (
	wouldRE   = regexp.MustCompile(`(?m)^would import .* as (\S+)$`)
	doneRE    = regexp.MustCompile(`(?m)^imported (\S+)(?: as (\S+))?$`)
	doneAsRE  = regexp.MustCompile(`(?m)^imported .+ as (\S+)$`)
	alreadyRE = regexp.MustCompile(`(?m)^.* is already in Switchboard as (\S+)$`)
)

func parseImport(t *testing.T, out string, dry bool) importReport {
	t.Helper()
	var r importReport
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "skipped: "):
			r.skipped = append(r.skipped, l)
		case strings.HasPrefix(l, "In ") && strings.Contains(l, "can now take the place of"):
			r.replaced = append(r.replaced, l)
		}
	}
	if dry {
		for _, m := range wouldRE.FindAllStringSubmatch(out, -1) {
			r.imported = append(r.imported, m[1])
		}
		if doneRE.MatchString(out) {
			t.Errorf("a dry run imported:\n%s", out)
		}
	} else {
		for _, l := range strings.Split(out, "\n") {
			if m := doneAsRE.FindStringSubmatch(l); m != nil {
				r.imported = append(r.imported, m[1])
			} else if m := doneRE.FindStringSubmatch(l); m != nil {
				r.imported = append(r.imported, m[1])
			}
		}
		if wouldRE.MatchString(out) {
			t.Errorf("the import said would:\n%s", out)
		}
	}
	for _, m := range alreadyRE.FindAllStringSubmatch(out, -1) {
		r.imported = append(r.imported, m[1])
	}
	sort.Strings(r.skipped)
	sort.Strings(r.imported)
	sort.Strings(r.replaced)
	return r
}

// entryBytes returns each entry of the servers object key of a JSON (with
// comments) file as its bytes in the file: the name and the value as
// written.
func entryBytes(t *testing.T, data []byte, path ...string) map[string]string {
	t.Helper()
	v, err := hujson.Parse(bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	obj := v.Value.(*hujson.Object)
	for _, key := range path {
		found := false
		for _, m := range obj.Members {
			if l, ok := m.Name.Value.(hujson.Literal); ok && l.String() == key {
				obj, found = m.Value.Value.(*hujson.Object), true
			}
		}
		if !found {
			t.Fatalf("no %q in %v", key, path)
		}
	}
	out := map[string]string{}
	for _, m := range obj.Members {
		name := m.Name.Value.(hujson.Literal).String()
		val := hujson.Value{Value: m.Value.Value}.Pack() // without the extras around it
		out[name] = string(m.Name.Value.(hujson.Literal)) + ":" + string(m.Value.BeforeExtra) + string(val)
	}
	return out
}

// checkKept: every entry in keep is byte for byte in after as it was in
// before; every entry in gone is no longer there.
func checkKept(t *testing.T, before, after []byte, keep, gone []string, path ...string) {
	t.Helper()
	was := entryBytes(t, before, path...)
	now := entryBytes(t, after, path...)
	for _, n := range keep {
		if was[n] == "" {
			t.Fatalf("fixture: no entry %q", n)
		}
		if !bytes.Contains(after, []byte(was[n])) || now[n] == "" {
			t.Errorf("the skipped entry %q is not byte for byte in the file:\n%s\nfile:\n%s", n, was[n], after)
		}
	}
	for _, n := range gone {
		if now[n] != "" {
			t.Errorf("the imported entry %q is still in the file", n)
		}
	}
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "aiapps", "testdata", "import", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestClientsImportVSCodeDryRunIsTheImport: `clients import vscode
// --dry-run` and the import itself, on the same VS Code mcp.json (inputs,
// ${workspaceFolder}, ${userHome}, ${env:...}, remote and mcp-remote
// entries), report the same entries moved and left; afterwards every
// entry left is byte for byte in the file, and what was expanded is in
// Switchboard's config.
func TestClientsImportVSCodeDryRunIsTheImport(t *testing.T) {
	u, home := clientsUnit(t)
	t.Setenv("NOTES_TOKEN", "tok_notes_0123456789")
	t.Setenv("SB_TEST_UNSET_VARIABLE", "")
	path := appFile(t, "vscode")
	orig := fixture(t, "vscode-mcp.json")
	writeApp(t, path, orig, 0o600)

	// notes and plain name commands this machine does not have, and
	// notes' token moves to the keyring: both flags, so that every entry
	// Switchboard can run is imported (TestClientsImportKeeps covers the
	// refusals without them).
	dryOut := u.ok(t, "", "clients", "import", "vscode", "--dry-run", "--replace-unrunnable", "--move-secrets")
	if b, _ := os.ReadFile(path); string(b) != orig {
		t.Fatal("the dry run changed the file")
	}
	if _, err := os.Stat(u.configPath()); !os.IsNotExist(err) {
		t.Fatal("the dry run wrote the config")
	}
	dry := parseImport(t, dryOut, true)

	realOut := u.ok(t, "", "clients", "import", "vscode", "--yes", "--replace-unrunnable", "--move-secrets")
	real := parseImport(t, realOut, false)
	if !slices.Equal(dry.skipped, real.skipped) || !slices.Equal(dry.imported, real.imported) || !slices.Equal(dry.replaced, real.replaced) {
		t.Fatalf("the dry run and the import differ:\ndry:  %q\nreal: %q\n--- dry run:\n%s\n--- import:\n%s", dry, real, dryOut, realOut)
	}
	if !slices.Equal(real.imported, []string{"events", "notes", "plain", "proxied", "proxied-pinned"}) {
		t.Fatalf("imported %q:\n%s", real.imported, realOut)
	}
	kept := []string{"github", "files", "needs-unset", "folder-name", "picked", "dotenv", "web"}
	if len(real.skipped) != len(kept) {
		t.Fatalf("skipped %d entries, want %d:\n%s", len(real.skipped), len(kept), realOut)
	}
	for _, want := range []string{
		`skipped: "github": not imported: ${input:github-token} is asked of you by VS Code`,
		`skipped: "files": not imported: ${workspaceFolder}`,
		`skipped: "web": not imported: ${input:github-token} is asked of you by VS Code`,
		"notes: expanded ${userHome}, ${/}, ${env:NOTES_TOKEN} from this environment",
	} {
		if !strings.Contains(realOut, want) || !strings.Contains(dryOut, want) {
			t.Errorf("output lacks %q:\n%s", want, realOut)
		}
	}
	if strings.Contains(realOut+dryOut, "abc123secret") || strings.Contains(realOut+dryOut, "tok_notes_") {
		t.Fatalf("a secret is in the output:\n%s\n---\n%s", dryOut, realOut)
	}
	after, _ := os.ReadFile(path)
	checkKept(t, []byte(orig), after, kept, []string{"notes", "plain", "events", "proxied", "proxied-pinned"}, "servers")
	if !bytes.Contains(after, []byte(`"inputs": [`)) || !bytes.Contains(after, []byte("// asks for the token when VS Code starts it")) {
		t.Fatalf("inputs or comments lost:\n%s", after)
	}
	f := u.load(t, u.configPath())
	n := f.Servers["notes"]
	if n == nil || n.Command != filepath.Join(home, "bin", "notes-mcp") || !slices.Equal(n.Args, []string{"--dir", home + "/notes"}) ||
		!strings.HasPrefix(n.Env["NOTES_TOKEN"], "${keyring:") || n.Env["PATTERN"] != "a$${b" || len(f.Servers) != 5 {
		t.Fatalf("imported %v: notes %+v", f.Names(), n)
	}
	if refs := n.SecretRefs(); len(refs) != 1 {
		t.Fatalf("notes refers to %v", refs)
	} else if v, err := u.store.Get(refs[0]); err != nil || v.Reveal() != "tok_notes_0123456789" {
		t.Fatalf("the keyring's %s: %v", refs[0], err)
	}
	// Once more: everything left is still left, nothing moves twice.
	again := parseImport(t, u.ok(t, "", "clients", "import", "vscode", "--dry-run", "--replace-unrunnable", "--move-secrets"), true)
	if !slices.Equal(again.skipped, real.skipped) || len(again.imported) != 0 {
		t.Fatalf("a second dry run: %q", again)
	}
}

// TestClientsImportClaudeCodeProjects: Claude Code's ~/.claude.json with
// projects and a project's .mcp.json. Without a flag the projects'
// servers are listed, not moved; --project DIR moves that project's only;
// --all-projects the rest; each dry run reports what its import does, and
// every entry left stays byte for byte.
func TestClientsImportClaudeCodeProjects(t *testing.T) {
	u, home := clientsUnit(t)
	t.Setenv("SEARCH_API_KEY", "sk-search-0123456789")
	t.Setenv("DATABASE_URL", "postgres://db.internal/app")
	t.Setenv("MEMORY_DIR", "")
	t.Setenv("DB_TOOL", "")
	t.Setenv("SB_TEST_UNSET_VARIABLE", "")
	api, web := filepath.Join(home, "work", "api"), filepath.Join(home, "work", "web")
	claude := filepath.Join(home, ".claude.json")
	orig := strings.NewReplacer("/home/user/work/api", api, "/home/user/work/web", web, "/home/user/empty", filepath.Join(home, "empty")).
		Replace(fixture(t, "claude.json"))
	writeApp(t, claude, orig, 0o600)
	mcpJSON := filepath.Join(api, ".mcp.json")
	origMCP := fixture(t, "project-mcp.json")
	writeApp(t, mcpJSON, origMCP, 0o644)
	// A project whose servers are only in its .mcp.json.
	onlyFile := filepath.Join(home, "empty", ".mcp.json")
	writeApp(t, onlyFile, `{"mcpServers": {"onlyfile": {"command": "/bin/cat"}}}`+"\n", 0o644)

	step := func(args ...string) (importReport, string) {
		t.Helper()
		// The fixture's commands (search-mcp...) are not on this machine,
		// and search's key moves to the keyring: both flags, so that every
		// entry Switchboard can run is imported (TestClientsImportKeeps
		// covers the refusals without them).
		base := append([]string{"clients", "import", "claude-code", "--replace-unrunnable", "--move-secrets"}, args...)
		d := u.main("", append(base, "--dry-run")...)
		r := u.main("", append(base, "--yes")...)
		if r.code != 0 && r.code != 1 || d.code != r.code {
			t.Fatalf("import %q: exit %d, its dry run %d:\n%s\n%s", args, r.code, d.code, r, d)
		}
		dryOut := d.stdout
		dry, real := parseImport(t, dryOut, true), parseImport(t, r.stdout, false)
		if !slices.Equal(dry.skipped, real.skipped) || !slices.Equal(dry.imported, real.imported) || !slices.Equal(dry.replaced, real.replaced) {
			t.Fatalf("%q: the dry run and the import differ:\ndry:  %q\nreal: %q\n--- dry run:\n%s\n--- import:\n%s", args, dry, real, dryOut, r.stdout)
		}
		return real, r.stdout
	}

	// 1. The user's servers; the projects' are listed with their project.
	r, out := step()
	if !slices.Equal(r.imported, []string{"linear", "memory", "search", "streamed"}) {
		t.Fatalf("imported %q:\n%s", r.imported, out)
	}
	for _, want := range []string{
		`skipped: "postgres" (project ` + api + `): a server of the project ` + api + `: imported only when asked ('switchboard clients import claude-code --project ` + api + `')`,
		`skipped: "playwright" (` + mcpJSON + `): a server of the project ` + api,
		`skipped: "sentry" (project ` + web + `): a server of the project ` + web,
		`skipped: "broken": not imported: ${SB_TEST_UNSET_VARIABLE}: SB_TEST_UNSET_VARIABLE is not set in this environment`,
		`skipped: "onlyfile" (` + onlyFile + `): a server of the project ` + filepath.Join(home, "empty"),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	after, _ := os.ReadFile(claude)
	checkKept(t, []byte(orig), after, []string{"broken"}, []string{"memory", "search", "linear", "streamed"}, "mcpServers")
	checkKept(t, []byte(orig), after, []string{"postgres", "memory"}, nil, "projects", api, "mcpServers")
	checkKept(t, []byte(orig), after, []string{"memory", "sentry"}, nil, "projects", web, "mcpServers")
	if b, _ := os.ReadFile(mcpJSON); string(b) != origMCP {
		t.Fatal(".mcp.json changed though no project was asked for")
	}

	// 2. One project: its block and its .mcp.json. The project's memory is
	// the user's (same command): taken with it. The user-scope entry
	// reaches every server, so the block gets no bridge entry of its own;
	// the .mcp.json does.
	before := after
	r, out = step("--project", api)
	if !slices.Equal(r.imported, []string{"db", "memory", "playwright", "postgres", "remote-docs"}) {
		t.Fatalf("imported %q:\n%s", r.imported, out)
	}
	if strings.Contains(out, web) || strings.Contains(out, "onlyfile") {
		t.Errorf("another project is reported:\n%s", out)
	}
	after, _ = os.ReadFile(claude)
	checkKept(t, before, after, []string{"memory", "sentry"}, nil, "projects", web, "mcpServers")
	checkKept(t, before, after, nil, []string{"postgres", "memory", EntryNameForTest}, "projects", api, "mcpServers")
	// Outside the api block, nothing changed.
	if got, want := stripBlock(t, after, api), stripBlock(t, before, api); got != want {
		t.Fatalf("outside the project's block:\n%s", aiapps.Diff("before", "after", []byte(want), []byte(got)))
	}
	mcpAfter, _ := os.ReadFile(mcpJSON)
	checkKept(t, []byte(origMCP), mcpAfter, nil, []string{"playwright", "db", "remote-docs"}, "mcpServers")
	if !bytes.Contains(mcpAfter, []byte(`"switchboard": {`)) {
		t.Fatalf(".mcp.json has no bridge entry:\n%s", mcpAfter)
	}

	// 3. Every project: web's memory runs another command than the
	// imported memory: it stays, reported; its sentry (remote) is imported.
	before = after
	r, out = step("--all-projects")
	if !strings.Contains(out, `skipped: "memory" (project `+web+`): not imported: "memory" is also imported as memory and runs another command`) &&
		!strings.Contains(out, `not imported: memory (project `+web+`): Switchboard has another server named memory`) {
		t.Fatalf("web's memory:\n%s", out)
	}
	if !slices.Contains(r.imported, "onlyfile") {
		t.Errorf("the project with only a .mcp.json was not imported: %q\n%s", r.imported, out)
	}
	after, _ = os.ReadFile(claude)
	checkKept(t, before, after, []string{"memory"}, []string{"sentry"}, "projects", web, "mcpServers")
	checkKept(t, before, after, []string{"broken"}, nil, "mcpServers")
	if b, _ := os.ReadFile(onlyFile); bytes.Contains(b, []byte("onlyfile")) || !bytes.Contains(b, []byte(`"switchboard"`)) {
		t.Errorf("%s after the import:\n%s", onlyFile, b)
	}

	// A flag for another app is refused.
	if r := u.main("", "clients", "import", "cursor", "--project", api); r.code != 2 || !strings.Contains(r.stderr, "--project and --all-projects are for claude-code") {
		t.Fatalf("cursor --project: %s", r)
	}
}

// EntryNameForTest is the bridge entry's name.
const EntryNameForTest = aiapps.EntryName

// stripBlock returns the file without the block of one project.
func stripBlock(t *testing.T, data []byte, project string) string {
	t.Helper()
	v, err := hujson.Parse(bytes.Clone(data))
	if err != nil {
		t.Fatal(err)
	}
	root := v.Value.(*hujson.Object)
	for _, m := range root.Members {
		if m.Name.Value.(hujson.Literal).String() != "projects" {
			continue
		}
		p := m.Value.Value.(*hujson.Object)
		p.Members = slices.DeleteFunc(p.Members, func(m hujson.ObjectMember) bool {
			return m.Name.Value.(hujson.Literal).String() == project
		})
	}
	return string(v.Pack())
}

// TestClientsImportKeeps (issue 27 §4 and §16): an entry whose command the
// host will not find (uvx, which only this terminal's PATH has: the host
// resolves in its own, the login shell's) and an entry with a literal
// secret in its env stay in the app, where they work, each with why and
// the remedy; the dry run says the same. With --replace-unrunnable and
// --move-secrets both are imported (the secret into the keyring) and
// replaced in the app.
func TestClientsImportKeeps(t *testing.T) {
	u, home := clientsUnit(t)
	termBin, hostBin := filepath.Join(u.dir, "termbin"), filepath.Join(u.dir, "hostbin")
	for _, d := range []string{termBin, hostBin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(termBin, "uvx"), []byte("#!/bin/sh\nexec cat\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/bin/cat", filepath.Join(hostBin, "cat")); err != nil {
		t.Fatal(err)
	}
	// The login shell's PATH, which the host gives servers, has cat only;
	// this terminal's has uvx too.
	shell := filepath.Join(u.dir, "loginsh")
	if err := os.WriteFile(shell, []byte("#!/bin/sh\nPATH="+hostBin+"; export PATH; exec /bin/sh -c \"$3\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHELL", shell)
	t.Setenv("PATH", termBin+string(os.PathListSeparator)+os.Getenv("PATH"))
	path := appFile(t, "vscode")
	orig := `{
	"servers": {
		"fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]},
		"files": {"type": "stdio", "command": "cat", "args": []},
		"gh": {"type": "stdio", "command": "/bin/cat", "env": {"GITHUB_TOKEN": "ghp_literal_0123456789"}}
	}
}
`
	writeApp(t, path, orig, 0o600)

	fetchKept := `fetch: the host will not find its command, so it stays in VS Code, where it runs: server "fetch": command "uvx" was not found in PATH (` + hostBin + `)`
	uvRemedy := "install uv (which provides uvx"
	ghKept := "gh: env.GITHUB_TOKEN looks like a secret, and a secret is kept only in the keyring, never as plain text in the config: run the import with --move-secrets to move it into the keyring (it stays in VS Code)"
	d := u.main("", "clients", "import", "vscode", "--dry-run")
	r := u.main("", "clients", "import", "vscode", "--yes")
	for _, c := range []struct {
		out, verb string
	}{{d.stdout, "would not import: "}, {r.stdout, "not imported: "}} {
		for _, want := range []string{c.verb + fetchKept, uvRemedy, "import it now with --replace-unrunnable", c.verb + ghKept} {
			if !strings.Contains(c.out, want) {
				t.Errorf("output lacks %q:\n%s", want, c.out)
			}
		}
	}
	if d.code != 1 || r.code != 1 || !strings.Contains(d.stdout, "would import files as files") || !strings.Contains(r.stdout, "imported files\n") {
		t.Fatalf("dry run %s\nimport %s", d, r)
	}
	after, _ := os.ReadFile(path)
	checkKept(t, []byte(orig), after, []string{"fetch", "gh"}, []string{"files"}, "servers")
	f := u.load(t, u.configPath())
	if b, _ := os.ReadFile(u.configPath()); len(f.Servers) != 1 || f.Servers["files"] == nil || bytes.Contains(b, []byte("ghp_literal")) {
		t.Fatalf("the config:\n%s", b)
	}

	// Told to: both are imported, and replaced in the app.
	r = u.main("", "clients", "import", "vscode", "--yes", "--replace-unrunnable", "--move-secrets")
	if r.code != 0 || !strings.Contains(r.stdout, "warning: fetch: the host will not find its command, and it is imported anyway (--replace-unrunnable)") ||
		!strings.Contains(r.stdout, "imported fetch\n") || !strings.Contains(r.stdout, "imported gh\n") {
		t.Fatalf("import --replace-unrunnable --move-secrets: %s", r)
	}
	after, _ = os.ReadFile(path)
	checkKept(t, []byte(orig), after, nil, []string{"fetch", "gh", "files"}, "servers")
	f = u.load(t, u.configPath())
	if f.Servers["fetch"] == nil || f.Servers["gh"] == nil || len(f.Servers["gh"].SecretRefs()) != 1 {
		t.Fatalf("imported %v", f.Names())
	}
	_ = home
}
