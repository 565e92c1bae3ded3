//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/switchboard-mcp/switchboard/internal/testhooks"
	"golang.org/x/sys/unix"
)

// Probe says what this machine can enforce: Landlock's ABI (asked of the
// kernel), and whether seccomp can block the socket families Landlock
// does not filter.
func Probe() Support {
	abi, why := landlockABI()
	if v, ok := testhooks.LookupEnv(ABIEnv); ok { // tests only: the shipped program ignores it
		if n, err := strconv.Atoi(v); err == nil && n < abi {
			abi, why = n, fmt.Sprintf("Landlock ABI forced to %d by %s", n, ABIEnv)
		}
	}
	if abi <= 0 {
		return Support{Detail: why}
	}
	s := Support{Mechanism: "landlock", ABI: abi}
	if _, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0); err == nil && seccompArch() != 0 && !noSeccomp.Load() {
		s.NetNone = "seccomp"
	} else {
		s.Detail = "no seccomp: net none cannot block UDP"
	}
	return s
}

// landlockABI asks the kernel for Landlock's ABI version.
func landlockABI() (int, string) {
	v, _, e := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	switch {
	case e == 0:
		return int(v), ""
	case errors.Is(e, unix.ENOSYS):
		return 0, "Landlock is not built into this kernel (ENOSYS)"
	case errors.Is(e, unix.EOPNOTSUPP):
		return 0, "Landlock is built in but not enabled: add \"landlock\" to the lsm= boot parameter"
	default:
		return 0, "Landlock ABI query failed: " + e.Error()
	}
}
