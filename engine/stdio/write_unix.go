//go:build unix

package stdio

import (
	"errors"
	"io"
	"os"

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
					if !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR) {
						werr = err
					}
					if errors.Is(err, unix.EINTR) {
						continue
					}
					break
				}
			}
			return true // never wait here: the writer goroutine does
		})
		return n, err == nil && werr == nil
	}
}
