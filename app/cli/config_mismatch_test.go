//go:build linux

package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestOtherConfigNote: an AI app's bridge, started with the SDKs' six
// variables (no XDG_CONFIG_HOME), starts the host on demand, which reads
// the default config file; status and doctor, run from the shell whose
// XDG_CONFIG_HOME points elsewhere, say that the host uses another file
// than the shell's and how to change it. With the host's environment they
// say nothing of it.
func TestOtherConfigNote(t *testing.T) {
	sb := newSessionSandbox(t)
	stripped := only(sb.env, sdkDefaultEnvNames...)
	// Registered before the bridge, so it runs after the bridge is closed:
	// the host the bridge started is stopped, at the real rendezvous.
	t.Cleanup(func() {
		if r := runEnv(t, stripped, "", "stop"); r.code != 0 {
			t.Errorf("stop: %s", r)
		}
	})
	b := sb.bridgeEnv(t, stripped, "") // starts the host on demand
	_ = b.tools(t)

	hostCfg := filepath.Join(sb.home, ".config", "switchboard", "config.json")
	shellCfg := sb.configPath()
	st := sb.run(t, "", "status")
	if !strings.Contains(st.stdout, "the running host (pid ") || !strings.Contains(st.stdout, "uses the config "+hostCfg+", not "+shellCfg) ||
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
