//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
)

// ShimMain is the exec shim; it is implemented on Linux only, and the
// engine never runs it elsewhere ([Probe] says no sandbox).
func ShimMain(args []string) int {
	fmt.Fprintf(os.Stderr, "switchboard sandbox: the exec shim is not implemented on %s\n", runtime.GOOS)
	return 125
}
