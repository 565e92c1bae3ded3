//go:build unix

package gateway

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/switchboard-mcp/switchboard/app/bridge"
)

// CanHandOff and SendFDs are the bridge's side: [bridge.CanHandOff],
// [bridge.SendFDs].
var (
	CanHandOff = bridge.CanHandOff
	SendFDs    = bridge.SendFDs
)

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
