//go:build linux

package cli

import (
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/aiapps"
)

// entryArgs are the args of the switchboard entry in app id's file.
func entryArgs(t *testing.T, id string) []string {
	t.Helper()
	app, err := aiapps.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	loc, err := app.Locate(aiapps.OSEnv(nil), pathExists)
	if err != nil {
		t.Fatal(err)
	}
	_, doc, err := readClient(app, loc)
	if err != nil {
		t.Fatal(err)
	}
	b, args, ok := doc.Connected()
	if !ok {
		t.Fatalf("%s: no switchboard entry in %s", id, loc.Path)
	}
	if got := b.Args(); !slices.Equal(got, args) {
		t.Errorf("%s: the entry's args %q read back as %q", id, args, got)
	}
	return args
}

// TestClientsConnectToolSearch (issue 30 §7): an app with its own tool
// search (Claude Code, Copilot CLI) is told so and keeps every tool by
// default, even under a profile in search mode (written as --tool-mode
// all); --tool-mode search is written when asked, with a note; an app
// without its own search follows the profile and the flag as before.
func TestClientsConnectToolSearch(t *testing.T) {
	u, _ := clientsUnit(t)
	u.ok(t, "", "servers", "add", "git", "--", "git-mcp")
	u.ok(t, "", "profiles", "set", "lean", "--servers", "git", "--tool-mode", "search")

	for _, id := range []string{"claude-code", "copilot-cli"} {
		out := u.ok(t, "", "clients", "connect", id)
		if !strings.Contains(out, "searches") || !strings.Contains(out, "tools itself") || !strings.Contains(out, "gets every tool") {
			t.Errorf("%s: connect does not say it has its own tool search:\n%s", id, out)
		}
		if got := entryArgs(t, id); !slices.Equal(got, []string{"bridge"}) {
			t.Errorf("%s: %q", id, got)
		}
		out = u.ok(t, "", "clients", "connect", id, "--profile", "lean")
		if got := entryArgs(t, id); !slices.Equal(got, []string{"bridge", "--profile", "lean", "--tool-mode", "all"}) {
			t.Errorf("%s under a search-mode profile: %q", id, got)
		}
		if !strings.Contains(out, `the profile "lean" is in search mode`) {
			t.Errorf("%s under a search-mode profile:\n%s", id, out)
		}
		out = u.ok(t, "", "clients", "connect", id, "--tool-mode", "search")
		if got := entryArgs(t, id); !slices.Equal(got, []string{"bridge", "--tool-mode", "search"}) {
			t.Errorf("%s --tool-mode search: %q", id, got)
		}
		if !strings.Contains(out, "Switchboard's replaces it") {
			t.Errorf("%s --tool-mode search:\n%s", id, out)
		}
	}

	// Cursor has no tool search of its own: the profile decides; no note.
	out := u.ok(t, "", "clients", "connect", "cursor", "--profile", "lean")
	if got := entryArgs(t, "cursor"); !slices.Equal(got, []string{"bridge", "--profile", "lean"}) {
		t.Errorf("cursor: %q", got)
	}
	if strings.Contains(out, "tools itself") {
		t.Errorf("cursor: a note about its own search:\n%s", out)
	}
	if r := u.main("", "clients", "connect", "cursor", "--tool-mode", "lean"); r.code != 2 || !strings.Contains(r.stderr, "use all") {
		t.Errorf("--tool-mode lean: %s", r)
	}
}
