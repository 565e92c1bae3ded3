//go:build windows

package stdio

import "io"

// directWriter has no non-blocking pipe write on Windows: every write goes
// through the writer goroutine.
func directWriter(io.Writer) func([]byte) (int, bool) { return nil }
