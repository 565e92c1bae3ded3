// Package testkit holds the helpers that the tests of several packages
// share: the CI rule for a missing system piece, the npm servers of
// engine/stdio/testdata/npm, a buffer safe for a writer and a reader, the
// helper-process TestMain, and (per OS) process checks, a private D-Bus
// configuration and Wine workarounds. Only tests import it.
package testkit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// SkipOrFail skips a test that lacks a system piece (a program, a
// package), but fails it under CI (CI=true), where the piece must be
// installed.
func SkipOrFail(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s; CI=true, where it must be installed", msg)
	}
	t.Skip(msg)
}

// NpmServer returns the absolute path of an installed npm server's
// executable (engine/stdio/testdata/npm, installed by `npm ci` there).
// Where node or the package is missing it skips the test, but under CI
// (CI=true), which installs them, it fails it.
func NpmServer(t testing.TB, bin string) string {
	t.Helper()
	SkipShort(t, "a test of an npm server")
	if _, err := exec.LookPath("node"); err != nil {
		SkipOrFail(t, "node is not installed (%v): install Node.js 20 or later", err)
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, "engine", "stdio", "testdata", "npm", "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err != nil {
		SkipOrFail(t, "%s is not installed (%v): run npm ci in engine/stdio/testdata/npm", bin, err)
	}
	return path
}

// moduleRoot is the folder of go.mod above the working directory (a
// test's is its package's folder).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("testkit: no go.mod above the working directory")
		}
		dir = parent
	}
}

// SyncBuffer is a bytes.Buffer safe for a writer and readers at once.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// HelperMain is the start of a TestMain whose test binary is re-executed
// as helper processes. It sets *exe to the test binary's path (before any
// helper runs: a helper may re-execute it too); then, when the environment
// variable env names a role, it runs that helper and exits with its code
// (99 for a role helpers lacks). Otherwise it returns, and the caller runs
// the tests.
func HelperMain(exe *string, env string, helpers map[string]func() int) {
	path, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot find the test binary:", err)
		os.Exit(2)
	}
	*exe = path
	if role := os.Getenv(env); role != "" {
		h, ok := helpers[role]
		if !ok {
			fmt.Fprintf(os.Stderr, "unknown helper %q\n", role)
			os.Exit(99)
		}
		os.Exit(h())
	}
}

// Hang blocks a helper process for good: a server that never answers or
// never exits, until its test kills it. Unlike select {}, it is never
// taken for a deadlock when no other goroutine is left. It is for helper
// processes only: a test waits for an event, not for time.
func Hang() {
	for {
		time.Sleep(time.Hour)
	}
}

// SkipShort skips a test of the long lane under go test -short: one that
// runs npm servers, a virtual X server (Xvfb), Wine or the program end to
// end (docs/testing.md). what names it in the skip.
func SkipShort(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		t.Skipf("-short: %s is in the long lane (go test without -short)", what)
	}
}
