//go:build linux

package bridge_test

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const cmdPkg = "github.com/switchboard-mcp/switchboard/app/bridge/cmd/switchboard-bridge"

// heavy are what switchboard-bridge must never link: the UI (Fyne, GL,
// GLFW, X11, the tray), cgo, and the host's code (the go-sdk, the
// gateway's server, the engine, the keyring, D-Bus, the service manager).
// Any of them costs milliseconds of start on every connect of an AI app.
var heavy = []string{
	"fyne.io/", "github.com/go-gl/", "glfw", "x11", "X11", "github.com/fyne-io/", "systray",
	"runtime/cgo",
	"github.com/modelcontextprotocol/go-sdk", "github.com/segmentio/", "github.com/google/jsonschema-go",
	"github.com/godbus/", "github.com/zalando/go-keyring", "github.com/kardianos/service",
	"github.com/fsnotify/", "gopkg.in/natefinch/lumberjack",
	"github.com/switchboard-mcp/switchboard/ui",
	"github.com/switchboard-mcp/switchboard/engine",
	"github.com/switchboard-mcp/switchboard/secrets",
	"github.com/switchboard-mcp/switchboard/app/host",
	"github.com/switchboard-mcp/switchboard/app/gateway",
	"github.com/switchboard-mcp/switchboard/app/client",
	"github.com/switchboard-mcp/switchboard/app/cli",
	"github.com/switchboard-mcp/switchboard/app/config",
	"github.com/switchboard-mcp/switchboard/app/service",
	// The token counter's vocabulary (about 7 MB): the host counts, the
	// bridge never does.
	"github.com/tiktoken-go/", "github.com/dlclark/regexp2", "github.com/switchboard-mcp/switchboard/app/tokens",
}

func goCmd(t *testing.T) string {
	t.Helper()
	// go test puts its own GOROOT/bin first in the test's PATH.
	g, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command: %v", err)
	}
	return g
}

// TestDeps: switchboard-bridge, built as the packages build it
// (CGO_ENABLED=0) for each OS it ships on, links none of the heavy
// packages; `switchboard bridge`'s own package (this one) neither.
func TestDeps(t *testing.T) {
	for _, goos := range []string{"linux", "windows", "darwin"} {
		for _, pkg := range []string{cmdPkg, "github.com/switchboard-mcp/switchboard/app/bridge"} {
			cmd := exec.Command(goCmd(t), "list", "-deps", pkg)
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("go list -deps %s (GOOS=%s): %v\n%s", pkg, goos, err, out)
			}
			deps := strings.Fields(string(out))
			if len(deps) < 20 || !strings.Contains(string(out), "github.com/switchboard-mcp/switchboard/app/api\n") {
				t.Fatalf("go list -deps %s (GOOS=%s) printed no dependency list:\n%s", pkg, goos, out)
			}
			for _, d := range deps {
				for _, h := range heavy {
					if strings.Contains(d, h) {
						t.Errorf("GOOS=%s: %s links %s (matches %q): the bridge must start like a small static program (see app/bridge's package comment)", goos, pkg, d, h)
					}
				}
			}
		}
	}
}

// TestStatic: switchboard-bridge built with CGO_ENABLED=0 is a static
// executable (no program interpreter, no shared libraries), so that its
// start maps one file and runs no dynamic linker.
func TestStatic(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "switchboard-bridge")
	cmd := exec.Command(goCmd(t), "build", "-o", bin, cmdPkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("switchboard-bridge has a %v segment: it is not static", p.Type)
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("switchboard-bridge needs shared libraries: %v", libs)
	}
}
