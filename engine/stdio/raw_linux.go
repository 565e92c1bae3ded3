//go:build linux

package stdio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawRead and rawWrite are read(2) and write(2) on a non-blocking
// descriptor without the scheduler's system-call bookkeeping (they never
// block, so they need none): entering a system call the runtime must
// watch wakes its monitor thread (sysmon) and may hand the thread's P to
// another, which on a relayed call cost more than the call's own work.
func rawRead(fd uintptr, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}

func rawWrite(fd uintptr, p []byte) (int, unix.Errno) {
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return int(n), e
}
