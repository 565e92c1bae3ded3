// Command switchboard-bridge is the program that AI apps' configs name to
// reach Switchboard: `switchboard bridge` in a small static executable
// (no cgo, no UI, no host code), so that an app's connect costs about as
// much as spawning a tiny MCP server. See package app/bridge and
// docs/gateway.md.
package main

import (
	"os"

	"github.com/switchboard-mcp/switchboard/app/bridge"
	"github.com/switchboard-mcp/switchboard/internal/inherited"
)

func main() {
	// Nothing the AI app left open passes to `switchboard bridge`, which
	// replaces this program when no host runs, nor to the host it starts.
	_ = inherited.MarkAll()
	os.Exit(bridge.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
