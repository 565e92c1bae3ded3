//go:build linux

package cli

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOtherConfigNote: a host started without this shell's XDG_CONFIG_HOME
// (as an AI app's bridge starts one: its environment lacks it) reads the
// default config file; status and doctor, run from the shell, say that
// the host uses another file than the shell's and how to change it.
// With the same environment they say nothing of it.
func TestOtherConfigNote(t *testing.T) {
	sb := newSandbox(t)
	stripped := slices.DeleteFunc(slices.Clone(sb.env), func(e string) bool { return strings.HasPrefix(e, "XDG_CONFIG_HOME=") })
	h := startServe(t, stripped)
	h.waitReady(t)

	hostCfg := filepath.Join(sb.home, ".config", "switchboard", "config.json")
	shellCfg := sb.configPath()
	st := sb.run(t, "", "status")
	want := "the running host (pid "
	if !strings.Contains(st.stdout, want) || !strings.Contains(st.stdout, "uses the config "+hostCfg+", not "+shellCfg) ||
		!strings.Contains(st.stdout, "XDG_CONFIG_HOME is "+sb.configHome) || !strings.Contains(st.stdout, "SWITCHBOARD_CONFIG="+shellCfg) {
		t.Errorf("status from the shell:\n%s", st)
	}
	if d := sb.run(t, "", "doctor"); !strings.Contains(d.stdout, "FIX   the running host (pid ") || d.code == 0 {
		t.Errorf("doctor from the shell:\n%s", d)
	}
	// The host's own environment: no note.
	same := *sb
	same.env = stripped
	if st := same.run(t, "", "status"); strings.Contains(st.stdout, "uses the config") || st.code != 0 {
		t.Errorf("status with the host's environment:\n%s", st)
	}
}
