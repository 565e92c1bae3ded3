package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const allowList = `# a comment
linux    secrets  TestChild|TestOtherChild  : run by TestParent$  # helper-process child role
wine     engine   TestWin/big  : Wine does not cancel  # Wine gap
`

// run feeds a stream of events through a report with the allow-list
// above and returns what it printed and whether the run passed.
func run(t *testing.T, lanes, stream string, strict bool) (string, bool) {
	t.Helper()
	entries, err := parseAllowList(strings.NewReader(allowList), "allow.txt")
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	r := newReport(&out, entries, strings.Split(lanes, ","))
	if err := r.read(strings.NewReader(stream)); err != nil {
		t.Fatal(err)
	}
	ok := r.finish("allow.txt", strict)
	return out.String(), ok
}

// events builds test2json lines: action, package, test, output.
func events(evs ...[4]string) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString(`{"Action":"` + e[0] + `","Package":"` + module + "/" + e[1] + `"`)
		if e[2] != "" {
			b.WriteString(`,"Test":"` + e[2] + `"`)
		}
		if e[3] != "" {
			b.WriteString(`,"Output":` + quote(e[3]))
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func quote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}

func skipped(pkg, test, msg string) [][4]string {
	return [][4]string{
		{"run", pkg, test, ""},
		{"output", pkg, test, "=== RUN   " + test + "\n"},
		{"output", pkg, test, "    x_test.go:12: " + msg + "\n"},
		{"output", pkg, test, "--- SKIP: " + test + " (0.00s)\n"},
		{"skip", pkg, test, ""},
	}
}

func pkgRun(pkg string, evs ...[][4]string) [][4]string {
	all := [][4]string{{"start", pkg, "", ""}}
	for _, e := range evs {
		all = append(all, e...)
	}
	return append(all, [4]string{"output", pkg, "", "PASS\n"}, [4]string{"output", pkg, "", "ok  \t" + module + "/" + pkg + "\t0.1s\n"}, [4]string{"pass", pkg, "", ""})
}

// TestAllowedSkipPasses: a skip the allow-list names, in its lane, with
// its message, passes and is listed with the entry's reason.
func TestAllowedSkipPasses(t *testing.T) {
	out, ok := run(t, "linux", events(pkgRun("secrets", skipped("secrets", "TestChild", "run by TestParent"))...), true)
	if !ok {
		t.Errorf("an allowed skip failed the run:\n%s", out)
	}
	for _, want := range []string{"ok  \t" + module + "/secrets", "allowed  secrets TestChild", "x_test.go:12: run by TestParent", "allow.txt:2: helper-process child role"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "=== RUN") || strings.Contains("\n"+out, "\nPASS\n") {
		t.Errorf("the report prints a passing run's verbose lines:\n%s", out)
	}
}

// TestUnlistedSkipFails: a skip no entry names fails a strict run (CI),
// and so does one whose message, package or lane differs from the
// entry's; outside CI it is listed and does not fail.
func TestUnlistedSkipFails(t *testing.T) {
	for _, c := range []struct {
		name, lanes, pkg, test, msg string
	}{
		{"not listed", "linux", "app/config", "TestUpdate", "root writes anywhere"},
		{"another message", "linux", "secrets", "TestChild", "no D-Bus"},
		{"another package", "linux", "app/api", "TestChild", "run by TestParent"},
		{"another test", "linux", "secrets", "TestChildren", "run by TestParent"},
		{"another lane", "linux", "engine", "TestWin/big", "Wine does not cancel"},
		{"another lane, wine", "wine", "secrets", "TestChild", "run by TestParent"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stream := events(pkgRun(c.pkg, skipped(c.pkg, c.test, c.msg))...)
			out, ok := run(t, c.lanes, stream, true)
			if ok {
				t.Errorf("an unlisted skip passed a strict run:\n%s", out)
			}
			if !strings.Contains(out, "NOT ALLOWED  "+c.pkg+" "+c.test+"\n        x_test.go:12: "+c.msg) || !strings.Contains(out, "1 skipped tests are not on the allow-list allow.txt (fails the run)") {
				t.Errorf("the report does not name the skip and its reason:\n%s", out)
			}
			out, ok = run(t, c.lanes, stream, false)
			if !ok || !strings.Contains(out, "(would fail under CI=true)") {
				t.Errorf("outside CI: passed %v\n%s", ok, out)
			}
		})
	}
}

