//go:build !windows

package activity

import "testing"

func tempDir(t testing.TB) string { return t.TempDir() }
