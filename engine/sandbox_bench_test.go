//go:build linux

package engine

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
)

// BenchmarkSandboxLaunch is the host's share of a sandboxed start: the
// probe, the runtime's needs, the private temp directory, the policy's
// encoding.
func BenchmarkSandboxLaunch(b *testing.B) {
	spec := Spec{Name: "bench", Command: "/bin/true", Sandbox: sandbox.Policy{Enabled: true, Net: sandbox.NetNone, Required: true}}
	launch := &Launch{Path: "/bin/true", Args: []string{"true"}, Resolved: "/bin/true"}
	opts := StartOptions{Shim: "/bin/true", SandboxTemp: b.TempDir()}
	for b.Loop() {
		env := []string{"HOME=/root", "PATH=/usr/bin:/bin"}
		if _, _, _, _, err := sandboxLaunch(&spec, launch, opts, env, "/usr/bin:/bin"); err != nil {
			b.Fatal(err)
		}
	}
}
