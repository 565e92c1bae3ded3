package testkit

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// childGrace is how long [Run] waits for the children it finds to exit:
// a test's cleanup may have killed a server whose exit is under way.
var childGrace = 10 * time.Second

// Run runs the tests of a package that starts processes, then checks, as
// Go's os/exec tests do for descriptors, that the test binary left none
// running: a child process still there after m.Run (once a short grace
// has passed) is a server or helper that a test started and never
// stopped. It names each one on stderr and turns a passing run into a
// failing one (exit code 1); it returns m.Run's code otherwise. It checks
// on Linux (through /proc) and is m.Run elsewhere. Use it as
// os.Exit(testkit.Run(m)).
func Run(m *testing.M) int {
	code := m.Run()
	if code != 0 {
		return code
	}
	if left := waitChildren(childGrace); len(left) > 0 {
		fmt.Fprintf(os.Stderr, "testkit: %d child process(es) of the test binary (pid %d) still running after the tests: %s\n"+
			"a test started them and did not stop them (Close the server, Wait the command, or kill it in t.Cleanup)\n",
			len(left), os.Getpid(), strings.Join(left, "; "))
		return 1
	}
	return 0
}

// waitChildren returns the running children left once they have had up to
// d to exit (none if they all exit sooner).
func waitChildren(d time.Duration) []string {
	deadline := time.Now().Add(d)
	for {
		left := Children()
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(50 * time.Millisecond)
	}
}
