//go:build unix

package bridge

import (
	"bufio"
	"errors"
	"fmt"
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
	return sendWithFDs(nc, []byte{0}, in, out)
}

// HandshakeFDs is [Handshake] with the bridge's stdin and stdout sent with
// the preamble (h.FDs and h.Inline set). If the Welcome has FDs but not
// Inline (a host that does not take them with the preamble), it sends them
// again as [SendFDs] does.
func HandshakeFDs(nc net.Conn, h Hello, in, out *os.File) (*bufio.Reader, *Welcome, error) {
	h.FDs, h.Inline = true, true
	if err := sendWithFDs(nc, helloBytes(h), in, out); err != nil {
		return nil, nil, fmt.Errorf("sending the bridge's preamble to the gateway: %w", err)
	}
	br, w, err := readWelcome(nc)
	if err == nil && w.FDs && !w.Inline {
		if err := SendFDs(nc, in, out); err != nil {
			return nil, nil, fmt.Errorf("handing stdin and stdout to the host: %w", err)
		}
	}
	return br, w, err
}

// sendWithFDs writes b with in's and out's descriptors attached.
func sendWithFDs(nc net.Conn, b []byte, in, out *os.File) error {
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
	n, _, err := uc.WriteMsgUnix(b, unix.UnixRights(fds...), nil)
	if err == nil && n < len(b) {
		_, err = uc.Write(b[n:])
	}
	return err
}
