// Package inherited keeps the descriptors a process inherited from the
// one that started it (an AI app that runs `switchboard bridge` with
// extra descriptors open, a terminal, a service manager) from passing on
// to the programs it starts: the host, and through the host every MCP
// server. Go opens its own descriptors close-on-exec, but one that came
// through exec without the flag keeps it not set, and passes through
// every later exec. [Seal], first thing in a process, marks every
// descriptor above 2 close-on-exec; [Close], at a host's start, closes
// those that were inherited, so that a long-lived host does not hold, say,
// the write end of a pipe whose reader waits for its end.
//
// On Windows there is nothing to do: Go's os/exec lists the handles a
// child inherits (PROC_THREAD_ATTRIBUTE_HANDLE_LIST: its stdin, stdout,
// stderr and ExtraFiles), so no other handle passes even where the
// parent's is inheritable.
package inherited

import "sync"

var (
	mu   sync.Mutex
	held []int // inherited descriptors, marked close-on-exec by Seal
)

// Seal marks every descriptor above 2 of this process close-on-exec and
// remembers which were not (the inherited ones) for [Close]. It returns
// those. Call it first thing in main, before anything opens a descriptor
// or starts a program.
func Seal() ([]int, error) {
	fds, err := seal()
	mu.Lock()
	held = append(held, fds...)
	mu.Unlock()
	return fds, err
}

// Close closes the descriptors that [Seal] found inherited (a host calls
// it at its start), and returns them. Nothing else in the process uses
// them: they were open before main began.
func Close() []int {
	mu.Lock()
	fds := held
	held = nil
	mu.Unlock()
	for _, fd := range fds {
		closeFD(fd)
	}
	return fds
}
