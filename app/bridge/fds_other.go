//go:build !unix

package bridge

import (
	"bufio"
	"errors"
	"net"
	"os"
)

// CanHandOff is false here: the bridge relays its stdin and stdout.
func CanHandOff(in, out *os.File) bool { return false }

// HandshakeFDs is not available here.
func HandshakeFDs(nc net.Conn, h Hello, in, out *os.File) (*bufio.Reader, *Welcome, error) {
	return nil, nil, errors.New("handing descriptors over is not available on this system")
}

// SendFDs is not available here.
func SendFDs(nc net.Conn, in, out *os.File) error {
	return errors.New("handing descriptors over is not available on this system")
}
