// Command mutate is the mutation check of the security code (issue 31):
// it applies a listed set of one-line breaks to the source, one at a
// time, runs the tests that must catch each, and fails if a break
// survives (its tests still pass) or is invalid (it does not compile, its
// text is not in the file exactly once, or its tests run nothing).
//
//	go run ./internal/mutate [-list scripts/mutations.txt] [-j N] [-only TEXT] [-baseline=false]
//
// A break never touches the checkout: go's -overlay flag makes the build
// read the broken copy of the file (a temporary file) in place of the
// real one, cgo files included. Every go test runs with CI=true, so a
// test that would skip for a missing system piece fails instead (and the
// baseline run, which runs each set of tests once unbroken first, stops
// the check before any break is tried). The format of the list is
// described at the top of scripts/mutations.txt.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// Break is one entry of the list.
type Break struct {
	Line int      // where its block starts in the list
	Name string   // "break:": what it breaks, in words
	File string   // "file:": relative to the module root
	Old  string   // "old:": the text, which must occur exactly once
	New  string   // "new:": its replacement
	Pkgs []string // "test:": the packages whose tests must catch it
	Run  string   // "run:": go test -run (optional)
	Skip string   // "skip:": go test -skip (optional)
}

// parseList reads the list: blocks of "key: value" lines separated by
// blank lines; lines starting with # are comments. Values are trimmed of
// surrounding white space (old and new are matched as a substring, so
// indentation need not be given).
func parseList(r io.Reader, name string) ([]Break, error) {
	var (
		out  []Break
		cur  *Break
		errs []error
		seen map[string]bool
	)
	end := func() {
		if cur == nil {
			return
		}
		b := *cur
		cur = nil
		var miss []string
		for _, f := range []struct{ key, v string }{{"break", b.Name}, {"file", b.File}, {"old", b.Old}} {
			if f.v == "" {
				miss = append(miss, f.key)
			}
		}
		if len(b.Pkgs) == 0 {
			miss = append(miss, "test")
		}
		if !seen["new"] {
			miss = append(miss, "new")
		}
		if len(miss) > 0 {
			errs = append(errs, fmt.Errorf("%s:%d: the entry lacks %s", name, b.Line, strings.Join(miss, ", ")))
			return
		}
		if b.Old == b.New {
			errs = append(errs, fmt.Errorf("%s:%d: old and new are the same text: no break", name, b.Line))
			return
		}
		out = append(out, b)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			end()
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		key, val, ok := strings.Cut(line, ":")
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: %q is not a \"key: value\" line", name, n, line))
			continue
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if cur == nil {
			cur = &Break{Line: n}
			seen = map[string]bool{}
		}
		if seen[key] {
			errs = append(errs, fmt.Errorf("%s:%d: %s given twice in one entry", name, n, key))
			continue
		}
		seen[key] = true
		switch key {
		case "break":
			cur.Name = val
		case "file":
			cur.File = filepath.ToSlash(val)
		case "old":
			cur.Old = val
		case "new":
			cur.New = val
		case "test":
			cur.Pkgs = strings.Fields(val)
		case "run":
			cur.Run = val
		case "skip":
			cur.Skip = val
		default:
			errs = append(errs, fmt.Errorf("%s:%d: unknown key %q (break, file, old, new, test, run, skip)", name, n, key))
		}
	}
	end()
	if err := sc.Err(); err != nil {
		errs = append(errs, err)
	}
	return out, errors.Join(errs...)
}

// apply returns src with b's old text replaced by its new one. The old
// text must occur exactly once: a refactor that moves or duplicates it
// makes the list fail rather than pass unseen.
func apply(src []byte, b Break) ([]byte, error) {
	switch c := bytes.Count(src, []byte(b.Old)); c {
	case 1:
		return bytes.Replace(src, []byte(b.Old), []byte(b.New), 1), nil
	case 0:
		return nil, fmt.Errorf("%s: the text of break %q is not in the file (was the code changed? update the entry in the list): %s", b.File, b.Name, b.Old)
	default:
		return nil, fmt.Errorf("%s: the text of break %q occurs %d times, it must occur once (give more of the line in the list): %s", b.File, b.Name, c, b.Old)
	}
}

