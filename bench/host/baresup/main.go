//go:build linux

// Command baresup is the baseline of the host's idle benchmark: a "bare
// supervisor" that starts N copies of a command with stdin, stdout and
// stderr on pipes, holds the pipes open, and does nothing else until
// SIGTERM or SIGINT, when it closes the children's stdin and waits for
// them. It prints "ready" on stdout once every child has started.
//
//	baresup -n 10 -- CMD [ARGS...]
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

func main() {
	n := flag.Int("n", 10, "how many children")
	flag.Parse()
	argv := flag.Args()
	if len(argv) == 0 {
		fmt.Fprintln(os.Stderr, "usage: baresup -n N -- CMD [ARGS...]")
		os.Exit(2)
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)

	type child struct {
		cmd   *exec.Cmd
		stdin io.WriteCloser
		held  []io.ReadCloser
	}
	var kids []child
	for range *n {
		cmd := exec.Command(argv[0], argv[1:]...)
		// Like the engine: the child dies with us even if we are killed.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			fail(err)
		}
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			fail(err)
		}
		stderr, err := cmd.StderrPipe()
		if err != nil {
			fail(err)
		}
		if err := cmd.Start(); err != nil {
			fail(err)
		}
		kids = append(kids, child{cmd, stdin, []io.ReadCloser{stdout, stderr}})
	}
	fmt.Println("ready")

	<-sigs
	for _, k := range kids {
		k.stdin.Close()
	}
	for _, k := range kids {
		// Drain what is left so that a child blocked on a full pipe can exit.
		for _, r := range k.held {
			go io.Copy(io.Discard, r)
		}
		_ = k.cmd.Wait()
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "baresup:", err)
	os.Exit(1)
}
