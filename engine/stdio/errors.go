package stdio

import (
	"fmt"
	"strings"

	"github.com/switchboard-mcp/switchboard/engine"
)

// Reason says why a [Conn] closed.
type Reason string

// The close reasons.
const (
	ReasonExited           Reason = "exited"            // the server process ended
	ReasonMessageTooLarge  Reason = "message too large" // a line longer than MaxMessageBytes
	ReasonJunkOutput       Reason = "junk output"       // more than MaxJunkLines non-JSON-RPC lines in a row
	ReasonWriteQueueFull   Reason = "write queue full"  // the server stopped reading stdin
	ReasonFlood            Reason = "flood"             // requests or notifications faster than the limit, for too long
	ReasonStopped          Reason = "stopped"           // closed by the client
	ReasonHandshakeTimeout Reason = "handshake timeout" // no initialize answer in time
	ReasonIOError          Reason = "i/o error"         // reading stdout or writing stdin failed
)

// CloseError is the error a closed [Conn] returns from Read and Write, and
// so the error of every request that was in flight.
type CloseError struct {
	Server string             // the server's name, if known
	Reason Reason             // why the connection closed
	Detail string             // more about the reason, for a person
	Exit   *engine.ExitStatus // how the process ended, for ReasonExited
	Stderr []string           // the last captured stderr lines, if any
}

func (e *CloseError) Error() string {
	var b strings.Builder
	if e.Server != "" {
		fmt.Fprintf(&b, "server %q: ", e.Server)
	}
	b.WriteString("connection closed: ")
	b.WriteString(string(e.Reason))
	if e.Exit != nil {
		b.WriteString(" (" + e.Exit.String() + ")")
	}
	if e.Detail != "" {
		b.WriteString(": " + e.Detail)
	}
	if n := len(e.Stderr); n > 0 {
		b.WriteString("; last stderr: " + e.Stderr[n-1])
	}
	return b.String()
}
