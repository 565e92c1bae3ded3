// Command switchboard manages the local MCP servers of desktop AI apps.
// main only dispatches: the logic lives in importable packages.
package main

import (
	"os"

	"github.com/switchboard-mcp/switchboard/app/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
