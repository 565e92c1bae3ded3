package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/ui/localefix"
)

func TestMain(m *testing.M) {
	if os.Getenv("SWITCHBOARD_LOCALE_HELPER") == "1" {
		// What main does first; then what a child process would inherit.
		localefix.Restore()
		os.Stdout.WriteString(os.Getenv("LANG"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestLocaleFix runs this binary (which links Fyne, as switchboard does)
// with LANG=C.UTF-8: Fyne's init must log no locale error, which holds
// only while localefix's init runs before Fyne's lang package's; and
// after Restore the variable is C.UTF-8 again.
func TestLocaleFix(t *testing.T) {
	for _, lang := range []string{"C.UTF-8", "POSIX.UTF-8", "C", "en_US.UTF-8"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		var env []string
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "LC_ALL=") && !strings.HasPrefix(kv, "LC_MESSAGES=") &&
				!strings.HasPrefix(kv, "LANG=") && !strings.HasPrefix(kv, "LANGUAGE=") {
				env = append(env, kv)
			}
		}
		cmd.Env = append(env, "SWITCHBOARD_LOCALE_HELPER=1", "LANG="+lang)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("LANG=%s: %v\n%s", lang, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "locale") {
			t.Errorf("LANG=%s: Fyne logged a locale error at start:\n%s", lang, stderr.String())
		}
		if got := stdout.String(); got != lang {
			t.Errorf("LANG=%s: after Restore, LANG=%q", lang, got)
		}
	}
}
