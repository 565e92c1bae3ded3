//go:build linux

package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
)

// TestProfilesWithoutHost: the profiles commands on the file (no host),
// and 'clients connect --profile' writing the app's entry and noting a
// profile the config lacks; a rename notes the apps that name the old
// profile.
func TestProfilesWithoutHost(t *testing.T) {
	u, home := clientsUnit(t)
	u.ok(t, "", "servers", "add", "git", "--", "git-mcp")

	// Connecting with a profile that does not exist yet: refused, with
	// the remedy, and nothing written (issue 27 §17).
	if r := u.main("", "clients", "connect", "cursor", "--profile", "coding"); r.code != 2 ||
		!strings.Contains(r.stderr, `no profile is named "coding"`) || !strings.Contains(r.stderr, "profiles set coding --servers") {
		t.Errorf("connect --profile of a missing profile: %s", r)
	}
	if _, err := os.Stat(filepath.Join(home, ".cursor", "mcp.json")); err == nil {
		t.Error("connect --profile of a missing profile wrote the app's file")
	}
	u.ok(t, "", "profiles", "set", "coding", "--servers", "git")
	// Misspelled: a guess.
	if r := u.main("", "clients", "connect", "cursor", "--profile", "codng"); r.code != 2 || !strings.Contains(r.stderr, `no profile is named "codng": did you mean "coding"?`) {
		t.Errorf("connect --profile codng: %s", r)
	}
	u.ok(t, "", "clients", "connect", "cursor", "--profile", "coding")
	var entry struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	data, _ := os.ReadFile(filepath.Join(home, ".cursor", "mcp.json"))
	if err := json.Unmarshal(data, &entry); err != nil {
		t.Fatal(err)
	}
	if got := entry.MCPServers["switchboard"].Args; !slices.Equal(got, []string{"bridge", "--profile", "coding"}) {
		t.Errorf("the entry's args: %q\n%s", got, data)
	}

	out := u.ok(t, "", "profiles", "set", "coding", "--servers", "git,files", "--deny", "files__write_*", "--tool-mode", "search")
	if !strings.Contains(out, "changed profile coding") || !strings.Contains(out, `server "files" is not in the config`) {
		t.Errorf("profiles set printed:\n%s", out)
	}
	// A change of one field keeps the others.
	u.ok(t, "", "profiles", "set", "coding", "--allow", "git__*")
	f, err := config.Load(u.configPath())
	if err != nil {
		t.Fatal(err)
	}
	p := f.Profile("coding")
	if p == nil || !slices.Equal(p.Servers, []string{"git", "files"}) || p.Tools == nil || !slices.Equal(p.Tools.Deny, []string{"files__write_*"}) ||
		!slices.Equal(p.Tools.Allow, []string{"git__*"}) || p.ToolMode != "search" {
		t.Fatalf("the profile written: %+v %+v", p, p.Tools)
	}
	if f.Servers["git"] == nil {
		t.Error("the server was lost")
	}

	out = u.ok(t, "", "profiles")
	for _, want := range []string{"coding", "git,files", "allow git__*; deny files__write_*", "search", `note: coding: profile "coding" names the server "files"`} {
		if !strings.Contains(out, want) {
			t.Errorf("profiles list lacks %q:\n%s", want, out)
		}
	}
	var list []hostapi.ProfileInfo
	if err := json.Unmarshal([]byte(u.ok(t, "", "profiles", "--json")), &list); err != nil || len(list) != 1 || !slices.Equal(list[0].Missing, []string{"files"}) {
		t.Errorf("profiles --json: %v %+v", err, list)
	}

	// Refused: a malformed pattern, an unknown mode, a bad name.
	for _, args := range [][]string{
		{"profiles", "set", "x", "--deny", "[x"},
		{"profiles", "set", "x", "--tool-mode", "fast"},
		{"profiles", "set", "Bad Name"},
	} {
		if r := u.main("", args...); r.code == 0 {
			t.Errorf("%q was accepted: %s", args, r)
		}
	}
	if f, _ := config.Load(u.configPath()); len(f.ProfileNames()) != 1 {
		t.Errorf("a refused profile was written: %v", f.ProfileNames())
	}

	out = u.ok(t, "", "profiles", "rename", "coding", "dev")
	if !strings.Contains(out, "renamed profile coding to dev") || !strings.Contains(out, "Cursor's Switchboard entry") || !strings.Contains(out, "clients connect cursor --profile dev") {
		t.Errorf("rename printed:\n%s", out)
	}
	out = u.ok(t, "", "profiles", "rm", "dev")
	if !strings.Contains(out, "removed profile dev") {
		t.Errorf("rm printed:\n%s", out)
	}
	if r := u.main("", "profiles", "rm", "dev"); r.code == 0 || !strings.Contains(r.stderr, `profile "dev" is not in the config`) {
		t.Errorf("removing a missing profile: %s", r)
	}
}
