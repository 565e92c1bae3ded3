//go:build linux

package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	enginesandbox "github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/engine/sandbox/sandboxtest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

func init() {
	helpers["sandbox-prober"] = func() int { sandboxtest.Serve(); return 0 }
}

// TestBundleSandboxHostile: a bundle's server is hostile. Installed
// under the sandbox its options imply, and driven through a real bridge,
// it tries to plant code in its own unpacked folder (what runs at its
// next start, and what 'servers verify' would then report too late), to
// write into another bundle's folder and read it, and to read and write
// servers.lock: each is denied. What it needs still works: reading its
// own files, and writing the folder the user gave it (so a denial is the
// sandbox's, not a broken probe; the test runs as root in CI, where file
// modes stop nothing).
func TestBundleSandboxHostile(t *testing.T) {
	testkit.SkipShort(t, "an end-to-end test (the built program, a host, the sandbox)")
	if s := enginesandbox.Probe(); s.ABI < 4 {
		testkit.SkipOrFail(t, "Landlock ABI 4 is needed, this kernel has %d (%s)", s.ABI, s.Detail)
	}
	sb := newSandbox(t)
	writeConfig(t, sb.configPath(), `{"mcpServers": {}}`)
	sb.serve(t)
	given := filepath.Join(sb.home, "Projects", "given")
	if err := os.MkdirAll(given, 0o700); err != nil {
		t.Fatal(err)
	}
	manifest := func(name string) map[string]any {
		return map[string]any{"manifest_version": "0.3", "name": name, "version": "1.0.0", "description": "a hostile server",
			"author": map[string]any{"name": "Mallory"},
			"server": map[string]any{"type": "binary", "entry_point": "server/README",
				"mcp_config": map[string]any{"command": testExe, "args": []string{},
					"env": map[string]string{helperEnv: "sandbox-prober", markEnv: sb.mark, "GORACE": "atexit_sleep_ms=0"}}},
			"user_config": map[string]any{"work": map[string]any{"type": "directory", "title": "Work", "description": "its work folder", "required": true}}}
	}
	for _, name := range []string{"victim", "mallory"} {
		p := filepath.Join(sb.root, name+".mcpb")
		packBundle(t, p, manifest(name), map[string]string{"file": "a file of the bundle", "server/README": "the server"})
		sb.cli(t, "bundles", "install", p, "--set", "work="+given, "--no-start")
	}
	lock, err := install.ReadLock(sb.stateDir())
	if err != nil {
		t.Fatal(err)
	}
	own, other := lock.Servers["mallory"].Dir, lock.Servers["victim"].Dir
	lockFile := install.LockPath(sb.stateDir())
	sb.waitServer(t, "mallory", "running", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.Sandbox != nil })
	b := sb.bridge(t, "")
	try := func(probe, arg string) string {
		t.Helper()
		return b.call(t, "mallory__try", map[string]any{"probe": probe, "arg": arg})
	}
	for _, c := range []struct{ probe, arg, want string }{
		{"read", filepath.Join(own, "manifest.json"), "ok"},
		{"write", filepath.Join(given, "out.txt"), "ok"},
		{"ro-write", own, "denied"},
		{"ro-create", own, "denied"},
		{"ro-unlink", own, "denied"},
		{"ro-rename", own, "denied"},
		{"write", filepath.Join(own, "server", "README"), "denied"},
		{"write", filepath.Join(other, "server", "README"), "denied"},
		{"ro-create", other, "denied"},
		{"read", filepath.Join(other, "manifest.json"), "denied"},
		{"write", install.ListingPath(own), "denied"},
		{"read", lockFile, "denied"},
		{"write", lockFile, "denied"},
	} {
		if got := try(c.probe, c.arg); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s %s: %q, want %s", c.probe, c.arg, got, c.want)
		}
	}
	if out := sb.run(t, "", "servers", "verify"); out.code != 0 {
		t.Errorf("after the tries, servers verify finds a change: %s", out)
	}
}
