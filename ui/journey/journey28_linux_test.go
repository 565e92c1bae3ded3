//go:build linux && cgo && !ci

package journey

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/host/hosttest"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/app/install"
	"github.com/switchboard-mcp/switchboard/app/registry/registrytest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestJourneyRegistryFilesystem is issue 28's journey through the "Add a
// server" place: against a v0.1 registry on loopback (its filesystem
// entry at the version engine/stdio/testdata/npm pins, its directory a
// filepath) synced into a real host's state directory, the person
// searches "filesystem", picks the registry's entry (not the catalog's
// template beside it), reads its card, fills the directory, and Adds: the
// host installs the package locked from the npm registry (install
// scripts off, servers.lock), the window goes to the new server, and it
// runs with node ENTRY DIR.
func TestJourneyRegistryFilesystem(t *testing.T) {
	testkit.SkipShort(t, "an npm install from the npm registry")
	need(t)
	if _, err := exec.LookPath("npm"); err != nil {
		testkit.SkipOrFail(t, "npm is not installed (Debian: apt-get install npm): %v", err)
	}
	var pj struct{ Dependencies map[string]string }
	b, err := os.ReadFile("../../engine/stdio/testdata/npm/package.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &pj); err != nil {
		t.Fatal(err)
	}
	const pkg = "@modelcontextprotocol/server-filesystem"
	version := pj.Dependencies[pkg]

	reg := registrytest.New(t)
	for _, d := range registrytest.Documents(t) {
		if d.Name == "io.github.modelcontextprotocol/filesystem" {
			d.Version, d.Packages[0].Version = version, version
			d.Packages[0].PackageArguments[0].Format = "filepath"
		}
		reg.Publish(d)
	}
	allowed, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SHELL", "/bin/false") // the servers' PATH is this one (npm, node)
	h := followHost(t, hosttest.Start(t, nil, func(o *host.Options) {
		o.Version = "journey"
		reg.Seed(t, "local", o.ConfigPath, o.StateDir)
	}))
	s := openWindow(t, h)

	s.click("Add a server", s.catalogButton())
	s.click("the search box", s.catalogSearch())
	s.typeText("filesystem")
	const name = "io.github.modelcontextprotocol/filesystem"
	testkit.Eventually(t, "the typed query in the search box", func() (bool, string) {
		got := text(s.catalogSearch())
		return got == "filesystem", got
	})
	// Each keystroke searched: the rows are the last answer's once two
	// looks find the same button.
	view := s.nearest(labelContaining(name), buttonText("View…"))
	var vb fyne.CanvasObject
	testkit.Eventually(t, "the registry's results settled", func() bool {
		prev := vb
		vb = s.find("View… of "+name, view)
		return prev == vb
	})
	s.click("View… of the registry's filesystem", vb)

	// The card: the exact argv, before anything runs.
	s.find("the card's argv", labelContaining("npx -y "+pkg+"@"+version))
	s.find("the sandbox line", labelContaining("sandbox grant"))
	field := s.find("the field target_dir *", formField("target_dir *"))
	s.click("the directory", field)
	s.typeText(allowed)
	testkit.Eventually(t, "the typed directory in the field", func() (bool, string) {
		got := text(field)
		return got == allowed, got
	})
	s.click("Add", s.find("the card's Add", importance(buttonText("Add"), widget.HighImportance)))
	s.find("the install's progress", labelContaining("Installing "+pkg+"@"+version))

	// Installed locked, then running; the window shows it.
	testkit.EventuallyWithin(t, "filesystem running (a locked npm install first)", 5*time.Minute, func() (bool, string) {
		st, ok := h.server("filesystem")
		return ok && st.State == hostapi.StateRunning, st.LastError
	})
	s.serverState("filesystem", hostapi.StateRunning.Label())
	// Its first start, made by the host under its sandbox: said on the
	// status line, its tools' hashes in servers.lock.
	s.find("the first start's line", labelContaining("First start (sandbox: "))
	e := h.entry("filesystem")
	args := toStrings(e["args"])
	if e["command"] != "node" || len(args) != 2 || !strings.HasSuffix(args[0], "/dist/index.js") || args[1] != allowed ||
		!strings.HasPrefix(args[0], install.Folder(h.opts.StateDir, pkg, version)) {
		t.Errorf("the entry on disk: %v", e)
	}
	lock, err := install.ReadLock(h.opts.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	if l := lock.Servers["filesystem"]; l == nil || l.Registry != "local" || l.Version != version || l.TreeIntegrity == "" || len(l.Tools) == 0 {
		t.Errorf("servers.lock: %+v", lock.Servers)
	}
}
