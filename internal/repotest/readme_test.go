package repotest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/catalog"
	"github.com/switchboard-mcp/switchboard/app/cli"
)

// root is the module's folder, from this package's.
const root = "../.."

func read(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(data), "\r\n", "\n")
}

// table returns the rows (cells, trimmed) of the first Markdown table of
// text whose header line is header, without its header and rule.
func table(t *testing.T, text, header string) [][]string {
	t.Helper()
	i := strings.Index(text, "\n"+header+"\n")
	if i < 0 {
		t.Fatalf("no table with the header %q", header)
	}
	var rows [][]string
	for n, line := range strings.Split(text[i+1:], "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if n < 2 { // the header and the |---| rule
			continue
		}
		// A \| inside a cell is text, not a separator.
		cells := strings.Split(strings.ReplaceAll(strings.Trim(line, "|"), `\|`, "\x00"), "|")
		for k, c := range cells {
			cells[k] = strings.TrimSpace(strings.ReplaceAll(c, "\x00", "|"))
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("the table %q has no rows", header)
	}
	return rows
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// spans are the code spans of a cell.
func spans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// layoutProblems compares the README's package table (rows of path cell,
// what cell) with the module's packages (folders relative to the root,
// "." for the root) and its top-level folders. exists says whether a path
// of the checkout exists.
func layoutProblems(rows [][]string, pkgs, topDirs []string, exists func(string) bool) []string {
	var out []string
	listed := map[string]bool{}
	for _, r := range rows {
		paths := spans(r[0])
		if len(paths) == 0 {
			out = append(out, "a row of the table names no path: "+r[0])
		}
		if len(r) < 2 || r[1] == "" {
			out = append(out, "the row of "+r[0]+" says nothing of what it is")
		}
		for _, p := range paths {
			listed[p] = true
			if !exists(p) {
				out = append(out, "the table lists "+p+", which does not exist: remove its row or fix the path")
			}
		}
	}
	for _, p := range pkgs {
		want := p + "/"
		if p == "." {
			want = "main.go"
		}
		if !listed[want] {
			out = append(out, "the package "+want+" is not in the table: add it, with what it is")
		}
	}
	for _, d := range topDirs {
		if !listed[d+"/"] {
			out = append(out, "the top-level folder "+d+"/ is not in the table: add it with the reason it is a top-level folder")
		}
	}
	slices.Sort(out)
	return out
}

// TestReadmeLayout: README.md's package table lists every package of
// `go list ./...` and every top-level folder, each with what it is, and
// nothing that does not exist.
func TestReadmeLayout(t *testing.T) {
	top := checkout(t)
	list := exec.Command("go", "list", "-e", "-f", "{{.Dir}}", "./...")
	list.Dir = top
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []string
	for dir := range strings.FieldsSeq(string(out)) {
		rel, err := filepath.Rel(top, dir)
		if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, filepath.ToSlash(rel))
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages: not this module", len(pkgs))
	}
	files, err := git(top, "ls-files", "-z")
	if err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for f := range strings.SplitSeq(string(files), "\x00") {
		if d, _, ok := strings.Cut(f, "/"); ok && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	rows := table(t, read(t, "README.md"), "| path | what |")
	exists := func(p string) bool {
		_, err := os.Stat(filepath.Join(top, filepath.FromSlash(p)))
		return err == nil
	}
	for _, p := range layoutProblems(rows, pkgs, dirs, exists) {
		t.Error(p)
	}
}

// TestLayoutProblems: the comparison names a package missing from the
// table, a listed path that does not exist, a top-level folder without a
// row and a row without a reason.
func TestLayoutProblems(t *testing.T) {
	rows := [][]string{
		{"`main.go`", "the binary"},
		{"`app/`, `app/cli/`", "the app"},
		{"`app/gone/`", "was here"},
		{"`docs/`", ""},
	}
	got := layoutProblems(rows, []string{".", "app/cli", "app/new"}, []string{"app", "docs", "bench"},
		func(p string) bool { return p != "app/gone/" })
	want := []string{
		"app/gone/, which does not exist",
		"the package app/new/ is not in the table",
		"the top-level folder bench/ is not in the table",
		"the row of `docs/` says nothing",
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for _, w := range want {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, w) }) {
			t.Errorf("no problem says %q:\n%s", w, strings.Join(got, "\n"))
		}
	}
}

// helpLine is a command of 'switchboard help': two spaces, then its name
// (one or two lower-case words) before its arguments or its summary.
var helpLine = regexp.MustCompile(`^  ([a-z][a-z-]*(?: [a-z][a-z-]*)?)(?:\s|$)`)

