package tray

import (
	"fmt"

	"github.com/switchboard-mcp/switchboard/app/host"
)

// QuitPlan decides what Quit does, from a fresh host.info.
//
// Under the OS service manager (service), Quit closes the tray only: the
// servers keep serving the AI apps, and "Stop background service" is the
// way to stop them. Otherwise Quit stops the host, which stops every
// server and waits for their stop ladders before it exits.
//
// Before stopping the host, Quit asks (ask is the question) when other
// clients use it. info.Clients counts every connection to the host's API,
// this app's own included: own is how many of them are this app's (one,
// the [client.Live] that the tray and the window share). The rest are
// counted as AI apps: bridges do not identify themselves yet, so a
// `switchboard logs --follow` in a terminal counts too, and Quit asks one
// question too many rather than one too few.
//
// TODO(bridge issue): count only the AI apps' connections once the host
// reports them apart (whatever way they come: bridges on the API socket,
// or a gateway whose clients Info.Clients does not count), and name the
// apps in the question.
func QuitPlan(info host.Info, service bool, own int) (stopHost bool, ask string) {
	if service {
		return false, ""
	}
	others := info.Clients - own
	switch {
	case others <= 0:
		return true, ""
	case others == 1:
		ask = "An AI app (or another Switchboard client) is connected to Switchboard. "
	default:
		ask = fmt.Sprintf("%d AI apps (or other Switchboard clients) are connected to Switchboard. ", others)
	}
	return true, ask + "Quitting stops every server, and they lose these servers' tools. Quit anyway?"
}
