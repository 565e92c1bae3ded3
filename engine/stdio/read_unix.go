//go:build unix

package stdio

import (
	"io"
	"syscall"

	"golang.org/x/sys/unix"
)

// readerOf returns a reader of r's descriptor that reads with rawRead (on
// Linux without telling the Go scheduler: the descriptor is non-blocking,
// and the runtime's poller waits when nothing is there), when r is a pipe
// or a socket the runtime polls; else r.
func readerOf(r io.Reader) io.Reader {
	sc, ok := r.(syscall.Conn)
	if !ok {
		return r
	}
	rc, err := sc.SyscallConn()
	if err != nil || !nonBlocking(rc) {
		return r
	}
	rn := &ReadNow{rc: rc, r: r}
	rn.fn = rn.read
	return rn
}

// nonBlocking reports whether rc's descriptor is in non-blocking mode: a
// raw read or write must never block (on Linux it would hold its thread's
// P, and a stop of the world would wait for it). The pipes and sockets
// the runtime polls are; one whose os.File.Fd was called is not any more
// (nothing calls it on the connections' descriptors).
func nonBlocking(rc syscall.RawConn) bool {
	nb := false
	_ = rc.Control(func(fd uintptr) {
		fl, err := unix.FcntlInt(fd, unix.F_GETFL, 0)
		nb = err == nil && fl&unix.O_NONBLOCK != 0
	})
	return nb
}

// ReadNow is a reader of a polled descriptor that reads with raw system
// calls (see readerOf). The gateway's connections use it too. Like most
// readers it is not for concurrent use (Close and deadlines from other
// goroutines are fine): it keeps the state of the read in progress, so
// that a Read allocates nothing.
type ReadNow struct {
	rc syscall.RawConn
	r  io.Reader
	// the read in progress, for fn (rn.read, made once: a closure made
	// per Read escaped to the heap, with the variables it set)
	p   []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

// NewReadNow returns a ReadNow of r, or r itself when it has no polled
// descriptor.
func NewReadNow(r io.Reader) io.Reader { return readerOf(r) }

// Read implements io.Reader.
func (rn *ReadNow) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	rn.p, rn.n, rn.err = p, 0, nil
	err := rn.rc.Read(rn.fn)
	n, rerr := rn.n, rn.err
	rn.p, rn.err = nil, nil
	if err != nil {
		return n, err
	}
	return n, rerr
}

// read is one attempt: false waits for the poller.
func (rn *ReadNow) read(fd uintptr) bool {
	for {
		m, e := rawRead(fd, rn.p)
		switch e {
		case 0:
			rn.n = m
			if m == 0 {
				rn.err = io.EOF
			}
			return true
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false // wait for the poller
		}
		rn.err = e
		return true
	}
}
