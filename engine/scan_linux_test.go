//go:build linux

package engine

import (
	"os"
	"os/exec"
	"sync"
	"testing"
)

// TestSharedScanIsFresh: callers that share a /proc scan still see a
// process that started before they asked.
func TestSharedScanIsFresh(t *testing.T) {
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for round := 0; round < 5; round++ {
		cmd := exec.Command("sleep", "30")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, st := range scanner.get() {
					if st.pid == pid {
						return
					}
				}
				errs <- "a shared scan missed a process started before the call"
			}()
		}
		wg.Wait()
		cmd.Process.Kill()
		cmd.Wait()
	}
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// BenchmarkScan is one /proc scan (what a stop ladder's poll cost before
// it followed members out of the group); BenchmarkTreeMembers is one poll
// now: a scan, the tree by descent, and the token of each candidate
// orphan (read once per process, then remembered).
func BenchmarkScan(b *testing.B) {
	for b.Loop() {
		_ = allProcs()
	}
}

func BenchmarkTreeMembers(b *testing.B) {
	me, _ := readStat(os.Getpid())
	for b.Loop() {
		_ = treeMembers(os.Getpid(), me.start, "no-such-token")
	}
}
