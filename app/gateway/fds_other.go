//go:build !unix

package gateway

import (
	"errors"
	"net"
	"os"
)

func receiveFDs(nc net.Conn) (in, out *os.File, err error) {
	return nil, nil, errors.New("handing descriptors over is not available on this system")
}

func filesOf(fds []int) (in, out *os.File, err error) {
	return nil, nil, errors.New("handing descriptors over is not available on this system")
}

func closeFDs(fds []int) {}

// rightsReader is the connection itself here.
type rightsReader struct{ net.Conn }

func newRightsReader(nc net.Conn) *rightsReader { return &rightsReader{nc} }

func (r *rightsReader) take() []int { return nil }

// handOffHere: this system cannot take a bridge's descriptors.
const handOffHere = false
