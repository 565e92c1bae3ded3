//go:build unix

package inherited

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// helperEnv makes this test binary list the descriptors it inherited
// (those without close-on-exec, above 2) on stdout and exit.
const helperEnv = "INHERITED_TEST_LIST"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		var fds []string
		for fd := 3; fd < 1024; fd++ {
			if flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil && flags&unix.FD_CLOEXEC == 0 {
				fds = append(fds, strconv.Itoa(fd))
			}
		}
		os.Stdout.WriteString(strings.Join(fds, " "))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// leak opens a file and a pipe without close-on-exec, as a parent that
// starts us may leave them, and closes them at the end.
func leak(t *testing.T) []int {
	t.Helper()
	f, err := unix.Open(filepath.Join(t.TempDir(), "f"), unix.O_CREAT|unix.O_RDWR, 0o600) // no O_CLOEXEC
	if err != nil {
		t.Fatal(err)
	}
	var p [2]int
	if err := unix.Pipe(p[:]); err != nil { // no O_CLOEXEC
		t.Fatal(err)
	}
	fds := []int{f, p[0], p[1]}
	t.Cleanup(func() {
		for _, fd := range fds {
			unix.Close(fd)
		}
	})
	return fds
}

// childInherits runs this binary as a child and returns the descriptors
// above 2 it inherited.
func childInherits(t *testing.T) []int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), helperEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var fds []int
	for _, f := range strings.Fields(string(out)) {
		n, _ := strconv.Atoi(f)
		fds = append(fds, n)
	}
	return fds
}

func cloexec(t *testing.T, fd int) bool {
	t.Helper()
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil {
		t.Fatalf("descriptor %d: %v", fd, err)
	}
	return flags&unix.FD_CLOEXEC != 0
}

// TestSealAndClose: a child started before Seal inherits the leaked
// descriptors (the test can fail), after it none; Seal names them, and
// Close closes them.
func TestSealAndClose(t *testing.T) {
	fds := leak(t)
	if got := childInherits(t); !containsAll(got, fds) {
		t.Fatalf("before Seal a child inherits %v, which lacks the leaked %v: the test cannot tell", got, fds)
	}
	got, err := Seal()
	if err != nil {
		t.Fatal(err)
	}
	if !containsAll(got, fds) {
		t.Errorf("Seal found %v inherited, want %v among them", got, fds)
	}
	for _, fd := range fds {
		if !cloexec(t, fd) {
			t.Errorf("descriptor %d is not close-on-exec after Seal", fd)
		}
	}
	if got := childInherits(t); len(got) > 0 {
		t.Errorf("after Seal a child inherits %v", got)
	}
	closed := Close()
	if !containsAll(closed, fds) {
		t.Errorf("Close closed %v, want %v among them", closed, fds)
	}
	for _, fd := range fds {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != unix.EBADF {
			t.Errorf("descriptor %d is still open after Close (%v)", fd, err)
		}
	}
	if again := Close(); len(again) > 0 {
		t.Errorf("a second Close closed %v", again)
	}
}

// TestMarkAll: after MarkAll no child inherits anything.
func TestMarkAll(t *testing.T) {
	fds := leak(t)
	if got := childInherits(t); !containsAll(got, fds) {
		t.Fatalf("before MarkAll a child inherits %v, which lacks the leaked %v", got, fds)
	}
	if err := MarkAll(); err != nil {
		t.Fatal(err)
	}
	if got := childInherits(t); len(got) > 0 {
		t.Errorf("after MarkAll a child inherits %v", got)
	}
}

// TestWithoutFdDir: where the descriptors cannot be listed (no /proc), the
// numbers below the limit are tried.
func TestWithoutFdDir(t *testing.T) {
	fds := leak(t)
	old := fdDir
	fdDir = filepath.Join(t.TempDir(), "none")
	defer func() { fdDir = old }()
	got, err := seal()
	if err != nil {
		t.Fatal(err)
	}
	if !containsAll(got, fds) {
		t.Errorf("seal without %s found %v, want %v among them", old, got, fds)
	}
	if got := childInherits(t); len(got) > 0 {
		t.Errorf("after seal a child inherits %v", got)
	}
	if runtime.GOOS == "linux" {
		if l, err := listedAt(old); err != nil || !containsAll(l, fds) {
			t.Errorf("%s lists %v (%v), want %v among them", old, l, err, fds)
		}
	}
}

func listedAt(dir string) ([]int, error) {
	old := fdDir
	fdDir = dir
	defer func() { fdDir = old }()
	return listed()
}

func containsAll(have, want []int) bool {
	for _, w := range want {
		if !slices.Contains(have, w) {
			return false
		}
	}
	return true
}
