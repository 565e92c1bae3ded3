//go:build linux

package host

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestProfilesMethods: profiles.put/list/rename/remove through a real
// host; a missing server is a warning, a malformed pattern is refused with
// nothing written; a profile edited in the file by hand is seen after the
// reload; and no change of profiles restarts a server.
func TestProfilesMethods(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	th := runHost(t, store, map[string]any{"a": helperEntry("modern", "a")})
	a := th.waitRunning(t, "a")

	th.must(t, hostapi.MethodProfilesPut.Name, hostapi.ProfilePutParams{Name: "coding",
		Profile: hostapi.ProfileEntry{Servers: []string{"a", "gone"}, Deny: []string{"a__write_*"}}}, nil)
	var list []hostapi.ProfileInfo
	th.must(t, hostapi.MethodProfilesList.Name, nil, &list)
	if len(list) != 1 || list[0].Name != "coding" || !slices.Equal(list[0].Missing, []string{"gone"}) ||
		len(list[0].Problems) != 1 || !list[0].Problems[0].Warning || !strings.Contains(list[0].Problems[0].Message, `"gone"`) {
		t.Fatalf("profiles.list: %+v", list)
	}
	var st hostapi.ConfigStatus
	th.must(t, hostapi.MethodConfigStatus.Name, nil, &st)
	if !st.OK || len(st.Problems) != 1 || !st.Problems[0].Warning || st.Problems[0].Key != "profiles.coding.servers" {
		t.Errorf("config.status: %+v", st)
	}

	err := th.call(t, hostapi.MethodProfilesPut.Name, hostapi.ProfilePutParams{Name: "bad", Profile: hostapi.ProfileEntry{Allow: []string{"[x"}}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a valid pattern") {
		t.Errorf("a malformed pattern: %v", err)
	}
	if err := th.call(t, hostapi.MethodProfilesPut.Name, hostapi.ProfilePutParams{Name: "Bad Name"}, nil); err == nil {
		t.Error("an invalid name was accepted")
	}
	th.must(t, hostapi.MethodProfilesRename.Name, hostapi.RenameParams{Name: "coding", NewName: "dev"}, nil)
	if err := th.call(t, hostapi.MethodProfilesRemove.Name, hostapi.NameParams{Name: "coding"}, nil); err == nil || !strings.Contains(err.Error(), "not in the config") {
		t.Errorf("removing the old name: %v", err)
	}
	f, err := config.Load(th.opts.ConfigPath)
	if err != nil || !slices.Equal(f.ProfileNames(), []string{"dev"}) {
		t.Fatalf("the file's profiles: %v %v", f.ProfileNames(), err)
	}

	// An edit of the file by hand, as an editor saves it: reloaded.
	data, _ := os.ReadFile(th.opts.ConfigPath)
	data = []byte(strings.Replace(string(data), `"dev"`, `"review"`, 1))
	if err := config.WriteFile(th.opts.ConfigPath, data); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the hand edit is reloaded", func() bool {
		var l []hostapi.ProfileInfo
		th.must(t, hostapi.MethodProfilesList.Name, nil, &l)
		return len(l) == 1 && l[0].Name == "review"
	})
	th.must(t, hostapi.MethodProfilesRemove.Name, hostapi.NameParams{Name: "review"}, nil)
	if now := th.waitRunning(t, "a"); now.PID != a.PID || now.Restarts != a.Restarts {
		t.Errorf("a change of profiles restarted the server: pid %d -> %d, restarts %d -> %d", a.PID, now.PID, a.Restarts, now.Restarts)
	}
}
