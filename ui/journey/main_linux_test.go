//go:build linux && cgo && !ci

package journey

import (
	"flag"
	"fmt"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"os"
	"os/exec"
	"testing"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// The journeys share one Fyne app on the real (GLFW) driver, which must
// run on the main goroutine: TestMain starts Xvfb, runs the tests on
// another goroutine and the driver on its own, and quits the driver when
// the tests end. Without Xvfb or xdotool, missing says why and every
// journey skips (or fails under CI=true: testkit.SkipOrFail).
var (
	missing string
	theApp  fyne.App
)

// screen is the virtual screen's size; the window (1120x720) fits.
const screen = "1280x900x24"

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ShimArg { // an in-process host's sandbox shim is this binary
		os.Exit(sandbox.ShimMain(os.Args[2:]))
	}
	for _, p := range []struct{ prog, pkg string }{{"Xvfb", "xvfb"}, {"xdotool", "xdotool"}} {
		if _, err := exec.LookPath(p.prog); err != nil {
			missing = fmt.Sprintf("%s is not installed (apt-get install %s): the journeys need it", p.prog, p.pkg)
		}
	}
	flag.Parse()
	if missing != "" || testing.Short() {
		os.Exit(m.Run())
	}
	display, stop, err := testkit.StartXvfb(screen)
	if err != nil {
		fmt.Fprintln(os.Stderr, "journey:", err)
		os.Exit(1)
	}
	os.Setenv("DISPLAY", display)
	os.Setenv("MESA_SHADER_CACHE_DISABLE", "true") // the journeys change XDG_CACHE_HOME
	os.Setenv("FYNE_SCALE", "1")                   // one Fyne unit is one pixel: positions are xdotool's
	// The catalog's servers run through a stand-in npx (npxShim) that
	// runs the installed packages, which their sandbox would not let it
	// read: no Landlock here, so the catalog writes "sandboxRequired":
	// false and the host runs them unconfined (the sandbox's own tests are
	// engine/sandbox's and app/host's).
	os.Setenv("SWITCHBOARD_LANDLOCK_ABI", "0")
	secrets.PinSessionBus() // no dbus-launch daemon left behind by Fyne
	theApp = fyneapp.NewWithID("io.github.switchboard-mcp.journey")
	// A window that is never shown keeps the driver running between the
	// journeys, each of which closes its own (as the app's keeper does).
	keeper := theApp.NewWindow("journey keeper")
	code := 1
	go func() {
		defer func() { fyne.Do(theApp.Quit) }()
		code = m.Run()
	}()
	theApp.Run()
	keeper.Close()
	stop()
	os.Exit(code)
}

// need skips the journey (fails it under CI=true) when the screen cannot
// be driven here.
func need(t *testing.T) {
	t.Helper()
	testkit.SkipShort(t, "a journey (Xvfb, xdotool, the whole app)")
	if missing != "" {
		testkit.SkipOrFail(t, "%s", missing)
	}
}
