//go:build !unix

package gateway

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

func receiveFDs(nc net.Conn) (in, out *os.File, err error) {
	return nil, nil, errors.New("handing descriptors over is not available on this system")
}

// handOffHere: this system cannot take a bridge's descriptors.
const handOffHere = false
