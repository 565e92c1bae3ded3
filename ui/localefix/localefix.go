// Package localefix keeps Fyne from logging "Error parsing user locale C"
// at start-up, on every command, when the locale is C.UTF-8 (the default
// of Debian and Ubuntu containers and WSL).
//
// Fyne's lang package reads the locale in its init, through go-locale,
// which knows "C" and "POSIX" but takes "C.UTF-8" for a language tag and
// fails. This package's init, which runs before Fyne's (a test of the
// main package checks the order), shows go-locale "C" instead; [Restore],
// the first thing main does, puts the variable back before anything reads
// it or a child process inherits it.
package localefix

import (
	"os"
	"strings"
)

var (
	name, value string // the variable changed, and its value
	changed     bool
)

func init() {
	// go-locale's order: the first of these that is set decides.
	for _, n := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(n)
		if v == "" {
			continue
		}
		if strings.HasPrefix(v, "C.") || strings.HasPrefix(v, "POSIX.") {
			name, value, changed = n, v, true
			os.Setenv(n, "C")
		}
		return
	}
}

// Restore puts back the variable init changed, if any.
func Restore() {
	if changed {
		os.Setenv(name, value)
		changed = false
	}
}
