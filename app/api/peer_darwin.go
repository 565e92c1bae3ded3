package api

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerCred reads the peer's uid with LOCAL_PEERCRED and its pid with
// LOCAL_PEERPID (0 if the kernel does not tell it).
func peerCred(nc net.Conn) (pid, uid int, err error) {
	var cred *unix.Xucred
	var cerr error
	if err := rawControl(nc, func(fd uintptr) {
		cred, cerr = unix.GetsockoptXucred(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if cerr == nil {
			pid, _ = unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID)
		}
	}); err != nil {
		return 0, -1, err
	}
	if cerr != nil {
		return 0, -1, cerr
	}
	return pid, int(cred.Uid), nil
}
