// Command skipreport reads the JSON events of `go test -json` (or of a
// test binary's output through `go tool test2json`) on its standard
// input, prints what `go test` without -v would print (each package's
// result line, and the whole output of each test that fails), and at the
// end lists every skipped test with its reason. It exits non-zero when a
// test or a package failed, or when a test skipped that the allow-list
// (scripts/skips-allowed.txt) does not name, so that no test skips
// unseen in CI. Outside CI (CI is not "true", and no -strict) such a
// skip is listed but does not fail: on a laptop a missing system piece
// skips (testkit.SkipOrFail).
//
//	go test -race -json ./... | go run ./scripts/skipreport -lane linux
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
)

// module is stripped from package paths: the allow-list and the report
// name packages as folders of the module ("engine/sandbox"; "." for the
// root package).
const module = "github.com/switchboard-mcp/switchboard"

// maxEntries bounds the allow-list: a skip that CI allows is an
// exception, each one argued.
const maxEntries = 12

func main() {
	allow := flag.String("allow", "scripts/skips-allowed.txt", "the allow-list `file`")
	lanes := flag.String("lane", "linux", "the run's lanes, comma-separated: the allow-list's entries of these lanes apply (linux, wine, short)")
	strict := flag.Bool("strict", os.Getenv("CI") == "true", "fail on a skip the allow-list does not name (the default under CI=true)")
	flag.Parse()
	f, err := os.Open(*allow)
	if err != nil {
		fmt.Fprintf(os.Stderr, "skipreport: %v\n", err)
		os.Exit(2)
	}
	entries, err := parseAllowList(f, *allow)
	f.Close()
	if err != nil {
		fmt.Fprintf(os.Stderr, "skipreport: %v\n", err)
		os.Exit(2)
	}
	r := newReport(os.Stdout, entries, strings.Split(*lanes, ","))
	if err := r.read(os.Stdin); err != nil {
		fmt.Fprintf(os.Stderr, "skipreport: reading the test events: %v\n", err)
		os.Exit(2)
	}
	if !r.finish(*allow, *strict) {
		os.Exit(1)
	}
}

// entry is one line of the allow-list: the lanes it applies to, the
// package, a regexp on the test's full name (anchored), a regexp the
// skip's message must contain, and why the skip is allowed.
type entry struct {
	where  string // file:line
	lanes  []string
	pkg    string
	test   *regexp.Regexp
	msg    *regexp.Regexp
	reason string
	used   int
}

// parseAllowList reads the allow-list: one entry a line,
//
//	LANES  PACKAGE  TEST-REGEXP  MESSAGE-REGEXP  # REASON
//
// blank lines and lines starting with # aside. The reason is required.
func parseAllowList(r io.Reader, name string) ([]*entry, error) {
	var out []*entry
	var errs []error
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("%s:%d", name, n)
		spec, reason, ok := strings.Cut(line, " # ")
		reason = strings.TrimSpace(reason)
		if !ok || reason == "" {
			errs = append(errs, fmt.Errorf("%s: no reason (end the entry with \" # why this skip is allowed\")", where))
			continue
		}
		fields := strings.Fields(spec)
		if len(fields) < 4 {
			errs = append(errs, fmt.Errorf("%s: want LANES PACKAGE TEST-REGEXP MESSAGE-REGEXP # REASON", where))
			continue
		}
		test, err := regexp.Compile("^(?:" + fields[2] + ")$")
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: the test's regexp: %v", where, err))
			continue
		}
		// The message is the rest of the spec after the third field: it
		// may hold spaces.
		rest := strings.TrimSpace(spec)
		for range 3 {
			rest = strings.TrimSpace(rest[len(strings.Fields(rest)[0]):])
		}
		msg, err := regexp.Compile(rest)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: the message's regexp: %v", where, err))
			continue
		}
		out = append(out, &entry{where: where, lanes: strings.Split(fields[0], ","), pkg: fields[1], test: test, msg: msg, reason: reason})
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, err)
	}
	if len(out) > maxEntries {
		errs = append(errs, fmt.Errorf("%s: %d entries, at most %d: make a skipped test run in CI instead", name, len(out), maxEntries))
	}
	return out, errors.Join(errs...)
}

// event is a test2json event.
type event struct {
	Action      string
	Package     string
	ImportPath  string // build-output and build-fail
	Test        string
	Output      string
	FailedBuild string
}

type key struct{ pkg, test string }

type skip struct {
	pkg, test, msg string
	entry          *entry
}

type report struct {
	out     io.Writer
	entries []*entry
	lanes   []string
	held    map[key]*strings.Builder // a running test's output
	order   []key                    // the held tests in the order they started
	skips   []skip
	failed  []string
	started map[string]bool // packages that have not finished
	pkgs    int
}

func newReport(out io.Writer, entries []*entry, lanes []string) *report {
	return &report{out: out, entries: entries, lanes: lanes, held: map[key]*strings.Builder{}, started: map[string]bool{}}
}

func short(pkg string) string {
	if pkg == module {
		return "."
	}
	return strings.TrimPrefix(pkg, module+"/")
}

