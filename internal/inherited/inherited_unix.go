//go:build unix

package inherited

import (
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// fdDir lists this process's descriptors: /proc/self/fd on Linux, the
// fdesc file system elsewhere (macOS, the BSDs).
var fdDir = func() string {
	if runtime.GOOS == "linux" {
		return "/proc/self/fd"
	}
	return "/dev/fd"
}()

// seal marks every descriptor above 2 close-on-exec and returns those that
// were not.
func seal() ([]int, error) {
	fds, err := open()
	var inherited []int
	for _, fd := range fds {
		flags, ferr := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
		if ferr != nil || flags&unix.FD_CLOEXEC != 0 {
			continue
		}
		if _, ferr := unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC); ferr == nil {
			inherited = append(inherited, fd)
		} else if err == nil {
			err = ferr
		}
	}
	return inherited, err
}

// open returns the open descriptors above 2: those fdDir lists or, when it
// cannot be read (no /proc in a chroot), every number below the limit on
// open files that fcntl says is open.
func open() ([]int, error) {
	if fds, err := listed(); err == nil {
		return fds, nil
	}
	var lim unix.Rlimit
	max := uint64(1 << 16)
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err == nil && lim.Cur > 0 && uint64(lim.Cur) < max {
		max = uint64(lim.Cur)
	}
	var fds []int
	for fd := 3; uint64(fd) < max; fd++ {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			fds = append(fds, fd)
		}
	}
	return fds, nil
}

// listed reads fdDir, without the descriptor that reads it.
func listed() ([]int, error) {
	d, err := os.Open(fdDir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	self := -1
	if rc, err := d.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { self = int(fd) })
	}
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, n := range names {
		fd, ok := atoi(n)
		if ok && fd > 2 && fd != self {
			fds = append(fds, fd)
		}
	}
	return fds, nil
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

func closeFD(fd int) { _ = unix.Close(fd) }