// TestReadmeCommands: README.md's command table names every command of
// 'switchboard help', and nothing that is not one.
func TestReadmeCommands(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := cli.Main([]string{"help"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("switchboard help: exit %d\n%s", code, stderr.String())
	}
	var commands []string
	for line := range strings.SplitSeq(stdout.String(), "\n") {
		if m := helpLine.FindStringSubmatch(line); m != nil {
			commands = append(commands, m[1])
		}
	}
	if len(commands) < 30 || !slices.Contains(commands, "servers add") || !slices.Contains(commands, "doctor") {
		t.Fatalf("read %d commands from 'switchboard help', not its list: %q", len(commands), commands)
	}
	covered := map[string]bool{}
	for _, r := range table(t, read(t, "README.md"), "| command | what it does |") {
		for _, s := range spans(r[0]) {
			best := ""
			for _, c := range commands {
				if (s == c || strings.HasPrefix(s, c+" ")) && len(c) > len(best) {
					best = c
				}
			}
			if best == "" {
				t.Errorf("README.md's command table names `%s`, which 'switchboard help' does not list", s)
				continue
			}
			covered[best] = true
		}
	}
	for _, c := range commands {
		if !covered[c] {
			t.Errorf("'switchboard help' lists %q, which README.md's command table does not name: add it", c)
		}
	}
}

// counts finds "N AI apps", "N apps" and "N catalog templates" in text.
var counts = regexp.MustCompile(`\b(\d+) (AI apps|apps|catalog templates)\b`)

// TestDocsCounts: where README.md or a page of docs/ says how many AI
// apps Switchboard connects (a number of 10 or more: "two apps" is not
// the list) or how many catalog templates the window has, the number is
// app/aiapps' and app/catalog's.
func TestDocsCounts(t *testing.T) {
	want := map[string]int{
		"AI apps":           len(aiapps.Apps()),
		"apps":              len(aiapps.Apps()),
		"catalog templates": len(catalog.All()),
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, p := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		rel, _ := filepath.Rel(root, p)
		text := read(t, filepath.ToSlash(rel))
		for n, line := range strings.Split(text, "\n") {
			for _, m := range counts.FindAllStringSubmatch(line, -1) {
				got, _ := strconv.Atoi(m[1])
				if m[2] == "apps" && got < 10 {
					continue
				}
				seen++
				if got != want[m[2]] {
					t.Errorf("%s:%d says %q: there are %d (%s)", filepath.ToSlash(rel), n+1, m[0], want[m[2]],
						map[bool]string{true: "app/catalog", false: "switchboard clients list, app/aiapps"}[m[2] == "catalog templates"])
				}
			}
		}
	}
	if seen == 0 {
		t.Error("no page says how many AI apps there are: README.md should")
	}
}

// TestClientsTable: docs/clients.md's table of the apps and their files
// has one row per app of app/aiapps (what 'switchboard clients list'
// lists), by its ID, and no other.
func TestClientsTable(t *testing.T) {
	var want, got []string
	for _, a := range aiapps.Apps() {
		want = append(want, a.ID)
	}
	for _, r := range table(t, read(t, "docs/clients.md"), "| APP | macOS | Windows | Linux | format, key |") {
		got = append(got, r[0])
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("docs/clients.md's table lists %q; app/aiapps has %q", got, want)
	}
}

var (
	mdLink    = regexp.MustCompile(`\]\(([^)\s#]*)(#[^)\s]+)?\)`)
	mdHeading = regexp.MustCompile(`(?m)^#{1,6} +(.+?) *#*$`)
	htmlID    = regexp.MustCompile(`<a (?:id|name)="([^"]+)"`)
	fence     = regexp.MustCompile("(?ms)^```.*?^```")
	notSlug   = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// anchors are the fragment names a Markdown page defines: its headings as
// GitHub makes them ("## The host's API" is #the-hosts-api; a repeated
// one gets -1, -2), and <a id="..."> tags.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	text = fence.ReplaceAllString(text, "")
	for _, m := range mdHeading.FindAllStringSubmatch(text, -1) {
		s := strings.ReplaceAll(notSlug.ReplaceAllString(strings.ToLower(m[1]), ""), " ", "-")
		base := s
		for n := 1; out[s]; n++ {
			s = base + "-" + strconv.Itoa(n)
		}
		out[s] = true
	}
	for _, m := range htmlID.FindAllStringSubmatch(text, -1) {
		out[m[1]] = true
	}
	return out
}

// TestDocLinks: every relative link of README.md and docs/*.md names a
// file that exists, and a #fragment into a Markdown page names one of
// its headings: sections move between pages (the README's went to
// docs/), and a link must move with them.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(root, "README.md")}, pages...)
	links := 0
	for _, p := range pages {
		text := fence.ReplaceAllString(read(t, mustRel(t, p)), "")
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target, frag := m[1], strings.TrimPrefix(m[2], "#")
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			links++
			path := p
			if target != "" {
				path = filepath.Join(filepath.Dir(p), filepath.FromSlash(target))
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s links %s, which does not exist", mustRel(t, p), target)
				continue
			}
			if frag == "" || !strings.HasSuffix(path, ".md") {
				continue
			}
			if !anchors(read(t, mustRel(t, path)))[frag] {
				t.Errorf("%s links %s#%s: %s has no such heading", mustRel(t, p), target, frag, mustRel(t, path))
			}
		}
	}
	if links < 50 {
		t.Errorf("found %d relative links in README.md and docs: the link pattern is broken", links)
	}
}

func mustRel(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.Rel(root, p)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(r)
}

func TestAnchors(t *testing.T) {
	a := anchors("# The host's API\n## `app/host`: the rest\n```\n# not a heading\n```\n## Twice\n## Twice\n<a id=\"here\"></a>\n")
	for _, want := range []string{"the-hosts-api", "apphost-the-rest", "twice", "twice-1", "here"} {
		if !a[want] {
			t.Errorf("no anchor %q in %v", want, a)
		}
	}
	if a["not-a-heading"] {
		t.Error("a line in a code block made an anchor")
	}
}
