//go:build unix

package bridge

import (
	"errors"
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// CanHandOff reports whether a bridge may hand its stdin and stdout to the
// host instead of relaying them: both must be pipes or sockets (never a
// terminal, whose file description a shell shares: the host puts the
// descriptors it gets in non-blocking mode).
func CanHandOff(in, out *os.File) bool {
	return streamFile(in) && streamFile(out)
}

func streamFile(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	m := fi.Mode()
	return m&os.ModeNamedPipe != 0 || m&os.ModeSocket != 0
}

// SendFDs hands a bridge's stdin and stdout to the gateway (SCM_RIGHTS on
// the socket), after a Welcome that accepted them.
func SendFDs(nc net.Conn, in, out *os.File) error {
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return errors.New("the gateway connection is not a Unix socket")
	}
	var fds []int
	for _, f := range []*os.File{in, out} {
		rc, err := f.SyscallConn()
		if err != nil {
			return err
		}
		if err := rc.Control(func(fd uintptr) { fds = append(fds, int(fd)) }); err != nil {
			return err
		}
	}
	_, _, err := uc.WriteMsgUnix([]byte{0}, unix.UnixRights(fds...), nil)
	return err
}
