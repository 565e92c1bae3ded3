package testkit

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The most sleeps (calls of time's Sleep) and hand-written deadline loops the module's
// tests may hold (issue 26). A test waits for a condition
// ([Eventually], a channel from a fake that signals the call arrived) or
// runs on virtual time (testing/synctest), not for a fixed time; what
// is left sleeps in a helper process or where no event can be awaited.
// Lower these when a change removes some; never raise them.
const (
	maxSleeps        = 30
	maxDeadlineLoops = 1
)

var (
	sleepRE    = regexp.MustCompile(`\btime\.Sleep\b`)
	deadlineRE = regexp.MustCompile(`deadline :?= time\.Now\(\)\.Add\(`)
)

// TestSleepsInTests counts the sleeps (time's Sleep) and hand-written deadline loops
// (a deadline variable set from time.Now) in the module's _test.go files
// (testdata aside), and fails above the caps, naming each one.
func TestSleepsInTests(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	sleeps, loops := scanTests(t, root)
	if len(sleeps) > maxSleeps {
		t.Errorf("%d sleeps in tests, at most %d: wait for the event instead (testkit.Eventually, a channel the fake closes when the call arrives) or run the test in a testing/synctest bubble:\n%s",
			len(sleeps), maxSleeps, strings.Join(sleeps, "\n"))
	}
	if len(loops) > maxDeadlineLoops {
		t.Errorf("%d hand-written deadline loops in tests, at most %d: use testkit.Eventually or testkit.EventuallyWithin:\n%s",
			len(loops), maxDeadlineLoops, strings.Join(loops, "\n"))
	}
	t.Logf("%d sleeps (cap %d), %d deadline loops (cap %d)", len(sleeps), maxSleeps, len(loops), maxDeadlineLoops)
}

// scanTests returns the lines ("file:line: text") of the _test.go files
// under root that sleep (time's Sleep), and those that start a deadline loop.
func scanTests(t *testing.T, root string) (sleeps, loops []string) {
	t.Helper()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (n == "testdata" || n == "node_modules" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		rel, _ := filepath.Rel(root, path)
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text() // comments too: the count is grep's (issue 26)
			where := fmt.Sprintf("%s:%d: %s", rel, n, strings.TrimSpace(line))
			if sleepRE.MatchString(line) {
				sleeps = append(sleeps, where)
			}
			if deadlineRE.MatchString(line) {
				loops = append(loops, where)
			}
		}
		return sc.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return sleeps, loops
}
