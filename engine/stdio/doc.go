// Package stdio is the MCP stdio transport of Switchboard: a [Transport]
// that implements the go-sdk's [mcp.Transport] by starting ONE server
// process per Connect (through package engine) and speaking
// newline-delimited JSON-RPC over its stdin and stdout.
//
// The [Conn] it returns bounds everything a misbehaving server could grow:
// a line longer than MaxMessageBytes, a run of non-JSON-RPC lines, a flood
// of requests or notifications, and unwritten data when the server stops
// reading its stdin. Each ends the connection with a typed [CloseError]
// that Read returns (never a bare io.EOF), so every in-flight request and
// [mcp.ClientSession.Wait] see why.
//
// It also times out the server/discover probe (SEP-2575) on its own: the
// go-sdk's Client.Connect tries server/discover first and falls back to
// initialize on any non-modern error, but has no probe timeout, and a
// deadline on its context would kill the initialize as well.
package stdio
