package api

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerCred reads the peer's pid and uid with SO_PEERCRED: the credentials
// the peer had when it connected, kept by the kernel.
func peerCred(nc net.Conn) (pid, uid int, err error) {
	var cred *unix.Ucred
	var cerr error
	if err := rawControl(nc, func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return 0, -1, err
	}
	if cerr != nil {
		return 0, -1, cerr
	}
	return int(cred.Pid), int(cred.Uid), nil
}
