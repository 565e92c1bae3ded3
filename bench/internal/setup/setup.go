// Package setup holds what the benchmark programs under bench/ do before
// they measure: find the module, make a work folder, say what they do.
package setup

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleRoot is the folder of the module's go.mod, as the go command finds
// it from the current directory.
func ModuleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(b)) == "" || strings.TrimSpace(string(b)) == os.DevNull {
		return "", fmt.Errorf("cannot find the module root (go env GOMOD): %v", err)
	}
	return filepath.Dir(strings.TrimSpace(string(b))), nil
}

// WorkDir sets *dir, when empty, to a new temporary folder named after the
// benchmark, and returns what removes it (nothing for a folder given).
func WorkDir(bench string, dir *string) (cleanup func(), err error) {
	if *dir != "" {
		return func() {}, nil
	}
	d, err := os.MkdirTemp("", "sb-bench-"+bench+"-")
	if err != nil {
		return nil, err
	}
	*dir = d
	return func() { os.RemoveAll(d) }, nil
}

// Progress returns a printf that writes a line, "bench/NAME: ...", to w,
// or nothing when w is nil.
func Progress(w io.Writer, bench string) func(format string, a ...any) {
	return func(format string, a ...any) {
		if w != nil {
			fmt.Fprintf(w, "bench/"+bench+": "+format+"\n", a...)
		}
	}
}
