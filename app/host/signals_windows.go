//go:build windows

package host

import (
	"os"
	"syscall"
)

// stopSignals stop the host with the whole stop ladder (Windows delivers
// a console's Ctrl+C and close as these).
func stopSignals() []os.Signal { return []os.Signal{os.Interrupt, syscall.SIGTERM} }

// sigPIPE: Windows has no SIGPIPE; a write to a closed pipe fails.
var sigPIPE []os.Signal
