//go:build linux

package inherited

import (
	"math"

	"golang.org/x/sys/unix"
)

// MarkAll marks every descriptor above 2 close-on-exec, remembering
// nothing: for a program that only execs or starts others (the small
// bridge). One close_range(2) call (Linux 5.11); before that kernel, as
// [Seal] does.
func MarkAll() error {
	if err := unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return nil
	}
	_, err := seal()
	return err
}
