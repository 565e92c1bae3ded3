package relay

import "github.com/modelcontextprotocol/go-sdk/jsonrpc"

// Conn is what a [Relay] needs of a server's connection: to send a
// request or a notification, to receive the answers and notifications
// about its calls before anything else decodes them, and to know when the
// connection has closed. A local server's *stdio.Conn (engine/stdio) is
// one; a remote server's go-sdk connection, with a tap in front of its
// session (app/host's tapConn), is the other.
type Conn interface {
	// WriteLine sends one JSON-RPC message, a line that ends in "\n". An
	// error means it was not sent. A connection that sends
	// asynchronously returns nil and, if the request fails to go, gives
	// its message tap a response to the request's id with a [*SendError].
	WriteLine(line []byte) error
	// SetLineTap installs a function that sees each line the server
	// sends before it is decoded, and takes it (true) or leaves it. A
	// connection that receives messages already decoded (a remote
	// server's) never calls it.
	SetLineTap(tap func(line []byte) bool)
	// SetTap installs a function that sees each decoded message the
	// server sends before the client's session does, and takes it (true)
	// or leaves it.
	SetTap(tap func(jsonrpc.Message) bool)
	// Done is closed when the connection has closed; Err then says why.
	Done() <-chan struct{}
	Err() error
}
