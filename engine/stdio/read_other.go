//go:build !unix

package stdio

import "io"

// readerOf is r where reads go through the runtime's own file reads.
func readerOf(r io.Reader) io.Reader { return r }

// NewReadNow returns r (raw reads are Unix-only).
func NewReadNow(r io.Reader) io.Reader { return r }
