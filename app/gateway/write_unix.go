//go:build unix

package gateway

import (
	"errors"
	"io"
	"syscall"

	"golang.org/x/sys/unix"
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
	return func(b []byte) (int, bool) {
		var n int
		var werr error
		err := rc.Write(func(fd uintptr) bool {
			for n < len(b) {
				m, err := unix.Write(int(fd), b[n:])
				if m > 0 {
					n += m
				}
				if err != nil {
					if errors.Is(err, unix.EINTR) {
						continue
					}
					if !errors.Is(err, unix.EAGAIN) {
						werr = err
					}
					break
				}
			}
			return true // never wait here: the writer goroutine does
		})
		return n, err == nil && werr == nil
	}
}
