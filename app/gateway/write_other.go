//go:build !unix

package gateway

import "io"

// directWriter is nil where a socket has no non-blocking write: every line
// goes through the writer goroutine.
func directWriter(io.Writer) func([]byte) (int, bool) { return nil }
