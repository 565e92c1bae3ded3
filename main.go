// Command switchboard manages the local MCP servers of desktop AI apps.
// With no arguments it is the tray app; otherwise the command line (the
// host is `switchboard serve`). main only dispatches: the logic lives in
// importable packages.
package main

import (
	"os"
	"runtime"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/cli"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/inherited"
	// The sandbox's exec shim in C: with cgo it confines and execve's a
	// server before the Go runtime starts (docs/sandbox.md).
	_ "github.com/switchboard-mcp/switchboard/engine/sandbox/cshim"
	"github.com/switchboard-mcp/switchboard/ui"
	"github.com/switchboard-mcp/switchboard/ui/localefix"
)

func main() {
	// The sandbox's exec shim first, before any other work: it confines
	// itself and execve's a server (docs/sandbox.md). With cgo the C shim
	// (cshim) has done it before Go started; this is the fallback, and
	// where the C shim declined, the one that says why.
	if len(os.Args) > 1 && os.Args[1] == sandbox.ShimArg {
		os.Exit(sandbox.ShimMain(os.Args[2:]))
	}
	// Nothing this process inherited (an AI app's or a terminal's extra
	// descriptors) passes to what it starts: a host, and the host's
	// servers. A host also closes them at its start (app/hostrun).
	_, _ = inherited.Seal()
	localefix.Restore()
	// An AI app may start us (`switchboard bridge`, and through it a host)
	// with a stripped or empty environment: what programs need of the user
	// comes from the user database then (the rendezvous never depends on it).
	if id, err := api.CurrentIdentity(); err == nil {
		api.FillUserEnv(id, runtime.GOOS)
	}
	// The tray is a row of the command table ('switchboard help tray'):
	// no arguments run it with its window, "--background" (how the login
	// item starts it) without.
	cli.Tray = func(background bool) error {
		sock, err := api.DefaultSocketPath()
		if err != nil {
			return err
		}
		return ui.Run(ui.Options{Socket: sock, ShowWindow: !background})
	}
	// 'switchboard bundles open FILE' ("Open with Switchboard"): the
	// window alone on the bundle's page.
	cli.OpenBundle = func(file string) error {
		sock, err := api.DefaultSocketPath()
		if err != nil {
			return err
		}
		return ui.Run(ui.Options{Socket: sock, Bundle: file})
	}
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
