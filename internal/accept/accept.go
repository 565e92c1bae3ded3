// Package accept is the accept loop of Switchboard's local endpoints (the
// host's API and the gateway's socket): one place for how a listener's
// failures are told apart and retried.
package accept

import (
	"errors"
	"log/slog"
	"net"
	"time"
)

// Loop accepts connections on l and hands each to serve, until l is closed
// or serve returns an error (which Loop returns; serve then owns the
// connection it was given, and closes it). A failure that is not the
// listener's closing, such as running out of descriptors, is logged and
// retried after a pause that doubles from 5 ms up to 1 s and starts over
// after the next success, as net/http's server does; closed reports
// whether its owner is shutting down, so that no failure then is retried
// or logged. Loop returns net.ErrClosed (wrapped as the listener gave it)
// once l is closed.
func Loop(l net.Listener, log *slog.Logger, closed func() bool, serve func(net.Conn) error) error {
	var delay time.Duration
	for {
		nc, err := l.Accept()
		if err != nil {
			if closed() || errors.Is(err, net.ErrClosed) {
				return err
			}
			delay = min(max(2*delay, 5*time.Millisecond), time.Second)
			log.Warn("accept failed; retrying", "error", err, "in", delay)
			time.Sleep(delay)
			continue
		}
		delay = 0
		if err := serve(nc); err != nil {
			return err
		}
	}
}
