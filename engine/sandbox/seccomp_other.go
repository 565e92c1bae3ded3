//go:build !linux

package sandbox

// seccompLine is Linux's; elsewhere the policy carries no seccomp program.
func seccompLine(bool) string { return "" }
