//go:build windows

package inherited

// On Windows a child inherits only the handles that os/exec lists for it
// (its stdin, stdout, stderr and ExtraFiles, through
// PROC_THREAD_ATTRIBUTE_HANDLE_LIST), whatever this process inherited:
// there is nothing to mark or close.

func seal() ([]int, error) { return nil, nil }

func closeFD(int) {}

// MarkAll does nothing on Windows (see seal).
func MarkAll() error { return nil }
