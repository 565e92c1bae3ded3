package tray

import (
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// QuitPlan decides what Quit does, from a fresh host.info.
//
// Under the OS service manager (service), Quit closes the tray only: the
// servers keep serving the AI apps, and "Stop background service" is the
// way to stop them. Otherwise Quit stops the host, which stops every
// server and waits for their stop ladders before it exits.
//
// Before stopping the host, Quit asks (ask is the question) when AI apps
// are connected through the gateway (info.AIClients). The question names
// the apps when they gave their names (info.AIApps), else counts the
// connections. Clients of the host's API (this app, the CLI, a
// `switchboard logs --follow`) do not count.
func QuitPlan(info hostapi.Info, service bool) (stopHost bool, ask string) {
	if service {
		return false, ""
	}
	n := info.AIClients
	if n <= 0 {
		return true, ""
	}
	apps := aiapps.Titles(info.AIApps)
	var who string
	switch {
	case len(apps) == 1:
		who = apps[0] + " is"
	case len(apps) > 1:
		who = joinNames(apps) + " are"
	case n == 1:
		who = "An AI app is"
	default:
		who = fmt.Sprintf("%d AI apps are", n)
	}
	lose := "they lose"
	if len(apps) == 1 || len(apps) == 0 && n == 1 {
		lose = "it loses"
	}
	return true, who + " connected through Switchboard. Quitting stops every server, and " + lose + " these servers' tools. Quit anyway?"
}

// maxNamed is how many apps a question names; past it the rest are
// counted.
const maxNamed = 4

// joinNames joins two or more names: "A and B", "A, B and C", and past
// maxNamed "A, B, C and 2 other AI apps".
func joinNames(names []string) string {
	if len(names) > maxNamed {
		rest := len(names) - (maxNamed - 1)
		return strings.Join(names[:maxNamed-1], ", ") + fmt.Sprintf(" and %d other AI apps", rest)
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
