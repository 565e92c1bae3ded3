//go:build unix

package gateway

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

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

// receiveFDs takes a bridge's stdin and stdout off the socket, in
// non-blocking mode so that the runtime's poller serves them.
func receiveFDs(nc net.Conn) (in, out *os.File, err error) {
	uc, ok := nc.(*net.UnixConn)
	if !ok {
		return nil, nil, errors.New("not a Unix socket")
	}
	buf := make([]byte, 1)
	oob := make([]byte, unix.CmsgSpace(4*4))
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return nil, nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err == nil {
			fds = append(fds, got...)
		}
	}
	if n != 1 || len(fds) != 2 {
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
		return nil, nil, fmt.Errorf("the bridge sent %d descriptors, not its stdin and stdout", len(fds))
	}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			_ = unix.Close(fds[0])
			_ = unix.Close(fds[1])
			return nil, nil, err
		}
	}
	return os.NewFile(uintptr(fds[0]), "bridge stdin"), os.NewFile(uintptr(fds[1]), "bridge stdout"), nil
}

// handOffHere: this system can take a bridge's descriptors.
const handOffHere = true