// Outcome is what the tests did with a break.
type Outcome string

const (
	Caught   Outcome = "caught"
	Survived Outcome = "SURVIVED"
	Invalid  Outcome = "INVALID"
)

// Result is one go test run.
type Result struct {
	Outcome Outcome
	Detail  string // the failing tests, the count of passing ones, or why invalid
	Took    time.Duration
}

// event is a line of go test -json (cmd/test2json).
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Output      string
	FailedBuild string
}

// runTests runs go test on b's packages with the overlay (if any) and
// classifies the run: a build failure or a package that ran no test is
// invalid, a failed test caught the break, else it survived.
func runTests(ctx context.Context, root string, b Break, overlay string, timeout time.Duration) Result {
	start := time.Now()
	args := []string{"test", "-json", "-count=1", "-timeout", timeout.String()}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	if b.Run != "" {
		args = append(args, "-run", b.Run)
	}
	if b.Skip != "" {
		args = append(args, "-skip", b.Skip)
	}
	args = append(args, b.Pkgs...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CI=true")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, _ := cmd.Output()
	res := classify(stdout, stderr.String(), cmd.ProcessState)
	res.Took = time.Since(start)
	return res
}

func classify(stdout []byte, stderr string, ps *os.ProcessState) Result {
	var (
		failed   []string
		passed   = map[string]int{}
		pkgFail  []string
		buildErr []string
		buildOut strings.Builder
	)
	for _, l := range bytes.Split(stdout, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var e event
		if json.Unmarshal(l, &e) != nil {
			buildOut.Write(l)
			buildOut.WriteByte('\n')
			continue
		}
		switch {
		case e.Action == "build-output":
			buildOut.WriteString(e.Output)
		case e.Action == "build-fail":
			buildErr = append(buildErr, e.ImportPath)
		case e.Action == "fail" && e.Test == "" && e.FailedBuild != "":
			buildErr = append(buildErr, e.FailedBuild)
		case e.Action == "fail" && e.Test != "":
			failed = append(failed, e.Test)
		case e.Action == "fail":
			pkgFail = append(pkgFail, e.Package)
		case e.Action == "pass" && e.Test != "":
			passed[e.Package]++
		case e.Action == "pass" || e.Action == "skip":
			if _, ok := passed[e.Package]; !ok {
				passed[e.Package] = 0
			}
		}
	}
	if len(buildErr) > 0 {
		return Result{Outcome: Invalid, Detail: "does not build (" + strings.Join(slices.Compact(buildErr), ", ") + "): " + firstLines(buildOut.String()+stderr, 6)}
	}
	if len(failed) > 0 {
		// Keep the top-level tests (a subtest's parent fails with it).
		var top []string
		for _, f := range failed {
			if !strings.Contains(f, "/") || !slices.Contains(failed, f[:strings.Index(f, "/")]) {
				top = append(top, f)
			}
		}
		return Result{Outcome: Caught, Detail: "failed: " + strings.Join(top, ", ")}
	}
	if len(pkgFail) > 0 {
		return Result{Outcome: Caught, Detail: "failed: " + strings.Join(pkgFail, ", ") + " (outside a test: TestMain, a panic or the timeout)"}
	}
	if ps == nil || !ps.Success() {
		return Result{Outcome: Invalid, Detail: "go test failed without a test result: " + firstLines(buildOut.String()+stderr, 6)}
	}
	var none []string
	total := 0
	for p, n := range passed {
		total += n
		if n == 0 {
			none = append(none, p)
		}
	}
	if len(passed) == 0 || len(none) > 0 {
		slices.Sort(none)
		return Result{Outcome: Invalid, Detail: "no test ran in " + strings.Join(none, ", ") + " (the run pattern selects none?)"}
	}
	return Result{Outcome: Survived, Detail: fmt.Sprintf("%d tests passed", total)}
}

func firstLines(s string, n int) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	if len(ls) > n {
		ls = append(ls[:n], "...")
	}
	return strings.Join(ls, " | ")
}

// modulePath is the module's path, from root/go.mod.
func modulePath(root string) (string, error) {
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(m), `"`), nil
		}
	}
	return "", errors.New("go.mod names no module")
}

