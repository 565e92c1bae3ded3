//go:build !unix

package bridge

import "errors"

// canReplace: Windows cannot run another program in a process's place;
// the bridge runs switchboard as a child instead.
const canReplace = false

func replace(exe string, argv []string) error {
	return errors.New("not available on this system")
}
