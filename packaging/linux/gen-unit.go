//go:build ignore

// gen-unit writes the systemd user unit of the Linux packages from
// app/service's own definition (the unit `switchboard service install`
// writes), with ExecStart at /usr/bin/switchboard, so that the packaged
// unit and the installed one never drift apart. Only the leading comment
// differs: the package installs the unit in /usr/lib/systemd/user/ and does
// not enable it. Run from the repository root:
//
//	go run packaging/linux/gen-unit.go > switchboard.service
package main

import (
	"fmt"
	"log"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/service"
)

const head = `# Switchboard's background service: the host of your local MCP servers, as
# a systemd user service. The switchboard package installs it and does not
# enable it: 'systemctl --user enable --now switchboard.service' (or
# 'switchboard service install') starts it now and at every login.
`

func main() {
	env := service.Env{
		GOOS:       "linux",
		Getenv:     func(string) string { return "" },
		Executable: "/usr/bin/switchboard",
	}
	unit, err := env.SystemdUnit()
	if err != nil {
		log.Fatal(err)
	}
	// Drop the unit's own leading comment.
	lines := strings.SplitAfter(unit, "\n")
	for len(lines) > 0 && strings.HasPrefix(lines[0], "#") {
		lines = lines[1:]
	}
	body := strings.Join(lines, "")
	if !strings.Contains(body, "\nExecStart=/usr/bin/switchboard serve") {
		log.Fatalf("the unit does not run /usr/bin/switchboard serve:\n%s", body)
	}
	fmt.Print(head + body)
}
