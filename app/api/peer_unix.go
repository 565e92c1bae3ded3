//go:build unix

package api

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// checkPeer reads the credentials of a host's peer and admits only the
// host's own user: the second barrier after the 0700 directory. uid is -1
// where the OS does not tell it.
func checkPeer(nc net.Conn) (pid, uid int, err error) {
	pid, uid, err = peerCred(nc)
	if err != nil {
		return 0, -1, fmt.Errorf("cannot read the peer's credentials: %w", err)
	}
	if own := os.Geteuid(); uid != own {
		return pid, uid, Errorf(CodeForbidden, "connection refused: the peer (pid %d) runs as uid %d, but this Switchboard host admits only its own user (uid %d): run the client as that user", pid, uid, own)
	}
	return pid, uid, nil
}

// checkHost is the client's check of the process at the other end: it must
// run as the client's own user, so that nothing that took the socket's name
// first receives the client's requests.
func checkHost(nc net.Conn, socket string) error {
	pid, uid, err := peerCred(nc)
	if err != nil {
		return fmt.Errorf("cannot read the credentials of the process on socket %s: %w", socket, err)
	}
	if own := os.Geteuid(); uid != own {
		return fmt.Errorf("the process on socket %s (pid %d) runs as uid %d, not as you (uid %d): it is not your Switchboard host; remove the socket and start one with 'switchboard serve'", socket, pid, uid, own)
	}
	return nil
}

// rawControl runs f with the connection's file descriptor.
func rawControl(nc net.Conn, f func(fd uintptr)) error {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return fmt.Errorf("a %T has no file descriptor", nc)
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	return rc.Control(f)
}
