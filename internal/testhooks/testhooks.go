// Package testhooks gates the switches that weaken Switchboard's
// enforcement for tests (SWITCHBOARD_LANDLOCK_ABI, which makes the
// sandbox unavailable): they are read only in a test binary (go
// test's, [testing.Testing]) or in a program built with the tag
// switchboard_testhooks (a benchmark's host). The shipped program never
// reads them, so no environment (an AI app's bridge's, which a host
// started on demand inherits) can turn the sandbox off. docs/environment.md
// lists every SWITCHBOARD_* variable and who may set it.
package testhooks

import (
	"os"
	"testing"
)

// Tag is the build tag that enables the switches outside test binaries.
const Tag = "switchboard_testhooks"

// Enabled reports whether this program honours the test switches: a test
// binary, or a build with [Tag].
func Enabled() bool { return tagged || testing.Testing() }

// LookupEnv is os.LookupEnv for a test switch: unset, whatever the
// environment says, in a program that does not honour them.
func LookupEnv(name string) (string, bool) {
	if !Enabled() {
		return "", false
	}
	return os.LookupEnv(name)
}

// Getenv is os.Getenv for a test switch ("" where they are not honoured).
func Getenv(name string) string {
	v, _ := LookupEnv(name)
	return v
}
