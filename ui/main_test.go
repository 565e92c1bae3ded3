package ui

import (
	"os"
	"testing"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// helperEnv names the role of this test binary re-executed as a helper
// process (the real app, in the cgo build).
const helperEnv = "SWITCHBOARD_UI_TEST_HELPER"

// helpers are the roles; a build adds its own in an init func.
var helpers = map[string]func() int{}

var testExe string

func TestMain(m *testing.M) {
	testkit.HelperMain(&testExe, helperEnv, helpers)
	os.Setenv("LANG", "en_US.UTF-8") // Fyne cannot parse "C" and says so
	os.Exit(m.Run())
}
