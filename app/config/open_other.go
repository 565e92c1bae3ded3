//go:build !unix

package config

import "os"

// openNoBlock opens path for reading. Windows has no FIFOs in the file
// system (its named pipes live under \\.\pipe\), so a plain open cannot
// wait for a writer.
func openNoBlock(path string) (*os.File, error) {
	return os.Open(path)
}