// read handles the events of in until its end. A line that is not an
// event (a message of the script around the tests) is printed as it is.
func (r *report) read(in io.Reader) error {
	br := bufio.NewReaderSize(in, 1<<16)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			var e event
			if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil || e.Action == "" {
				io.WriteString(r.out, line)
			} else {
				r.handle(e)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (r *report) handle(e event) {
	k := key{short(e.Package), e.Test}
	switch e.Action {
	case "build-output":
		io.WriteString(r.out, e.Output)
	case "build-fail":
		// The test package's own fail event (FailedBuild) follows.
	case "start":
		r.started[k.pkg] = true
		r.pkgs++
	case "output":
		if e.Test == "" {
			if e.Output != "PASS\n" {
				io.WriteString(r.out, e.Output)
			}
			return
		}
		b := r.held[k]
		if b == nil {
			b = &strings.Builder{}
			r.held[k] = b
			r.order = append(r.order, k)
		}
		b.WriteString(e.Output)
	case "pass", "bench":
		if e.Test == "" {
			r.endPackage(k.pkg, false)
			return
		}
		r.drop(k)
	case "skip":
		if e.Test == "" { // no test files
			r.endPackage(k.pkg, false)
			return
		}
		s := skip{pkg: k.pkg, test: e.Test, msg: skipMessage(r.text(k))}
		s.entry = r.match(s)
		r.skips = append(r.skips, s)
		r.drop(k)
	case "fail":
		if e.Test == "" {
			if e.FailedBuild != "" {
				r.failed = append(r.failed, k.pkg+" (build failed: "+short(e.FailedBuild)+")")
			}
			r.endPackage(k.pkg, true)
			return
		}
		io.WriteString(r.out, r.text(k))
		r.failed = append(r.failed, k.pkg+" "+e.Test)
		r.drop(k)
	}
}

func (r *report) text(k key) string {
	if b := r.held[k]; b != nil {
		return b.String()
	}
	return ""
}

func (r *report) drop(k key) {
	delete(r.held, k)
	if i := slices.Index(r.order, k); i >= 0 {
		r.order = slices.Delete(r.order, i, i+1)
	}
}

// endPackage ends a package. A failed one prints the output of the tests
// that never ended (the one that panicked, or hung until the timeout).
func (r *report) endPackage(pkg string, failed bool) {
	delete(r.started, pkg)
	for _, k := range slices.Clone(r.order) {
		if k.pkg != pkg {
			continue
		}
		if failed {
			io.WriteString(r.out, r.text(k))
		}
		r.drop(k)
	}
	if failed && !slices.ContainsFunc(r.failed, func(f string) bool { return f == pkg || strings.HasPrefix(f, pkg+" ") }) {
		r.failed = append(r.failed, pkg)
	}
}

// skipMessage is what a skipped test printed, without the lines the
// testing package adds (=== RUN, --- SKIP): its t.Skip message and any
// t.Log before it.
func skipMessage(out string) string {
	var lines []string
	for l := range strings.Lines(out) {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}

// match is the first entry of the run's lanes that allows the skip.
func (r *report) match(s skip) *entry {
	for _, e := range r.entries {
		if !slices.ContainsFunc(e.lanes, func(l string) bool { return slices.Contains(r.lanes, l) }) {
			continue
		}
		if e.pkg == s.pkg && e.test.MatchString(s.test) && e.msg.MatchString(s.msg) {
			e.used++
			return e
		}
	}
	return nil
}

// finish prints the report and says whether the run passed.
func (r *report) finish(allowName string, strict bool) bool {
	var unfinished []string
	for pkg := range r.started {
		unfinished = append(unfinished, pkg)
	}
	slices.Sort(unfinished)
	for _, pkg := range unfinished {
		for _, k := range r.order {
			if k.pkg == pkg {
				io.WriteString(r.out, r.text(k))
			}
		}
		r.failed = append(r.failed, pkg+" (did not finish: the test binary crashed or was killed)")
	}
	w := r.out
	unlisted := 0
	fmt.Fprintf(w, "\n== skipped tests (lanes %s): %d\n", strings.Join(r.lanes, ","), len(r.skips))
	slices.SortStableFunc(r.skips, func(a, b skip) int { return strings.Compare(a.pkg+" "+a.test, b.pkg+" "+b.test) })
	for _, s := range r.skips {
		msg := strings.ReplaceAll(s.msg, "\n", "\n        ")
		if msg == "" {
			msg = "(no reason given)"
		}
		if s.entry != nil {
			fmt.Fprintf(w, "allowed  %s %s\n        %s\n        allowed by %s: %s\n", s.pkg, s.test, msg, s.entry.where, s.entry.reason)
		} else {
			unlisted++
			fmt.Fprintf(w, "NOT ALLOWED  %s %s\n        %s\n", s.pkg, s.test, msg)
		}
	}
	for _, e := range r.entries {
		if e.used == 0 && slices.ContainsFunc(e.lanes, func(l string) bool { return slices.Contains(r.lanes, l) }) {
			fmt.Fprintf(w, "(no skip matched %s: a test it allows ran, or was not run)\n", e.where)
		}
	}
	ok := true
	if unlisted > 0 {
		what := "fails the run"
		if !strict {
			what = "would fail under CI=true"
		}
		ok = ok && !strict
		fmt.Fprintf(w, "== %d skipped tests are not on the allow-list %s (%s): make them run in CI, make a missing system piece testkit.SkipOrFail, or add an entry with its reason\n", unlisted, allowName, what)
	}
	if len(r.failed) > 0 {
		ok = false
		fmt.Fprintf(w, "== failed (%d):\n", len(r.failed))
		for _, f := range r.failed {
			fmt.Fprintf(w, "FAIL  %s\n", f)
		}
	}
	if r.pkgs == 0 && len(r.failed) == 0 {
		ok = false
		fmt.Fprintln(w, "== no test package ran")
	}
	return ok
}
