//go:build unix

package stdio

import (
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// directWriter returns a non-blocking write to w when w is a pipe the Go
// runtime polls (os.Pipe files are non-blocking on Unix): Write then sends
// at once what fits and queues only the rest, with no goroutine hand-off.
func directWriter(w io.Writer) func([]byte) (int, bool) {
	f, ok := w.(*os.File)
	if !ok {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	return WriteNow(rc)
}

// WriteNow returns a write to rc's descriptor (non-blocking: a pipe or a
// socket the Go runtime polls) that never waits: it sends what the
// descriptor takes at once and reports how much, and whether no error
// came, so that the caller queues only the rest for a writer goroutine.
// The gateway's connections use it too.
func WriteNow(rc syscall.RawConn) func([]byte) (int, bool) {
	if !nonBlocking(rc) {
		return nil // a write could wait: every line goes through the writer goroutine
	}
	return func(b []byte) (int, bool) {
		var n int
		var werr error
		err := rc.Write(func(fd uintptr) bool {
			for n < len(b) {
				// It never blocks (the descriptor is non-blocking):
				// see rawWrite.
				m, e := rawWrite(fd, b[n:])
				switch {
				case e == 0 && m > 0:
					n += m
					continue
				case e == unix.EINTR:
					continue
				case e != 0 && e != unix.EAGAIN:
					werr = e
				}
				break
			}
			return true // never wait here: the writer goroutine does
		})
		return n, err == nil && werr == nil
	}
}
