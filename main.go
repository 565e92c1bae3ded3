// Command switchboard manages the local MCP servers of desktop AI apps.
// With no arguments it is the tray app; otherwise the command line (the
// host is `switchboard serve`). main only dispatches: the logic lives in
// importable packages.
package main

import (
	"fmt"
	"os"
	"runtime"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/cli"
	"github.com/switchboard-mcp/switchboard/ui"
	"github.com/switchboard-mcp/switchboard/ui/localefix"
)

func main() {
	localefix.Restore()
	// An AI app may start us (`switchboard bridge`, and through it a host)
	// with a stripped or empty environment: what programs need of the user
	// comes from the user database then (the rendezvous never depends on it).
	if id, err := api.CurrentIdentity(); err == nil {
		api.FillUserEnv(id, runtime.GOOS)
	}
	args := os.Args[1:]
	// "--background" is how the login item starts it: tray only, no window.
	if len(args) == 0 || len(args) == 1 && args[0] == "--background" {
		sock, err := api.DefaultSocketPath()
		if err == nil {
			err = ui.Run(ui.Options{Socket: sock, ShowWindow: len(args) == 0})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "switchboard:", err)
			os.Exit(1)
		}
		return
	}
	os.Exit(cli.Main(args, os.Stdin, os.Stdout, os.Stderr))
}
