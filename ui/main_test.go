package ui

import (
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
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
	if len(os.Args) > 1 && os.Args[1] == sandbox.ShimArg { // an in-process host's sandbox shim is this binary
		os.Exit(sandbox.ShimMain(os.Args[2:]))
	}
	testkit.HelperMain(&testExe, helperEnv, helpers)
	os.Setenv("LANG", "en_US.UTF-8") // Fyne cannot parse "C" and says so
	os.Exit(m.Run())
}
