//go:build linux

package sandbox

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// seccompArch is the AUDIT_ARCH of this build, or 0 where the filter is
// not written (no seccomp part is then available).
func seccompArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	}
	return 0
}

// seccompFilter is the seccomp program of every sandboxed server, the
// same for both shims (the host writes it into the policy, the shims
// only install it: one generator, so the Go and the C shim cannot drift):
//
//   - socket(AF_UNIX, ...) fails with EACCES under every network mode:
//     Landlock does not govern connect(2) to a named Unix socket, and
//     every named socket of the user (the host's API and gateway, the
//     D-Bus session bus and so the keyring, ssh-agent, X11, Wayland,
//     docker) would be reachable. socketpair(2), which node and python
//     use for their children's pipes, is another syscall and stays
//     allowed: a pair connects to nothing outside.
//   - With net none, socket() of every other family fails too (UDP, raw,
//     netlink: what Landlock before ABI 10 does not filter).
//   - io_uring_setup fails with ENOSYS (its socket and connect operations
//     would bypass both checks; programs fall back to plain syscalls).
//   - keyctl, add_key and request_key fail with EACCES: the kernel's key
//     rings of the user's session are not the server's.
//   - listen(2) fails with EPERM: no preset lets a server listen, and
//     Landlock does not close listen on a socket bound to an ephemeral
//     port (or never bound).
//   - chmod, chown and the extended attributes by path (chmod, fchmodat,
//     fchmodat2, chown, lchown, fchownat, fchown, setxattr, lsetxattr,
//     removexattr, lremovexattr) fail with EPERM: Landlock governs none
//     of them, and with them a server could open the user's files to other
//     local users (chmod 644 ~/.ssh/id_rsa) or change read-only ones.
//     fchmod (on a descriptor the server opened) stays allowed unless the
//     mode gives group or others write or sets a special bit: libuv's
//     fs.copyFile copies the mode with it.
//   - A syscall of another ABI (x32, a foreign arch) fails with EPERM.
//
// Everything else is allowed: Landlock does the files, TCP and scoping.
func seccompFilter(arch uint32, netNone bool) []unix.SockFilter {
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
	)
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	// Targets, resolved to forward offsets below.
	const (
		lAllow = -1 - iota
		lSocket
		lEACCES
		lENOSYS
		lEPERM
		lFchmod
	)
	type ins struct {
		code   uint16
		jt, jf int // a label, or 0: the next instruction
		k      uint32
	}
	prog := []ins{
		{code: ld, k: 4}, // arch
		{code: jeq, k: arch, jf: lEPERM},
		{code: ld, k: 0}, // nr
		{code: jge, k: 0x40000000, jt: lEPERM},
		{code: jeq, k: unix.SYS_SOCKET, jt: lSocket},
		{code: jeq, k: unix.SYS_IO_URING_SETUP, jt: lENOSYS},
		{code: jeq, k: unix.SYS_KEYCTL, jt: lEACCES},
		{code: jeq, k: unix.SYS_ADD_KEY, jt: lEACCES},
		{code: jeq, k: unix.SYS_REQUEST_KEY, jt: lEACCES},
		{code: jeq, k: unix.SYS_LISTEN, jt: lEPERM},
	}
	for _, nr := range metadataSyscalls() {
		prog = append(prog, ins{code: jeq, k: nr, jt: lEPERM})
	}
	prog = append(prog,
		ins{code: jeq, k: unix.SYS_FCHMOD, jt: lFchmod},
		ins{code: ret, k: unix.SECCOMP_RET_ALLOW}, // lAllow
	)
	at := map[int]int{lAllow: len(prog) - 1, lFchmod: len(prog)}
	prog = append(prog,
		ins{code: ld, k: 24}, // lFchmod: seccomp_data.args[1], its low 32 bits: the mode
		ins{code: jset, k: 0o7022, jt: lEPERM},
		ins{code: ret, k: unix.SECCOMP_RET_ALLOW},
	)
	at[lSocket] = len(prog)
	prog = append(prog,
		ins{code: ld, k: 16}, // lSocket: seccomp_data.args[0], its low 32 bits: the domain
		ins{code: jeq, k: unix.AF_UNIX, jt: lEACCES},
	)
	if netNone {
		prog = append(prog, ins{code: ret, k: errno(unix.EACCES)})
	} else {
		prog = append(prog, ins{code: ret, k: unix.SECCOMP_RET_ALLOW})
	}
	at[lEACCES] = len(prog)
	prog = append(prog, ins{code: ret, k: errno(unix.EACCES)})
	at[lENOSYS] = len(prog)
	prog = append(prog, ins{code: ret, k: errno(unix.ENOSYS)})
	at[lEPERM] = len(prog)
	prog = append(prog, ins{code: ret, k: errno(unix.EPERM)})
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		off := func(l int) uint8 {
			if l == 0 {
				return 0
			}
			return uint8(at[l] - i - 1)
		}
		out[i] = unix.SockFilter{Code: in.code, Jt: off(in.jt), Jf: off(in.jf), K: in.k}
	}
	return out
}

// metadataSyscalls are the syscalls that change a file's mode, owner or
// extended attributes by path (and fchown): this architecture's numbers.
func metadataSyscalls() []uint32 {
	nrs := []uint32{unix.SYS_FCHMODAT, unix.SYS_FCHMODAT2, unix.SYS_FCHOWNAT, unix.SYS_FCHOWN,
		unix.SYS_SETXATTR, unix.SYS_LSETXATTR, unix.SYS_REMOVEXATTR, unix.SYS_LREMOVEXATTR}
	if runtime.GOARCH == "amd64" {
		nrs = append(nrs, 90, 92, 94) // chmod, chown, lchown: not on arm64
	}
	return nrs
}

// seccompLine is the policy's "bpf" item: the program in hex, 8 bytes an
// instruction (code, jt, jf, k in the machine's byte order: the shim runs
// on the same machine as the host that wrote it).
func seccompLine(netNone bool) string {
	f := seccompFilter(seccompArch(), netNone)
	b := make([]byte, 8*len(f))
	for i, in := range f {
		binary.NativeEndian.PutUint16(b[8*i:], in.Code)
		b[8*i+2], b[8*i+3] = in.Jt, in.Jf
		binary.NativeEndian.PutUint32(b[8*i+4:], in.K)
	}
	return hex.EncodeToString(b)
}

// decodeSeccomp reads seccompLine's hex back.
func decodeSeccomp(h string) ([]unix.SockFilter, error) {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) == 0 || len(b)%8 != 0 || len(b)/8 > 4096 {
		return nil, fmt.Errorf("the seccomp program is not whole instructions in hex")
	}
	f := make([]unix.SockFilter, len(b)/8)
	for i := range f {
		f[i] = unix.SockFilter{Code: binary.NativeEndian.Uint16(b[8*i:]), Jt: b[8*i+2], Jf: b[8*i+3], K: binary.NativeEndian.Uint32(b[8*i+4:])}
	}
	return f, nil
}

// installSeccomp installs f on the calling thread (what it execve's keeps
// it). The caller has set no_new_privs.
func installSeccomp(f []unix.SockFilter) error {
	prog := unix.SockFprog{Len: uint16(len(f)), Filter: &f[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0)
}
