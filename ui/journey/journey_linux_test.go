//go:build linux && cgo && !ci

package journey

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/catalog"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// TestJourneyCatalogFilesystem is journey 1 of issue 13: from an empty
// start, a person adds Filesystem from the catalog, sees it run, opens its
// tools, tries one and reads the result, with real clicks and key presses
// on the real window, against a real host running the real
// @modelcontextprotocol/server-filesystem.
//
// The catalog's entry runs "npx -y @modelcontextprotocol/server-filesystem@VERSION DIR";
// the host's PATH leads first to a stand-in npx (npxShim) that runs the
// installed copy of exactly that version (engine/stdio/testdata/npm) rather
// than downloading it.
func TestJourneyCatalogFilesystem(t *testing.T) {
	need(t)
	tpl, ok := catalog.Lookup("filesystem")
	if !ok {
		t.Fatal("the catalog has no filesystem template")
	}
	shim := npxShim(t, tpl)
	allowed, err := filepath.EvalSymlinks(t.TempDir()) // the server answers with real paths
	if err != nil {
		t.Fatal(err)
	}
	h := startHost(t, nil, "SHELL", "/bin/false", "PATH", shim+string(os.PathListSeparator)+os.Getenv("PATH"))
	s := openWindow(t, h)

	// An empty start.
	s.emptyListInvite()

	// The catalog: search, then Add… on the one result.
	s.click("Add a server", s.catalogButton())
	s.click("the search box", s.catalogSearch())
	s.typeText("filesys")
	s.onlyOne("the one template that matches", buttonText("Add…"))
	s.click("Add… of Filesystem", s.catalogAdd("Filesystem"))

	// The template asks for the allowed directories.
	field := s.templateField("Allowed directories *")
	s.click("the allowed directories", field)
	s.typeText(allowed)
	testkit.Eventually(t, "the typed directory in the field", func() (bool, string) {
		got := text(field)
		return got == allowed, got
	})
	s.click("Add server", s.templateSave())

	// It runs: the host has its entry, with the pinned package and the
	// directory, and runs it.
	h.waitState("filesystem", hostapi.StateRunning)
	s.serverState("filesystem", hostapi.StateRunning.Label())
	e := h.entry("filesystem")
	if e["command"] != "npx" || !slices.Equal(toStrings(e["args"]), []string{"-y", tpl.Spec(), allowed}) {
		t.Errorf("the entry on disk: %v", e)
	}

	// Its tools, and Try it: the server in the list, its Tools tab.
	s.click("filesystem in the list", s.serverRow("filesystem"))
	s.click("the Tools tab of filesystem", s.serverTab("filesystem", "Tools"))
	s.click("list_allowed_directories", s.toolButton("list_allowed_directories"))
	s.click("Call list_allowed_directories", s.callButton("list_allowed_directories"))
	res := s.result(allowed)
	if got := text(res); !strings.Contains(got, "Allowed directories") {
		t.Errorf("the result: %q", got)
	}
}

// npxShim writes an npx that runs the installed copy of the template's
// pinned package (and nothing else) and returns its directory. It fails
// the test when the installed copy is not the pinned version.
func npxShim(t *testing.T, tpl catalog.Server) string {
	t.Helper()
	bin := testkit.NpmServer(t, "mcp-server-"+strings.TrimPrefix(tpl.Package, "@modelcontextprotocol/server-"))
	real, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	pkg := filepath.Dir(filepath.Dir(real)) // .../server-filesystem/dist/index.js
	b, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ Name, Version string }
	if err := json.Unmarshal(b, &meta); err != nil || meta.Name != tpl.Package || meta.Version != tpl.Version {
		t.Fatalf("%s holds %s@%s (%v); the catalog pins %s: install the pinned version in engine/stdio/testdata/npm", pkg, meta.Name, meta.Version, err, tpl.Spec())
	}
	dir := t.TempDir()
	script := "#!/bin/sh\n" +
		"# The journeys' npx: runs the installed " + tpl.Spec() + ", never a download.\n" +
		"# The host's package warm-up (app/host/warm.go): the package is here already.\n" +
		"[ \"$1\" = --yes ] && [ \"$2\" = '--package=" + tpl.Spec() + "' ] && exit 0\n" +
		"[ \"$1\" = -y ] && shift\n" +
		"if [ \"$1\" = '" + tpl.Spec() + "' ]; then shift; exec '" + bin + "' \"$@\"; fi\n" +
		"echo \"journey npx: $1 is not installed here\" >&2\n" +
		"exit 1\n"
	if err := os.WriteFile(filepath.Join(dir, "npx"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// TestJourneyFixFailedServer is journey 2 of issue 13: a server whose
// command does not exist fails; the tray's menu says why (the first line
// of its submenu) and so does its Overview in the window; the person
// follows "Change the command in Settings", corrects the command, saves,
// and it runs, the reason gone from the tray and from the Overview.
func TestJourneyFixFailedServer(t *testing.T) {
	need(t)
	bin := testkit.NpmServer(t, "mcp-server-filesystem")
	allowed, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const wrong = "mcp-server-filesytem" // a typo: no such command
	h := startHost(t, map[string]any{"files": map[string]any{"command": wrong, "args": []string{allowed}}},
		"SHELL", "/bin/false")
	st := h.waitState("files", hostapi.StateFailed)
	if !strings.Contains(st.LastError+st.ResolveError, wrong) {
		t.Fatalf("the host's reason does not name the command: %+v", st)
	}
	tr := startTray(t, h)
	s := openWindow(t, h)

	// The tray says that it failed, and why, first in its submenu.
	testkit.Eventually(t, "the tray's line for files says failed, and why", func() (bool, string) {
		line, sub := trayServer(tr, "files")
		return strings.HasSuffix(line, "— "+hostapi.StateFailed.Label()) && len(sub) > 0 && strings.Contains(sub[0], wrong),
			fmt.Sprintf("%q %q", line, sub)
	})

	// The window: files in the list, its Overview says why, and offers
	// the way to Settings.
	s.click("files in the list", s.serverRow("files"))
	s.click("the Overview tab of files", s.serverTab("files", "Overview"))
	s.serverState("files", hostapi.StateFailed.Label())
	s.serverReason("files", wrong)
	s.click("Change the command in Settings", s.editButton("files"))
	cmd := s.settingsField("Command")
	if got := text(cmd); got != wrong {
		t.Errorf("the Settings' command: %q, not the entry's %q", got, wrong)
	}
	s.click("the command", cmd)
	s.key("ctrl+a")
	s.typeText(bin)
	testkit.Eventually(t, "the corrected command in the field", func() (bool, string) {
		got := text(cmd)
		return got == bin, got
	})
	s.click("Save", s.settingsSave())

	// It runs: the host, the window's header, the tray; and the Overview
	// no longer says why it would not.
	h.waitState("files", hostapi.StateRunning)
	s.serverState("files", hostapi.StateRunning.Label())
	testkit.Eventually(t, "the tray's line for files says running, without a reason", func() (bool, string) {
		line, sub := trayServer(tr, "files")
		return strings.HasPrefix(line, "files — running") && !strings.Contains(strings.Join(sub, "\n"), wrong),
			fmt.Sprintf("%q %q", line, sub)
	})
	if e := h.entry("files"); e["command"] != bin || !slices.Equal(toStrings(e["args"]), []string{allowed}) {
		t.Errorf("the entry on disk: %v", e)
	}
	s.click("the Overview tab of files", s.serverTab("files", "Overview"))
	s.overviewState("files", hostapi.StateRunning.Label())
	s.noServerReason("files", wrong)
}
