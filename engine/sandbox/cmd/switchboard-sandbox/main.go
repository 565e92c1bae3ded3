// Command switchboard-sandbox is the sandbox's exec shim alone
// (`switchboard-sandbox __sandbox-exec PATH ARGV0 ARGS...`, the policy in
// SWITCHBOARD_SANDBOX_POLICY; docs/sandbox.md): a small static program
// (CGO_ENABLED=0) that starts in about a millisecond, where the tray
// app's binary, which implements the same shim, first runs the package
// initialisation of everything it links (tens of ms). The host uses it
// when it is installed beside the switchboard executable, else
// switchboard itself.
package main

import (
	"fmt"
	"os"

	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	// With cgo, the shim runs in a C constructor before the Go runtime
	// starts (a static build: nothing for the loader to do either).
	_ "github.com/switchboard-mcp/switchboard/engine/sandbox/cshim"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != sandbox.ShimArg {
		fmt.Fprintf(os.Stderr, "switchboard-sandbox: Switchboard runs this to confine an MCP server; it is not for people (usage: %s PATH ARGV0 [ARGS...])\n", sandbox.ShimArg)
		os.Exit(2)
	}
	os.Exit(sandbox.ShimMain(os.Args[2:]))
}
