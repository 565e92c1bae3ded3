package tray

import (
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// QuitStopsHost reports whether Quit stops the host (and with it every
// server): only a host started on demand (`serve --on-demand`, as this
// app or a bridge starts one when none runs; info.OnDemand) that is not
// the OS service manager's. A host the user started (`switchboard serve`
// in a terminal, as `doctor` advises without systemd) is theirs: Quit
// closes the tray and leaves it serving. The menu's item says so:
// "Quit and stop all servers" when it stops them ([QuitLabel]).
func QuitStopsHost(info hostapi.Info) bool {
	return info.OnDemand && !info.Service
}

// QuitLabel is the quit item's label for the host's state: [LabelQuit],
// or [LabelQuitAndStop] when Quit stops the host ([QuitStopsHost]).
func QuitLabel(connected bool, info hostapi.Info) string {
	if connected && QuitStopsHost(info) {
		return LabelQuitAndStop
	}
	return LabelQuit
}

// QuitPlan decides what Quit does, from a fresh host.info; stopService is
// the user's "Stop background service" (shown for a service's host).
//
// Quit stops the host only when [QuitStopsHost]: under the OS service
// manager Quit closes the tray only (the servers keep serving the AI
// apps, and "Stop background service" is the way to stop them), and a
// host the user started themselves is left running. Stopping the host
// stops every server and waits for their stop ladders before it exits.
//
// Before stopping the host, Quit asks (ask is the question) when AI apps
// are connected through the gateway (info.AIClients). The question names
// the apps when they gave their names (info.AIApps), else counts the
// connections. Clients of the host's API (this app, the CLI, a
// `switchboard logs --follow`) do not count.
func QuitPlan(info hostapi.Info, stopService bool) (stopHost bool, ask string) {
	if !stopService && !QuitStopsHost(info) {
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
