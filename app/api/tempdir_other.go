//go:build !darwin && !windows

package api

// darwinUserTempDir exists only on macOS.
func darwinUserTempDir() (string, error) { return "", errNotDarwin }
