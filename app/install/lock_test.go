package install

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// lockHelperEnv makes the test binary a process that adds entries to a
// lock (TestUpdateLockConcurrent's second process).
const lockHelperEnv = "SB_INSTALL_LOCK_HELPER"

// TestUpdateLockConcurrent: adds at once, from goroutines (each its own
// UpdateLock call, its own open file) and from two other processes, lose
// none of each other's entries.
func TestUpdateLockConcurrent(t *testing.T) {
	if spec := os.Getenv(lockHelperEnv); spec != "" {
		// state|prefix|n
		var state, prefix string
		var n int
		for i, part := range filepath.SplitList(spec) {
			switch i {
			case 0:
				state = part
			case 1:
				prefix = part
			case 2:
				n, _ = strconv.Atoi(part)
			}
		}
		for i := range n {
			name := fmt.Sprintf("%s%d", prefix, i)
			if err := UpdateLock(state, func(l *Lock) { l.Servers[name] = &Locked{Package: name} }); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	state := t.TempDir()
	const perProc, goroutines = 30, 30
	var procs []*exec.Cmd
	for _, prefix := range []string{"p", "q"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUpdateLockConcurrent$")
		cmd.Env = append(os.Environ(), lockHelperEnv+"="+strings.Join([]string{state, prefix, strconv.Itoa(perProc)}, string(os.PathListSeparator)))
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, cmd)
	}
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for i := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := fmt.Sprintf("g%d", i)
			errs <- UpdateLock(state, func(l *Lock) { l.Servers[name] = &Locked{Package: name} })
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	for _, p := range procs {
		if err := p.Wait(); err != nil {
			t.Fatalf("the other process: %v", err)
		}
	}
	l, err := ReadLock(state)
	if err != nil {
		t.Fatal(err)
	}
	if want := 2*perProc + goroutines; len(l.Servers) != want {
		t.Errorf("the lock holds %d entries, want %d: adds at once lost each other's", len(l.Servers), want)
	}
}

// TestForgetRename: a removed server's entry leaves the lock, its folder
// said unused only when no other entry has it; a renamed one moves.
func TestForgetRename(t *testing.T) {
	state := t.TempDir()
	dir := Folder(state, "pkg", "1.0.0")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(ListingPath(dir), []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := UpdateLock(state, func(l *Lock) {
		l.Servers["a"] = &Locked{Package: "pkg", Dir: dir}
		l.Servers["b"] = &Locked{Package: "pkg", Dir: dir}
	}); err != nil {
		t.Fatal(err)
	}
	if err := Rename(state, "a", "a2"); err != nil {
		t.Fatal(err)
	}
	if unused, err := Forget(state, "b"); err != nil || unused != "" {
		t.Errorf("forgetting b while a2 uses the folder: %q %v", unused, err)
	}
	l, _ := ReadLock(state)
	if l.Servers["a"] != nil || l.Servers["b"] != nil || l.Servers["a2"] == nil || len(l.Servers) != 1 {
		t.Errorf("after rename a→a2 and forget b: %v", l.Servers)
	}
	unused, err := Forget(state, "a2")
	if err != nil || unused != dir {
		t.Errorf("forgetting the last user: %q %v, want %s", unused, err, dir)
	}
	if unused, err := Forget(state, "never"); err != nil || unused != "" {
		t.Errorf("forgetting a name the lock has not: %q %v", unused, err)
	}
}
