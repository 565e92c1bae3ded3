//go:build windows

package activity

import (
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// tempDir is t.TempDir that Wine can clean up: Go 1.26's os.RemoveAll
// deletes through a call Wine 8 does not implement ("Invalid function"),
// while os.Remove (DeleteFile) works.
func tempDir(t testing.TB) string { return testkit.TempDir(t, "switchboard-activitytest-") }