// testDeps returns, for each package the breaks name, the import paths
// its test binary links (go list -test -deps).
func testDeps(ctx context.Context, root string, breaks []Break) (map[string]map[string]bool, error) {
	out := map[string]map[string]bool{}
	for _, b := range breaks {
		for _, p := range b.Pkgs {
			if out[p] != nil {
				continue
			}
			cmd := exec.CommandContext(ctx, "go", "list", "-test", "-deps", "-f", "{{.ImportPath}}", p)
			cmd.Dir = root
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			raw, err := cmd.Output()
			if err != nil {
				return nil, fmt.Errorf("go list -test -deps %s: %v: %s", p, err, strings.TrimSpace(stderr.String()))
			}
			m := map[string]bool{}
			for _, l := range strings.Split(string(raw), "\n") {
				l, _, _ = strings.Cut(l, " ") // "PKG [PKG.test]": PKG as its tests build it
				m[l] = true
			}
			out[p] = m
		}
	}
	return out, nil
}

// moduleRoot is the folder of the module the working directory is in,
// as the go command finds it.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("no go.mod here or above: run from the repository")
	}
	return filepath.Dir(mod), nil
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(argv []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	list := fs.String("list", "scripts/mutations.txt", "the list of breaks, relative to the module root")
	jobs := fs.Int("j", runtime.GOMAXPROCS(0), "breaks tested at once (most of a run is waiting: tests' processes, sockets and timers)")
	only := fs.String("only", "", "test only the breaks whose description contains this text")
	baseline := fs.Bool("baseline", true, "first run each set of tests unbroken: they must pass and run at least one test")
	timeout := fs.Duration("timeout", 5*time.Minute, "go test -timeout of each run")
	if err := fs.Parse(argv); err != nil {
		return 2
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "mutate: "+format+"\n", a...)
		return 1
	}
	root, err := moduleRoot()
	if err != nil {
		return fail("%v", err)
	}
	f, err := os.Open(filepath.Join(root, *list))
	if err != nil {
		return fail("the list of breaks: %v", err)
	}
	breaks, err := parseList(f, *list)
	f.Close()
	if err != nil {
		return fail("the list of breaks cannot be used:\n%v", err)
	}
	if *only != "" {
		breaks = slices.DeleteFunc(breaks, func(b Break) bool { return !strings.Contains(b.Name, *only) })
	}
	if len(breaks) == 0 {
		return fail("no breaks to test")
	}

	// Every break is checked (its file read, its text found once) before
	// any test runs.
	tmp, err := os.MkdirTemp("", "switchboard-mutate-")
	if err != nil {
		return fail("%v", err)
	}
	defer os.RemoveAll(tmp)
	overlays := make([]string, len(breaks))
	brokenFiles := make([]string, len(breaks))
	var errs []error
	for i, b := range breaks {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(b.File)))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", *list, b.Line, err))
			continue
		}
		broken, err := apply(src, b)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", *list, b.Line, err))
			continue
		}
		name := filepath.Join(tmp, fmt.Sprintf("%d-%s", i, filepath.Base(b.File)))
		brokenFiles[i] = name
		if err := os.WriteFile(name, broken, 0o600); err != nil {
			return fail("%v", err)
		}
		o, _ := json.Marshal(map[string]map[string]string{"Replace": {filepath.Join(root, filepath.FromSlash(b.File)): name}})
		overlays[i] = filepath.Join(tmp, fmt.Sprintf("%d-overlay.json", i))
		if err := os.WriteFile(overlays[i], o, 0o600); err != nil {
			return fail("%v", err)
		}
	}
	if len(errs) > 0 {
		return fail("the list of breaks does not match the code:\n%v", errors.Join(errs...))
	}

	ctx := context.Background()
	start := time.Now()

	// A named package whose test binary does not link the broken file's
	// package cannot catch the break: it is left out of that break's run
	// (so an entry may name a suite that will cover the code once it
	// links it), and an entry none of whose packages link it is invalid.
	mod, err := modulePath(root)
	if err != nil {
		return fail("%v", err)
	}
	deps, err := testDeps(ctx, root, breaks)
	if err != nil {
		return fail("%v", err)
	}
	for i := range breaks {
		b := &breaks[i]
		target := mod
		if d := path.Dir(b.File); d != "." {
			target += "/" + d
		}
		var keep, drop []string
		for _, p := range b.Pkgs {
			if deps[p][target] {
				keep = append(keep, p)
			} else {
				drop = append(drop, p)
			}
		}
		if len(keep) == 0 {
			errs = append(errs, fmt.Errorf("%s:%d: no package of %q links %s: its tests cannot catch break %q", *list, b.Line, strings.Join(b.Pkgs, " "), target, b.Name))
		}
		if len(drop) > 0 {
			fmt.Fprintf(stdout, "   %s: not run for %q (its tests do not link %s)\n", strings.Join(drop, " "), b.Name, target)
		}
		b.Pkgs = keep
	}
	if len(errs) > 0 {
		return fail("the list of breaks does not match the code:\n%v", errors.Join(errs...))
	}
	if *baseline {
		type set struct{ pkgs, run, skip string }
		var sets []Break
		have := map[set]bool{}
		for _, b := range breaks {
			k := set{strings.Join(b.Pkgs, " "), b.Run, b.Skip}
			if !have[k] {
				have[k] = true
				sets = append(sets, Break{Name: "baseline", Pkgs: b.Pkgs, Run: b.Run, Skip: b.Skip})
			}
		}
		fmt.Fprintf(stdout, "== baseline: %d sets of tests, unbroken\n", len(sets))
		bad := false
		for _, r := range parallel(sets, *jobs, func(i int, b Break) Result { return runTests(ctx, root, b, "", *timeout) }) {
			if r.res.Outcome != Survived { // unbroken tests must pass
				bad = true
				fmt.Fprintf(stdout, "   %s (run %q skip %q): %s\n", strings.Join(r.b.Pkgs, " "), r.b.Run, r.b.Skip, r.res.Detail)
			}
		}
		if bad {
			return fail("the tests fail (or run nothing) without any break: fix them before the mutation check means anything")
		}
		fmt.Fprintf(stdout, "   passed in %.0f s\n", time.Since(start).Seconds())
	}
	fmt.Fprintf(stdout, "== %d breaks, %d at once\n", len(breaks), *jobs)
	var mu sync.Mutex
	results := parallel(breaks, *jobs, func(i int, b Break) Result {
		r := runTests(ctx, root, b, overlays[i], *timeout)
		// A compiler's message names the real file.
		r.Detail = strings.ReplaceAll(r.Detail, brokenFiles[i], b.File)
		if rel, err := filepath.Rel(root, brokenFiles[i]); err == nil {
			r.Detail = strings.ReplaceAll(r.Detail, rel, b.File)
		}
		mu.Lock()
		fmt.Fprintf(stdout, "   %-8s %s (%.1f s)\n", r.Outcome, b.Name, r.Took.Seconds())
		mu.Unlock()
		return r
	})

	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tresult\tbreak\tfile\ttests\tseconds\tdetail")
	counts := map[Outcome]int{}
	for i, r := range results {
		counts[r.res.Outcome]++
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%.1f\t%s\n", i+1, r.res.Outcome, r.b.Name, r.b.File, strings.Join(r.b.Pkgs, " "), r.res.Took.Seconds(), r.res.Detail)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "== %d caught, %d survived, %d invalid, in %.0f s\n", counts[Caught], counts[Survived], counts[Invalid], time.Since(start).Seconds())
	if counts[Survived]+counts[Invalid] > 0 {
		return fail("every break must be caught: add a test that fails on each SURVIVED one; fix the entry of each INVALID one in %s", *list)
	}
	return 0
}

type done struct {
	b   Break
	res Result
}

// parallel runs f over bs, n at once, and returns the results in order.
func parallel(bs []Break, n int, f func(int, Break) Result) []done {
	out := make([]done, len(bs))
	sem := make(chan struct{}, max(1, n))
	var wg sync.WaitGroup
	for i, b := range bs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			out[i] = done{b, f(i, b)}
		}()
	}
	wg.Wait()
	return out
}
