//go:build linux

package stdio

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeBytes is the capacity asked for the pipes a relayed answer crosses
// (Linux's default is 64 KiB; an unprivileged process may ask up to
// /proc/sys/fs/pipe-max-size, 1 MiB by default): a 1 MiB result then
// crosses in one or two reads instead of sixteen, each a wake-up of the
// reader.
const pipeBytes = 1 << 20

// GrowPipe asks for a larger capacity of the pipe under f, if it is one;
// best effort (a refusal leaves it as it was).
func GrowPipe(f any) {
	sc, ok := f.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err == nil && n < pipeBytes {
			_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeBytes)
		}
	})
}
