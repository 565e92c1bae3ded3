package sandbox

import "sync/atomic"

// noSeccomp, set only by [WithoutSeccompForTest], makes [Probe] report no
// seccomp.
var noSeccomp atomic.Bool

// WithoutSeccompForTest makes [Probe] report no seccomp until t ends, so
// that a test can show what holds without the sandbox's seccomp part: the
// host's own refusal of its sandboxed servers (docs/sandbox.md, "Defence in
// depth at the host"). No shipped code calls it, and nothing outside a
// test can reach it (no environment variable, no flag).
func WithoutSeccompForTest(t interface{ Cleanup(func()) }) {
	noSeccomp.Store(true)
	t.Cleanup(func() { noSeccomp.Store(false) })
}
