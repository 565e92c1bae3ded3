//go:build linux

package host

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestSandboxStrictNpx is the README's first five minutes, then
// "switchboard servers set everything --sandbox strict": a real host, a
// private HOME (its own npm cache), npx fetching server-everything from
// the registry, and the entry changed to strict once it runs. Under strict
// npx itself cannot run the package (it asks the registry, which is not
// there, for a minute; then it locks and rewrites its folder, which is
// read-only): the engine runs the warmed package's bin from the npx cache
// instead (engine/sandbox_npx.go). Before that the server sat in
// "starting" until the handshake timeout.
func TestSandboxStrictNpx(t *testing.T) {
	testkit.SkipShort(t, "a test that runs npx")
	if s := sandbox.Probe(); s.ABI < 4 {
		testkit.SkipOrFail(t, "Landlock ABI 4 is needed, this kernel has %d (%s)", s.ABI, s.Detail)
	}
	if _, err := exec.LookPath("npx"); err != nil {
		testkit.SkipOrFail(t, "npx is not installed (scripts/deps.sh installs Node.js)")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	entry := map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-everything@2026.8.31"}}
	th := runHost(t, nil, map[string]any{"everything": entry})
	var first hostapi.ServerStatus
	testkit.EventuallyWithin(t, "everything runs unconfined", 5*time.Minute, func() (bool, string) {
		first = th.statusOf(t, "everything")
		b, _ := json.Marshal(first)
		return first.State == hostapi.StateRunning && first.PID != 0 || first.State == hostapi.StateFailed, string(b)
	})
	if first.State != hostapi.StateRunning {
		testkit.SkipOrFail(t, "the npm registry could not be reached (CI reaches package registries): %+v", first)
	}

	// servers set everything --sandbox strict: the config file changes.
	entry["sandbox"] = "strict"
	b, _ := json.MarshalIndent(map[string]any{"version": 1, "mcpServers": map[string]any{"everything": entry}}, "", "  ")
	if err := os.WriteFile(th.opts.ConfigPath, b, 0o600); err != nil {
		t.Fatal(err)
	}
	var st hostapi.ServerStatus
	// Past the 60 s handshake timeout: a start that waits on npx fails
	// there, and is retried.
	testkit.EventuallyWithin(t, "everything runs under strict", 90*time.Second, func() (bool, string) {
		st = th.statusOf(t, "everything")
		b, _ := json.Marshal(st)
		return st.State == hostapi.StateRunning && st.PID != 0 && st.PID != first.PID && st.Sandbox != nil && st.Sandbox.Preset == "strict", string(b)
	})
	if st.Sandbox.Unconfined || st.Failures != 0 {
		t.Errorf("under strict: sandbox %+v, %d failures; want confined, a first start that worked", st.Sandbox, st.Failures)
	}
	var res json.RawMessage
	th.must(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "everything", Tool: "echo", Arguments: json.RawMessage(`{"message":"confined"}`)}, &res)
	if !strings.Contains(string(res), "Echo: confined") {
		t.Errorf("echo under strict = %s", res)
	}
}
