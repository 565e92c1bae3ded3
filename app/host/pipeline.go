package host

import (
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/relay"
)

// The call pipeline (docs/gateway.md, "The call pipeline"). Every request
// the host sends a server for an app or a person, whatever its path, is a
// relay.Call through app/relay: the gateway's tools/call (the lean path,
// the go-sdk server's, HTTP), its resources/read, prompts/get and
// completion/complete, and the API's servers.call. A local server's relay
// runs over its stdio connection, a remote server's over its go-sdk
// session (sessionconn.go); StartToolCall (gateway.go) finds the one of
// the server's running session, waking a sleeping server or holding the
// call while one comes back. The relay runs the hooks below on each, in
// this order:
//
//  1. the activity log (activity.go): Before keeps a copy of the
//     arguments, After writes the record, redacted (every secret resolved
//     for a server), with how the call ended and the approval's decision;
//     first, so that it records the calls a later stage refuses;
//  2. approvals (approvals.go, app/approvals): the server's policy and
//     askDestructive let the call go, refuse it (a deny policy) or hold
//     it until a person decides.
//
// Then the relay sends it, bounded by the entry's callTimeout. No path
// goes around this chain: it is assembled here only.

// pipeline is the call pipeline's hooks, in order: the activity log, then
// the approval stage (nil: none, a Manager without a Host).
func pipeline(activity *activityLog, approvals relay.Hook) relay.Hook {
	return relay.Chain(
		activity,  // activity log (issue 14 §1)
		approvals, // approvals (issue 14 §3)
	)
}

// testBackend, if set, wraps the backend a host gives its gateway. Only
// the package's tests set it (setGatewayPath: a backend without the lean
// path, so that the gateway takes its go-sdk path, whose CallTool goes
// through this same pipeline); no program and no environment can.
var testBackend func(gateway.RawBackend) gateway.Backend
