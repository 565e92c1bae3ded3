//go:build linux

package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// TestHostRename renames a running server that uses a keyring secret: the
// old process stops, a new one runs under the new name with the same
// secret in its environment, the file keeps every key of the entry (an
// unknown one too) in its place, and the gateway names its tools after
// the new name.
func TestHostRename(t *testing.T) {
	const value = "rename-SECRET-7"
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("old-token", secrets.New(value)); err != nil {
		t.Fatal(err)
	}
	old := helperEntry("modern", "old")
	old["env"].(map[string]string)["TOKEN"] = "${keyring:old-token}"
	old["x-note"] = "kept"
	th := runHost(t, store, map[string]any{"a": helperEntry("modern", "a"), "old": old, "z": helperEntry("modern", "z")})
	before := th.waitRunning(t, "old")

	th.must(t, hostapi.MethodServersRename.Name, hostapi.RenameParams{Name: "old", NewName: "new"}, nil)
	after := th.waitRunning(t, "new")
	if after.PID == before.PID {
		t.Fatalf("the renamed server kept pid %d: it was not started under its new name", before.PID)
	}
	testkit.Eventually(t, "the old process is gone", func() (bool, string) { return testkit.Gone(before.PID), "" })
	if slices.ContainsFunc(th.list(t), func(s hostapi.ServerStatus) bool { return s.Name == "old" }) {
		t.Fatal("old still listed after the rename")
	}
	if !slices.Contains(testkit.Environ(t, after.PID), "TOKEN="+value) {
		t.Fatal("the renamed server does not get its secret")
	}
	// Its kept stderr comes along: the old name's run, the rename, the
	// new name's run.
	testkit.Eventually(t, "new's logs hold old's run and the rename", func() (bool, string) {
		var logs hostapi.LogsResult
		th.must(t, hostapi.MethodServersLogs.Name, hostapi.NameParams{Name: "new"}, &logs)
		i := slices.Index(logs.Lines, fmt.Sprintf("--- started, pid %d ---", before.PID))
		j := slices.Index(logs.Lines, "--- renamed from old to new ---")
		k := slices.Index(logs.Lines, fmt.Sprintf("--- started, pid %d ---", after.PID))
		return i >= 0 && i < j && j < k, strings.Join(logs.Lines, "\n")
	})

	f, err := config.Load(th.opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Names(); !slices.Equal(got, []string{"a", "new", "z"}) && !slices.Equal(got, []string{"new", "a", "z"}) {
		t.Fatalf("the file's servers after the rename: %v", got)
	}
	raw, _ := json.Marshal(f.Servers["new"])
	if !strings.Contains(string(raw), `"x-note":"kept"`) || !strings.Contains(string(raw), `${keyring:old-token}`) {
		t.Fatalf("the renamed entry lost something: %s", raw)
	}
	data, _ := os.ReadFile(th.opts.ConfigPath)
	if strings.Contains(string(data), value) {
		t.Fatal("the secret's value is in the config file")
	}

	testkit.Eventually(t, "the gateway names the tools new__*", func() (bool, string) {
		var info hostapi.GatewayInfo
		th.must(t, hostapi.MethodGatewayTools.Name, nil, &info)
		var names []string
		for _, n := range info.Mapping.Tools {
			names = append(names, n.Exposed)
		}
		return slices.Contains(names, "new__echo") && !slices.Contains(names, "old__echo"), strings.Join(names, " ")
	})

	// Refusals: each with its code, and nothing changes.
	for _, c := range []struct {
		p    hostapi.RenameParams
		code string
	}{
		{hostapi.RenameParams{Name: "nope", NewName: "b"}, api.CodeNotFound},
		{hostapi.RenameParams{Name: "new", NewName: "a"}, hostapi.CodeAlreadyExists},
		{hostapi.RenameParams{Name: "new", NewName: "Bad_Name"}, hostapi.CodeInvalidName},
		{hostapi.RenameParams{Name: "new"}, api.CodeBadRequest},
	} {
		if err := th.call(t, hostapi.MethodServersRename.Name, c.p, nil); apiCode(err) != c.code {
			t.Errorf("servers.rename %+v: %v (code %q), want code %q", c.p, err, apiCode(err), c.code)
		}
	}
	if st := th.waitRunning(t, "new"); st.PID != after.PID {
		t.Errorf("a refused rename restarted the server (pid %d, then %d)", after.PID, st.PID)
	}

	// A server the user stopped stays stopped under its new name.
	th.must(t, hostapi.MethodServersStop.Name, hostapi.NameParams{Name: "new", Wait: true}, nil)
	th.must(t, hostapi.MethodServersRename.Name, hostapi.RenameParams{Name: "new", NewName: "newer"}, nil)
	st := th.waitServer(t, "newer", "listed", func(hostapi.ServerStatus) bool { return true })
	if st.State != hostapi.StateStopped || !st.UserStopped || st.PID != 0 {
		t.Fatalf("a stopped server renamed: %+v", st)
	}
	th.must(t, hostapi.MethodServersStart.Name, hostapi.NameParams{Name: "newer"}, nil)
	th.waitRunning(t, "newer")
}
