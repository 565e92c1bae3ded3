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
// The gateway's connections use it too. The write is not for concurrent
// use (its callers hold their queue's lock): it keeps the state of the
// write in progress, so that a write allocates nothing.
func WriteNow(rc syscall.RawConn) func([]byte) (int, bool) {
	if !nonBlocking(rc) {
		return nil // a write could wait: every line goes through the writer goroutine
	}
	w := &writeNow{rc: rc}
	w.fn = w.attempt
	return w.write
}

// writeNow is WriteNow's write: the write in progress, for fn (w.attempt,
// made once: a closure made per write escaped to the heap).
type writeNow struct {
	rc   syscall.RawConn
	b    []byte
	n    int
	werr error
	fn   func(fd uintptr) bool
}

func (w *writeNow) write(b []byte) (int, bool) {
	w.b, w.n, w.werr = b, 0, nil
	err := w.rc.Write(w.fn)
	n, werr := w.n, w.werr
	w.b, w.werr = nil, nil
	return n, err == nil && werr == nil
}

func (w *writeNow) attempt(fd uintptr) bool {
	for w.n < len(w.b) {
		// It never blocks (the descriptor is non-blocking): see
		// rawWrite.
		m, e := rawWrite(fd, w.b[w.n:])
		switch {
		case e == 0 && m > 0:
			w.n += m
			continue
		case e == unix.EINTR:
			continue
		case e != 0 && e != unix.EAGAIN:
			w.werr = e
		}
		break
	}
	return true // never wait here: the writer goroutine does
}
