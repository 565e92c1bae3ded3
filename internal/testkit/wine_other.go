//go:build !windows

package testkit

import "testing"

// UnderWine tells whether this Windows is Wine; off Windows it is false.
func UnderWine() bool { return false }

// TempDir is t.TempDir off Windows (on Windows, one Wine can clean up).
func TempDir(t testing.TB, prefix string) string { return t.TempDir() }
