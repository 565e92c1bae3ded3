// Package api is the host's LOCAL API: the one door through which the tray,
// the CLI and the bridge reach the `switchboard serve` host that owns the
// servers of one user.
//
// # Transport
//
// A Unix socket at [SocketPath] (on Linux ~/.cache/switchboard/host.sock,
// with ~ from the user database: see [RuntimeDir]) inside a directory that only its
// owner may enter (0700), or on Windows a named pipe
// \\.\pipe\switchboard-<user SID> whose security descriptor admits only the
// current user. On Linux and macOS the host also checks each peer's uid
// (SO_PEERCRED, LOCAL_PEERCRED) and refuses any other user: the directory is
// the first barrier, the uid check the second. A [Client] checks the host's
// identity the same way, so it never talks to an impostor that took the
// name first.
//
// The host takes its single-instance lock ([AcquireInstanceLock]) before
// anything else; only the lock's holder may [InstanceLock.Listen], which
// replaces a socket file left behind by a killed host.
//
// # Wire protocol
//
// Newline-delimited JSON: every message is one JSON object on one line of at
// most [DefaultMaxMessageSize] bytes (16 MiB, the newline included). The
// host greets first:
//
//	{"hello": {"protocol": 1, "pid": 4242, "api": "1.0"}}
//
// protocol is this package's [ProtocolVersion] (the framing below), which
// a client requires to be its own; api is the version of the methods the
// host answers ([Options.APIVersion], app/hostapi.APIVersion), which this
// package carries and app/client checks.
//
// or, if it refuses the peer, sends a connection error and closes:
//
//	{"error": {"code": "forbidden", "message": "..."}}
//
// A client sends requests; each has a positive integer id, unique among the
// client's requests in flight, and the host answers each exactly once, in any
// order (requests on one connection run concurrently):
//
//	→ {"id": 7, "method": "servers.list", "params": {...}}
//	← {"id": 7, "result": [...]}
//	← {"id": 7, "error": {"code": "not_found", "message": "server \"files\" does not exist: add it with ..."}}
//
// An error may carry data: the same thing as data, so that a client acts
// on it without reading the message (the host's problems, each with its key
// and remedy; app/hostapi.Problem). A client that knows no data shows the
// message, which says it all:
//
//	← {"id": 8, "error": {"code": "disabled", "message": "server \"gh\" is disabled: enable it first (...)",
//	     "data": [{"server": "gh", "message": "...", "remedy": {"kind": "enable", "server": "gh"}}]}}
//
// The built-in method "subscribe" ({"topics": ["server.state", ...]}, "*"
// for every topic) answers {"seq": K}, the sequence number of the last event
// published before the subscription took effect; every later event of those
// topics follows on the same connection, interleaved with responses:
//
//	← {"event": "server.state", "data": {...}, "seq": 12}
//
// seq is global to the host and strictly increasing on every connection, so
// a client applies events in seq order after a snapshot it fetched after
// subscribing. No client ever polls.
//
// A message without an id that carries an error ends the connection: the
// host says why (bad_request, too_large, forbidden, shutting_down) and
// closes. A client that does not read its messages is dropped, never waited
// for: each connection has a bounded outgoing queue, and when it overflows
// the host closes that connection.
package api
