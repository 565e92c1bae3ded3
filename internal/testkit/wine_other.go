//go:build !windows

package testkit

// UnderWine tells whether this Windows is Wine; off Windows it is false.
func UnderWine() bool { return false }
