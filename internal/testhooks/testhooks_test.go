package testhooks_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testhooks"
)

// TestTestBinary: a test binary honours the switches.
func TestTestBinary(t *testing.T) {
	t.Setenv("SWITCHBOARD_LANDLOCK_ABI", "0")
	if v, ok := testhooks.LookupEnv("SWITCHBOARD_LANDLOCK_ABI"); !testhooks.Enabled() || !ok || v != "0" {
		t.Errorf("in a test binary: Enabled %v, LookupEnv %q %v", testhooks.Enabled(), v, ok)
	}
}

// TestShippedBuild: a program built as the shipped one is (no tag) reads
// no switch whatever its environment says; with the tag it does.
func TestShippedBuild(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, c := range []struct {
		tags []string
		want string
	}{
		{nil, `false "" false`},
		{[]string{"-tags", testhooks.Tag}, `true "0" true`},
	} {
		bin := filepath.Join(t.TempDir(), "probe")
		args := append(append([]string{"build", "-o", bin}, c.tags...), "./testdata/probe")
		if out, err := exec.Command(goCmd, args...).CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "SWITCHBOARD_LANDLOCK_ABI=0")
		out, err := cmd.Output()
		if got := strings.TrimSpace(string(out)); err != nil || got != c.want {
			t.Errorf("built with %v: %q (%v), want %q", c.tags, got, err, c.want)
		}
	}
}
