//go:build !linux

// Command host is the host benchmark harness; it reads /proc, so it runs
// on Linux only.
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "bench/host runs on Linux only")
	os.Exit(2)
}