// TestFailuresFail: a failed test prints its whole output and fails the
// run; so do a package that fails without a failed test (a panic, a
// build failure) and one that never finishes.
func TestFailuresFail(t *testing.T) {
	failing := [][4]string{
		{"start", "engine", "", ""},
		{"run", "engine", "TestA", ""},
		{"output", "engine", "TestA", "=== RUN   TestA\n"},
		{"output", "engine", "TestA", "    a_test.go:3: got 1, want 2\n"},
		{"output", "engine", "TestA", "--- FAIL: TestA (0.00s)\n"},
		{"fail", "engine", "TestA", ""},
		{"run", "engine", "TestB", ""},
		{"output", "engine", "TestB", "=== RUN   TestB\n"},
		{"output", "engine", "TestB", "--- PASS: TestB (0.00s)\n"},
		{"pass", "engine", "TestB", ""},
		{"output", "engine", "", "FAIL\n"},
		{"fail", "engine", "", ""},
	}
	out, ok := run(t, "linux", events(failing...), true)
	if ok || !strings.Contains(out, "a_test.go:3: got 1, want 2\n--- FAIL: TestA") || !strings.Contains(out, "FAIL  engine TestA\n") || strings.Contains(out, "TestB") {
		t.Errorf("a failed test: passed %v\n%s", ok, out)
	}

	panicked := [][4]string{
		{"start", "engine", "", ""},
		{"run", "engine", "TestP", ""},
		{"output", "engine", "TestP", "=== RUN   TestP\n"},
		{"output", "engine", "TestP", "panic: boom\n"},
		{"output", "engine", "", "FAIL\t" + module + "/engine\t0.1s\n"},
		{"fail", "engine", "", ""},
	}
	out, ok = run(t, "linux", events(panicked...), true)
	if ok || !strings.Contains(out, "panic: boom") || !strings.Contains(out, "FAIL  engine\n") {
		t.Errorf("a panic: passed %v\n%s", ok, out)
	}

	unfinished := [][4]string{
		{"start", "engine", "", ""},
		{"run", "engine", "TestHang", ""},
		{"output", "engine", "TestHang", "=== RUN   TestHang\n"},
		{"output", "engine", "TestHang", "    hang_test.go:9: waiting\n"},
	}
	out, ok = run(t, "wine", events(unfinished...), true)
	if ok || !strings.Contains(out, "hang_test.go:9: waiting") || !strings.Contains(out, "FAIL  engine (did not finish") {
		t.Errorf("a binary that never finished: passed %v\n%s", ok, out)
	}

	build := `{"ImportPath":"` + module + `/engine [` + module + `/engine.test]","Action":"build-output","Output":"engine/x.go:1:1: syntax error\n"}
{"ImportPath":"` + module + `/engine [` + module + `/engine.test]","Action":"build-fail"}
{"Action":"start","Package":"` + module + `/engine"}
{"Action":"output","Package":"` + module + `/engine","Output":"FAIL\t` + module + `/engine [build failed]\n"}
{"Action":"fail","Package":"` + module + `/engine","FailedBuild":"` + module + `/engine [` + module + `/engine.test]"}
`
	out, ok = run(t, "linux", build, true)
	if ok || !strings.Contains(out, "engine/x.go:1:1: syntax error") || !strings.Contains(out, "FAIL  engine (build failed") {
		t.Errorf("a build failure: passed %v\n%s", ok, out)
	}

	out, ok = run(t, "linux", "no events at all\n", true)
	if ok || !strings.Contains(out, "no events at all\n") || !strings.Contains(out, "no test package ran") {
		t.Errorf("no package: passed %v\n%s", ok, out)
	}
}

// TestAllowListErrors: an entry without a reason or with too few fields
// is refused, and so is a list longer than the cap.
func TestAllowListErrors(t *testing.T) {
	for in, want := range map[string]string{
		"linux secrets TestA run by\n":                          "a.txt:1: no reason",
		"linux secrets TestA run by #\n":                        "a.txt:1: no reason",
		"\nlinux secrets TestA # why\n":                         "a.txt:2: want LANES PACKAGE TEST-REGEXP MESSAGE-REGEXP",
		"linux secrets Test( msg # why\n":                       "a.txt:1: the test's regexp",
		"linux secrets TestA (msg # why\n":                      "a.txt:1: the message's regexp",
		strings.Repeat("linux p TestA m # why\n", maxEntries+1): "13 entries, at most 12",
	} {
		if _, err := parseAllowList(strings.NewReader(in), "a.txt"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", in, err, want)
		}
	}
	es, err := parseAllowList(strings.NewReader("linux,wine  app/x  TestA/sub  a message with spaces  # why it is allowed\n"), "a.txt")
	if err != nil || len(es) != 1 {
		t.Fatalf("%v %v", es, err)
	}
	e := es[0]
	if strings.Join(e.lanes, ",") != "linux,wine" || e.pkg != "app/x" || !e.test.MatchString("TestA/sub") || e.test.MatchString("TestA/subX") ||
		e.msg.String() != "a message with spaces" || e.reason != "why it is allowed" {
		t.Errorf("entry %+v", e)
	}
}

// TestTheAllowList: the repository's list parses, within the cap, each
// entry with a reason.
func TestTheAllowList(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "skips-allowed.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	es, err := parseAllowList(f, "skips-allowed.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		for _, l := range e.lanes {
			if l != "linux" && l != "wine" {
				t.Errorf("%s: lane %q (linux or wine)", e.where, l)
			}
		}
	}
}

// TestCommand runs the command on a stream: its exit code says whether
// the run passed, and CI=true makes an unlisted skip fail it.
func TestCommand(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "skipreport")
	if out, err := exec.Command("go", "build", "-o", exe, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	allow := filepath.Join(t.TempDir(), "allow.txt")
	if err := os.WriteFile(allow, []byte(allowList), 0o600); err != nil {
		t.Fatal(err)
	}
	stream := events(pkgRun("app/config", skipped("app/config", "TestUpdate", "root writes anywhere"))...)
	for _, c := range []struct {
		ci   string
		code int
	}{{"true", 1}, {"", 0}} {
		cmd := exec.Command(exe, "-allow", allow, "-lane", "linux")
		cmd.Env = append(os.Environ(), "CI="+c.ci)
		cmd.Stdin = strings.NewReader(stream)
		out, _ := cmd.CombinedOutput()
		if cmd.ProcessState.ExitCode() != c.code || !strings.Contains(string(out), "NOT ALLOWED  app/config TestUpdate") {
			t.Errorf("CI=%q: exit code %d, want %d\n%s", c.ci, cmd.ProcessState.ExitCode(), c.code, out)
		}
	}
}
