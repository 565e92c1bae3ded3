//go:build unix && !linux

package stdio

import (
	"errors"

	"golang.org/x/sys/unix"
)

// rawRead and rawWrite are plain read(2) and write(2) here (macOS and the
// BSDs make system calls through libc).
func rawRead(fd uintptr, p []byte) (int, unix.Errno) {
	n, err := unix.Read(int(fd), p)
	return max(n, 0), errnoOf(err)
}

func rawWrite(fd uintptr, p []byte) (int, unix.Errno) {
	n, err := unix.Write(int(fd), p)
	return max(n, 0), errnoOf(err)
}

func errnoOf(err error) unix.Errno {
	var e unix.Errno
	if err == nil || !errors.As(err, &e) {
		return 0
	}
	return e
}
