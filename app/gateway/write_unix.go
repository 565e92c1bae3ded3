//go:build unix

package gateway

import (
	"io"
	"syscall"

	"github.com/switchboard-mcp/switchboard/engine/stdio"
)

// directWriter returns a write to w (a socket or a pipe) that never
// waits: it sends what w takes at once and reports how much, so that the caller queues
// only the rest for the writer goroutine (no hand-off in the common case).
// nil if w has no file descriptor.
func directWriter(w io.Writer) func([]byte) (int, bool) {
	sc, ok := w.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	return stdio.WriteNow(rc)
}
