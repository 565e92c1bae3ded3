// Command switchboard manages the local MCP servers of desktop AI apps.
// With no arguments it is the tray app; otherwise the command line (the
// host is `switchboard serve`). main only dispatches: the logic lives in
// importable packages.
package main

import (
	"fmt"
	"os"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/cli"
	"github.com/switchboard-mcp/switchboard/ui"
	"github.com/switchboard-mcp/switchboard/ui/localefix"
)

func main() {
	localefix.Restore()
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
