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

// receiveFDs takes a bridge's stdin and stdout off the socket (one byte
// with SCM_RIGHTS, sent after the Welcome), in non-blocking mode so that
// the runtime's poller serves them.
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
	fds := parseRights(oob[:oobn])
	if n != 1 {
		closeFDs(fds)
		return nil, nil, fmt.Errorf("the bridge sent %d bytes with its descriptors, not one", n)
	}
	return filesOf(fds)
}

func parseRights(oob []byte) []int {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		_ = unix.Close(fd)
	}
}

// filesOf makes the bridge's stdin and stdout of the two descriptors it
// sent, in non-blocking mode so that the runtime's poller serves them; it
// closes them on error.
func filesOf(fds []int) (in, out *os.File, err error) {
	if len(fds) != 2 {
		closeFDs(fds)
		return nil, nil, fmt.Errorf("the bridge sent %d descriptors, not its stdin and stdout", len(fds))
	}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
		if err := syscall.SetNonblock(fd, true); err != nil {
			closeFDs(fds)
			return nil, nil, err
		}
	}
	return os.NewFile(uintptr(fds[0]), "bridge stdin"), os.NewFile(uintptr(fds[1]), "bridge stdout"), nil
}

// rightsReader reads a connection, its first read with room for the
// descriptors that a bridge sends with its preamble ("inline").
type rightsReader struct {
	nc   net.Conn
	read bool
	fds  []int
}

func newRightsReader(nc net.Conn) *rightsReader { return &rightsReader{nc: nc} }

func (r *rightsReader) Read(b []byte) (int, error) {
	uc, ok := r.nc.(*net.UnixConn)
	if r.read || !ok {
		return r.nc.Read(b)
	}
	r.read = true
	oob := make([]byte, unix.CmsgSpace(4*4))
	n, oobn, _, _, err := uc.ReadMsgUnix(b, oob)
	r.fds = parseRights(oob[:oobn])
	return n, err
}

// take returns the descriptors of the first read (nil if none) and
// forgets them: the caller closes them or makes files of them.
func (r *rightsReader) take() []int {
	fds := r.fds
	r.fds = nil
	return fds
}

// handOffHere: this system can take a bridge's descriptors.
const handOffHere = true
