//go:build !unix

package bridge

import (
	"errors"
	"net"
	"os"
)

// CanHandOff is false here: the bridge relays its stdin and stdout.
func CanHandOff(in, out *os.File) bool { return false }

// SendFDs is not available here.
func SendFDs(nc net.Conn, in, out *os.File) error {
	return errors.New("handing descriptors over is not available on this system")
}
