//go:build linux

package sandbox

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompArch is the AUDIT_ARCH of this build, or 0 where the filter is
// not written (the net-none filter then is not available).
func seccompArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// netNoneFilter is the seccomp program of "net": "none": socket() of any
// family but AF_UNIX fails with EACCES (as Landlock's denials do);
// io_uring_setup fails with ENOSYS (its socket operation would bypass
// the check; programs fall back to plain syscalls); a syscall of another
// ABI (x32, or a foreign arch) fails with EPERM. Everything else is
// allowed: this filter is about the network only, Landlock does the rest.
func netNoneFilter(arch uint32) []unix.SockFilter {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	arg0 := uint32(16) // seccomp_data.args[0], its low 32 bits (little-endian)
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	return []unix.SockFilter{
		/* 0 */ {Code: ld, K: 4}, // arch
		/* 1 */ {Code: jeq, Jt: 1, Jf: 0, K: arch},
		/* 2 */ {Code: ret, K: errno(unix.EPERM)},
		/* 3 */ {Code: ld, K: 0}, // nr
		/* 4 */ {Code: jge, Jt: 6, Jf: 0, K: 0x40000000}, // x32
		/* 5 */ {Code: jeq, Jt: 2, Jf: 0, K: unix.SYS_SOCKET},
		/* 6 */ {Code: jeq, Jt: 5, Jf: 0, K: unix.SYS_IO_URING_SETUP},
		/* 7 */ {Code: ret, K: unix.SECCOMP_RET_ALLOW},
		/* 8 */ {Code: ld, K: arg0}, // domain
		/* 9 */ {Code: jeq, Jt: 0, Jf: 1, K: unix.AF_UNIX},
		/* 10 */ {Code: ret, K: unix.SECCOMP_RET_ALLOW},
		/* 11 */ {Code: ret, K: errno(unix.EACCES)},
		/* 12 */ {Code: ret, K: errno(unix.ENOSYS)},
	}
}

// seccompNetNone installs the net-none filter on the calling thread (what
// it execve's keeps it). The caller has set no_new_privs.
func seccompNetNone() error {
	f := netNoneFilter(seccompArch())
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0)
}
