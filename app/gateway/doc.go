// Package gateway is the host's MCP endpoint for AI apps: one MCP server
// that aggregates the tools, prompts, resources and resource templates of
// every server the host runs, so that many apps share one instance of each
// server.
//
// # Names
//
// A server's tool is exposed as SERVER__TOOL, its prompt as
// SERVER__PROMPT ([ExposedName]); a name over 64 bytes keeps its first 55
// bytes and ends in '_' and 8 hex digits of a hash of the pair, so it is
// stable. Server names never contain "__", so the split is on the first
// one. Resources keep their URIs and resource templates their URI
// templates; a URI or a URI template that two servers list is reported
// ([Mapping].Conflicts) and served by neither. A URI that matches a
// template is read from the template's server (a listed resource of the
// same URI comes first); one that matches the templates of two servers
// that a client sees is read from neither.
//
// completion/complete is forwarded too: ref/prompt with the exposed name
// goes to the prompt's server under its own name, ref/resource with a URI
// template (or a listed URI) to its server. A server that does not
// advertise completions is not asked: the answer has no values.
//
// # What a client sees
//
// A server's tools are listed while it runs, and (its last lists) while it
// restarts; they go away when it is stopped by the user, disabled, failed
// or removed, and the gateway's clients get list_changed. A call to a tool
// of a server that is down is a tool error (isError) that names the server
// and its state, never a hang; every call is bounded by the server's
// callTimeout (the [Backend] does that). The first list request of a new
// session waits for the servers that are starting for the first time, each
// up to its probe and handshake timeouts, so that an app that lists once
// at start sees them.
//
// Filters narrow what a client sees: the entry's own "tools"
// {"allow","deny"} (path.Match patterns on the server's tool names, deny
// wins) and the client's [Filter] (a bridge's --servers and --tools on the
// exposed names); a client sees the intersection.
//
// Nothing that arrives here can add, change, start or stop a server or
// read a secret: a client reaches only the [Backend]'s calls, and only for
// what its view lists. A server's requests to its client (roots,
// sampling, elicitation) go to the app whose call caused them, over its
// session ([App]); the host decides which (app/host/inputs.go).
//
// # Endpoints
//
// The local socket (mcp.sock beside the host's API socket; a named pipe on
// Windows; same-user peers only) speaks MCP's stdio wire format, one
// JSON-RPC message per line, after an optional one-line preamble of the
// bridge that carries its filter (see conn.go). Each socket client gets a
// go-sdk server of its own (a facade), so both protocol eras are spoken.
// tools/call (and its cancellation and progress) takes a lean path that
// relays the JSON-RPC without the go-sdk's server decoding it; see lean.go.
// A call that the go-sdk's server handles (the HTTP endpoint's, a socket
// request the lean path leaves to it) gets the server's result as the
// server wrote it too, never decoded into go-sdk types; see rawresult.go.
// Every tools/call, on every path, goes through app/relay (ids, the
// answer's tap, timeout, cancellation, error wording, the hook), through
// the backend's [RawBackend]; a backend without it (tests' doubles only)
// gets its calls through Backend.CallTool. The host's backend sends
// resources/read, prompts/get and completion/complete through the relay
// too (app/host/pipeline.go).
//
// Streamable HTTP on 127.0.0.1 is off unless "gateway": {"httpPort": N} is
// in the config. Every request needs "Authorization: Bearer TOKEN" with the
// token kept in the keyring ([TokenName]); a request whose Host or Origin
// is not local is refused.
package gateway
