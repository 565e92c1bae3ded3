package stdio

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

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
		lines := ErrorLines(e.Stderr, 3)
		if len(lines) == 1 && (lines[0] == e.Stderr[n-1] || !errorish.MatchString(lines[0])) {
			b.WriteString("; last stderr: " + clip(lines[0]))
		} else {
			for i, l := range lines {
				lines[i] = clip(l)
			}
			b.WriteString("; stderr, the last lines that look like errors: " + strings.Join(lines, " | "))
		}
	}
	return b.String()
}

// errorish matches a stderr line that reports a failure, as most programs
// word one.
var errorish = regexp.MustCompile(`(?i)\b(error|err|errno|fatal|panic|exception|traceback|failed|failure|cannot|can't|could not|couldn't|unable|denied|refused|not found|no such|invalid|missing|unknown|unexpected|enoent|eacces|eaddrinuse|econnrefused)\b`)

// ErrorLines returns, in their order, the last max lines of stderr that
// look like errors (a crash often ends with a usage text or a blank line,
// after the line that says what went wrong), or the last non-blank line
// if none does.
func ErrorLines(stderr []string, max int) []string {
	var out []string
	for i := len(stderr) - 1; i >= 0 && len(out) < max; i-- {
		if errorish.MatchString(stderr[i]) {
			out = append(out, stderr[i])
		}
	}
	if len(out) == 0 {
		for i := len(stderr) - 1; i >= 0; i-- {
			if strings.TrimSpace(stderr[i]) != "" {
				return []string{stderr[i]}
			}
		}
		return []string{stderr[len(stderr)-1]}
	}
	slices.Reverse(out)
	return out
}

// clip shortens a line of stderr to what fits in a status line.
func clip(s string) string {
	const n = 300
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}
