//go:build unix

package config

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading with O_NONBLOCK: opening a FIFO that
// no program writes returns at once (and readFile then refuses it) rather
// than waiting for a writer. On a regular file the flag changes nothing.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
