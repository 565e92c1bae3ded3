// Package engine starts one local MCP server as an operating-system process
// and stops it so that nothing is left behind.
//
// It owns everything below the protocol: the validated [Spec] of a server,
// the resolution of its executable (never through a shell), the allowlisted
// environment with secrets resolved only at spawn, the Windows batch-file
// guard, stderr handling, and the stop ladder that ends the server's whole
// process tree. The MCP stdio transport built on it lives in
// [github.com/switchboard-mcp/switchboard/engine/stdio], and the restart loop
// in [github.com/switchboard-mcp/switchboard/engine/supervisor].
//
// The engine knows nothing of the app, the keyring or the screen: secrets
// reach it through the [SecretResolver] its caller passes.
package engine
