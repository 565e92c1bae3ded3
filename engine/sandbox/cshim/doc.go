// Package cshim is the sandbox's exec shim in C, run as a constructor
// before the Go runtime starts: a program that links it (blank import:
// the switchboard binary) and is run as `PROGRAM __sandbox-exec PATH
// ARGV0 ARGS...` with the policy in SWITCHBOARD_SANDBOX_POLICY confines
// itself and execve's PATH before any Go package is initialised, so the
// shim costs what an execve costs, not the tray app's start (fyne,
// SQLite, ...: tens of ms). It enforces what sandbox.ShimMain enforces,
// from the same policy lines (sandbox.EncodePolicy); where it declines
// (no policy, a policy of another version, too few arguments) the Go
// shim runs and says what is wrong. Without cgo (or off Linux) the
// package is empty and the Go shim does the work. See docs/sandbox.md.
package cshim
