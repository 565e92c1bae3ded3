// Package bridge is the AI app's end of Switchboard's gateway: the code of
// `switchboard bridge` and of the small executable switchboard-bridge
// (cmd/switchboard-bridge), which AI apps' configs name.
//
// An app pays the bridge's start on every connect, so this package imports
// as little as it can: the standard library, app/api (the host's
// rendezvous: where its sockets are, and dialling them) and
// golang.org/x/sys. It never imports the host, the gateway's server, the
// go-sdk, the keyring or any UI; TestDeps fails if it (or the executable)
// does. It also holds the wire format of the bridge's preamble ([Hello],
// [Welcome], [Filter]), which app/gateway serves.
//
// The bridge never decodes the MCP messages. It connects to the gateway's
// socket, sends its preamble (the app's filter), and then either hands its
// stdin and stdout to the host (Unix: SCM_RIGHTS) and waits for the end of
// the session, or relays the bytes both ways (Windows, a terminal,
// SWITCHBOARD_BRIDGE_RELAY=1).
//
// Starting a host when none runs is not done here: it needs the host's own
// code (the background service's manager, the detached start). `switchboard
// bridge` does it itself; switchboard-bridge runs `switchboard bridge` (the
// switchboard executable installed next to it) in its place, so that the
// slow path lives in one program and the fast path pays nothing for it.
package bridge
