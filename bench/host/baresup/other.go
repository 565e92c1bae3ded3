//go:build !linux

// Command baresup is Linux-only (the benchmarks read /proc).
package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Fprintln(os.Stderr, "baresup runs on Linux only")
	os.Exit(2)
}
