package serverspec

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// The checks below return what is wrong with one value of a spec, with
// the remedy, or "": the engine's Spec.Check and the config's check report
// them under the key the config file gives the value.

// CommandProblem checks the executable: a bare name looked up in PATH, or
// an absolute path; never a command line.
func CommandProblem(cmd string) string {
	switch {
	case cmd == "":
		return "is required: name the executable (a name found in PATH, or an absolute path)"
	case strings.IndexFunc(cmd, unicode.IsSpace) >= 0 && !isExistingFile(cmd):
		// An absolute path to an existing file may hold spaces
		// (C:\Program Files\nodejs\node.exe): it is never split. Anything
		// else with whitespace is a command line pasted into command.
		fields := strings.Fields(cmd)
		if len(fields) > 1 {
			args, _ := json.Marshal(fields[1:]) // as the config file writes it
			return fmt.Sprintf("%q contains whitespace: put only the executable in command (%q) and the rest in args (%s)",
				cmd, fields[0], args)
		}
		return fmt.Sprintf("%q contains whitespace: put only the executable in command and its arguments in args", cmd)
	case strings.ContainsRune(cmd, 0):
		return "contains a NUL byte"
	case !filepath.IsAbs(cmd) && strings.ContainsAny(cmd, `/\`):
		return fmt.Sprintf("%q is a relative path: give an absolute path, or a bare name to look up in PATH", cmd)
	}
	return ""
}

// ArgProblem checks an argument of the process.
func ArgProblem(arg string) string {
	if strings.ContainsRune(arg, 0) {
		return "contains a NUL byte, which no process can receive"
	}
	return ""
}

// CwdProblem checks a working directory: absolute and existing; "" (the
// host's own) is fine.
func CwdProblem(cwd string) string {
	if cwd == "" {
		return ""
	}
	if !filepath.IsAbs(cwd) {
		return fmt.Sprintf("%q is not absolute: give an absolute path", cwd)
	}
	fi, err := os.Stat(cwd)
	if err != nil {
		return fmt.Sprintf("%q does not exist: create it or choose another directory", cwd)
	}
	if !fi.IsDir() {
		return fmt.Sprintf("%q is not a directory", cwd)
	}
	return ""
}

// StderrFileProblem checks the file stderr is appended to: an absolute
// path in an existing directory.
func StderrFileProblem(path string) string {
	if !filepath.IsAbs(path) {
		return fmt.Sprintf("%q is not an absolute path: give an absolute path to append to", path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return fmt.Sprintf("the directory of %q does not exist: create it first", path)
	}
	return ""
}

// isExistingFile reports whether p is an absolute path to an existing
// regular file.
func isExistingFile(p string) bool {
	if !filepath.IsAbs(p) {
		return false
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
