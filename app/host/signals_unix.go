//go:build unix

package host

import (
	"os"
	"os/signal"
	"syscall"
)

// stopSignals stop the host with the whole stop ladder: SIGHUP too, which
// a terminal that closes sends to `switchboard serve &` (by default it
// would end the host at once, leaving the servers' grandchildren), unless
// the host was started with SIGHUP ignored (nohup): then it stays so.
func stopSignals() []os.Signal {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	return sigs
}

// sigPIPE is caught, so that a write to a closed stdout or stderr fails
// with EPIPE instead of killing the host.
var sigPIPE = []os.Signal{syscall.SIGPIPE}
