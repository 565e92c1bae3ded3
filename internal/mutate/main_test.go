package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseList(t *testing.T) {
	good := `# a comment
break: one
file: a/b.go
old:   x := 1
new: x := 2
test: ./a ./b
run: TestX

# the second
break: two
file: a/b.go
old: y
new:
test: ./a
skip: TestSlow
`
	bs, err := parseList(strings.NewReader(good), "list")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 2 {
		t.Fatalf("%d entries, want 2: %+v", len(bs), bs)
	}
	if b := bs[0]; b.Name != "one" || b.File != "a/b.go" || b.Old != "x := 1" || b.New != "x := 2" ||
		strings.Join(b.Pkgs, ",") != "./a,./b" || b.Run != "TestX" || b.Line != 2 {
		t.Errorf("first entry = %+v", b)
	}
	if b := bs[1]; b.New != "" || b.Skip != "TestSlow" || b.Line != 10 {
		t.Errorf("second entry (an empty new deletes the text) = %+v", b)
	}

	for _, bad := range []struct{ list, says string }{
		{"break: x\nfile: f\nold: a\ntest: ./p\n", "lacks new"},
		{"file: f\nold: a\nnew: b\n", "lacks break, test"},
		{"break: x\nfile: f\nold: a\nnew: a\ntest: ./p\n", "the same text"},
		{"break: x\nbreak: y\nfile: f\nold: a\nnew: b\ntest: ./p\n", "break given twice"},
		{"break: x\nfile: f\nold: a\nnew: b\ntest: ./p\npkg: ./q\n", `unknown key "pkg"`},
		{"break: x\nfile: f\nold a\n", "not a \"key: value\" line"},
	} {
		if _, err := parseList(strings.NewReader(bad.list), "list"); err == nil || !strings.Contains(err.Error(), bad.says) {
			t.Errorf("%q: error %v, want one with %q", bad.list, err, bad.says)
		}
	}
}

func TestApplyExactlyOnce(t *testing.T) {
	src := []byte("a := 1\nb := 2\nb := 2\n")
	got, err := apply(src, Break{File: "f.go", Old: "a := 1", New: "a := 0"})
	if err != nil || string(got) != "a := 0\nb := 2\nb := 2\n" {
		t.Errorf("once: %q %v", got, err)
	}
	if _, err := apply(src, Break{File: "f.go", Old: "b := 2", New: "b := 0"}); err == nil || !strings.Contains(err.Error(), "occurs 2 times") {
		t.Errorf("twice: %v, want a refusal", err)
	}
	if _, err := apply(src, Break{File: "f.go", Old: "c := 3", New: "c := 0"}); err == nil || !strings.Contains(err.Error(), "not in the file") {
		t.Errorf("absent: %v, want a refusal", err)
	}
}

// TestRun: the whole check on a module of its own, with real go test
// runs through the overlay: a break its test catches, one that survives,
// one that does not build, one whose run pattern selects no test; the
// checkout is left as it was.
func TestRun(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatalf("go is not on PATH: %v", err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src := "package m\n\nfunc Max(a, b int) int {\n\tif a > b {\n\t\treturn a\n\t}\n\treturn b\n}\n\nfunc Twice(a int) int { return a * 2 }\n"
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	write("m.go", src)
	write("m_test.go", "package m\n\nimport \"testing\"\n\nfunc TestMax(t *testing.T) {\n\tif Max(1, 2) != 2 || Max(2, 1) != 2 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n\n"+
		"func TestTwice(t *testing.T) {\n\tif Twice(0) != 0 {\n\t\tt.Fatal(\"wrong\")\n\t}\n}\n")
	write("other/o.go", "package other\n")
	write("other/o_test.go", "package other\n\nimport \"testing\"\n\nfunc TestO(t *testing.T) {}\n")
	list := `break: max takes the smaller
file: m.go
old: if a > b {
new: if a < b {
test: . ./other

break: twice adds
file: m.go
old: return a * 2
new: return a + a + 0*a - a + a
test: .

break: does not build
file: m.go
old: return b
new: return "b"
test: .

break: runs nothing
file: m.go
old: return a * 2
new: return a * 3
test: .
run: TestNone
`
	write("mutations.txt", list)
	t.Chdir(dir)
	var out, errOut bytes.Buffer
	code := run([]string{"-list", "mutations.txt", "-baseline=false", "-j", "2"}, &out, &errOut)
	t.Log(out.String(), errOut.String())
	if code != 1 {
		t.Errorf("exit code %d, want 1 (a break survived, one is invalid)", code)
	}
	lines := map[string]string{}
	for _, l := range strings.Split(out.String(), "\n") {
		for _, name := range []string{"max takes the smaller", "twice adds", "does not build", "runs nothing"} {
			if strings.Contains(l, name) && strings.Contains(l, "  m.go  ") {
				lines[name] = l
			}
		}
	}
	for name, want := range map[string]string{
		"max takes the smaller": "caught",
		"twice adds":            "SURVIVED",
		"does not build":        "INVALID",
		"runs nothing":          "INVALID",
	} {
		if !strings.Contains(lines[name], want) {
			t.Errorf("%s: %q, want %s", name, lines[name], want)
		}
	}
	if !strings.Contains(lines["does not build"], "does not build (example.com/m") || !strings.Contains(lines["does not build"], "m.go:7") {
		t.Errorf("the build failure is not said, or not with the real file: %q", lines["does not build"])
	}
	if !strings.Contains(lines["max takes the smaller"], "TestMax") {
		t.Errorf("the catching test is not named: %q", lines["max takes the smaller"])
	}
	if !strings.Contains(out.String(), "./other: not run") {
		t.Errorf("./other (which does not link m) was not left out of the first break's run")
	}
	if b, err := os.ReadFile(filepath.Join(dir, "m.go")); err != nil || string(b) != src {
		t.Errorf("the checkout changed: %q %v", b, err)
	}

	// A break whose text is gone fails before any test runs.
	write("mutations.txt", strings.Replace(list, "old: return b", "old: return c", 1))
	out.Reset()
	errOut.Reset()
	if code := run([]string{"-list", "mutations.txt", "-baseline=false"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "not in the file") || strings.Contains(out.String(), "caught") {
		t.Errorf("a stale entry: exit %d, %s%s", code, out.String(), errOut.String())
	}

	// The baseline: unbroken tests that fail stop the check.
	write("m_test.go", "package m\n\nimport \"testing\"\n\nfunc TestMax(t *testing.T) { t.Fatal(\"broken\") }\n\nfunc TestTwice(t *testing.T) {}\n")
	write("mutations.txt", "break: max takes the smaller\nfile: m.go\nold: if a > b {\nnew: if a < b {\ntest: .\n")
	out.Reset()
	errOut.Reset()
	if code := run([]string{"-list", "mutations.txt"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), "without any break") {
		t.Errorf("failing unbroken tests: exit %d, %s%s", code, out.String(), errOut.String())
	}
}
