//go:build unix

// Command gofloor is the floor of a relay written in Go on this machine
// (issue 12): it starts its arguments as a child and copies bytes both
// ways with io.Copy, its stdin to the child and the child's stdout to its
// stdout, every descriptor non-blocking in the runtime's poller (as the
// host's are). Like bench/gateway/floorrelay (the same in C, without a
// runtime) it parses nothing and checks nothing: bench/gateway runs both
// beside the host, so that the host's figures can be read against what
// copying alone costs, with and without Go's scheduler.
package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gofloor PROGRAM [ARG...]")
		os.Exit(2)
	}
	for _, fd := range []int{0, 1} {
		if err := syscall.SetNonblock(fd, true); err != nil {
			fmt.Fprintln(os.Stderr, "gofloor:", err)
			os.Exit(1)
		}
	}
	in, out := os.NewFile(0, "stdin"), os.NewFile(1, "stdout")
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	w, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gofloor:", err)
		os.Exit(1)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gofloor:", err)
		os.Exit(1)
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "gofloor:", err)
		os.Exit(1)
	}
	go func() {
		_, _ = io.Copy(w, in) // until the client closes
		w.Close()
	}()
	_, _ = io.Copy(out, r)
	_ = cmd.Wait()
}
