//go:build linux

package host

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// envOf is the environment of the process pid.
func envOf(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// TestSandboxTempWithEntry: a sandboxed server's TMPDIR is its own folder
// under the host's SandboxTemp, outside the runtime folder (it does not
// name the folder of host.sock); at the host's start the folders of names
// no entry has are removed; removing the entry removes its folder once the
// server stopped; an entry of the same name added again starts with an
// empty one.
func TestSandboxTempWithEntry(t *testing.T) {
	if s := sandbox.Probe(); s.ABI < 4 {
		testkit.SkipOrFail(t, "Landlock ABI 4 is needed, this kernel has %d (%s)", s.ABI, s.Detail)
	}
	temps := filepath.Join(t.TempDir(), "switchboard-sandbox")
	ghost := filepath.Join(temps, "ghost")
	if err := os.MkdirAll(ghost, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ghost, "left"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	e := helperEntry("modern", "confined")
	e["sandbox"] = "strict"
	th := runHostWith(t, nil, map[string]any{"confined": e}, func(o *Options) { o.SandboxTemp = temps })
	if _, err := os.Stat(ghost); !os.IsNotExist(err) {
		t.Errorf("the folder of a name no entry has is still there: %v", err)
	}
	st := th.waitRunning(t, "confined")
	mine := filepath.Join(temps, "confined")
	tmp := envOf(t, st.PID)["TMPDIR"]
	if tmp != mine {
		t.Errorf("TMPDIR = %q, want %q", tmp, mine)
	}
	if strings.Contains(tmp, th.opts.RuntimeDir) || strings.HasPrefix(tmp, filepath.Dir(th.opts.SocketPath)) {
		t.Errorf("TMPDIR %q names the runtime folder %q", tmp, th.opts.RuntimeDir)
	}
	if fi, err := os.Stat(mine); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("the temp folder: %v %v", fi, err)
	}
	if err := os.WriteFile(filepath.Join(mine, "old"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}

	th.must(t, hostapi.MethodServersRemove.Name, hostapi.NameParams{Name: "confined"}, nil)
	testkit.Eventually(t, "the removed entry's temp folder is gone", func() bool {
		_, err := os.Stat(mine)
		return os.IsNotExist(err)
	})

	raw, _ := json.Marshal(e)
	th.must(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "confined", Entry: raw, Create: true}, nil)
	st = th.waitRunning(t, "confined")
	if got := envOf(t, st.PID)["TMPDIR"]; got != mine {
		t.Errorf("TMPDIR after re-adding = %q", got)
	}
	des, err := os.ReadDir(mine)
	if err != nil || len(des) != 0 {
		t.Errorf("the re-added entry's temp folder: %v %v", des, err)
	}

	// A folder of the name found when a new entry is added (left by a
	// server of an earlier entry still stopping, or by anyone) is emptied
	// before the server starts.
	other := filepath.Join(temps, "other")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "old"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	th.must(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "other", Entry: raw, Create: true}, nil)
	th.waitRunning(t, "other")
	if des, err := os.ReadDir(other); err != nil || len(des) != 0 {
		t.Errorf("a new entry's temp folder: %v %v", des, err)
	}

	// Removed and added back before its stop ladder ends: still empty.
	if err := os.WriteFile(filepath.Join(mine, "old"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	th.must(t, hostapi.MethodServersRemove.Name, hostapi.NameParams{Name: "confined"}, nil)
	th.must(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "confined", Entry: raw, Create: true}, nil)
	th.waitServer(t, "confined", "running again", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateRunning && s.PID != st.PID })
	if des, _ := os.ReadDir(mine); slices.ContainsFunc(des, func(d os.DirEntry) bool { return d.Name() == "old" }) {
		t.Errorf("the entry added back finds the old one's file")
	}
}

// TestSandboxWideGrantNeverConfined: an entry whose sandbox grants the
// home folder (or the host's own state) is invalid: never started, and
// its status never says it is confined.
func TestSandboxWideGrantNeverConfined(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	wide := helperEntry("modern", "wide")
	wide["sandbox"] = map[string]any{"preset": "files", "write": []string{"~"}}
	th := runHost(t, nil, map[string]any{"wide": wide})
	own := helperEntry("modern", "own")
	// The host's own runtime folder, known only to this host.
	own["sandbox"] = map[string]any{"preset": "files", "read": []string{th.opts.RuntimeDir}}
	raw, _ := json.Marshal(own)
	err := th.call(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "own", Entry: raw, Create: true}, nil)
	if err == nil || !strings.Contains(err.Error(), "sandbox.read[0]") {
		t.Errorf("granting the runtime folder: %v", err)
	}
	st := th.waitServer(t, "wide", "invalid", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateInvalid })
	if st.Sandbox != nil || st.PID != 0 || !slices.ContainsFunc(st.Problems, func(p hostapi.Problem) bool {
		return p.Key == "sandbox.write[0]" && strings.Contains(p.Message, "home folder")
	}) {
		t.Errorf("status = %+v", st)
	}
}

// TestProtectedStartOptions: the host starts servers with its own state
// protected (engine.StartOptions.Protected), as its options name it: its
// config folder, runtime folder and sockets, state folder and pins, log
// folder and the secrets' index; and the config's checks see them while
// it runs (config.OwnState), not after.
func TestProtectedStartOptions(t *testing.T) {
	root := t.TempDir()
	o := Options{ConfigPath: filepath.Join(root, "cfg", "config.json"), RuntimeDir: filepath.Join(root, "run"),
		SocketPath: filepath.Join(root, "sock", "host.sock"), StateDir: filepath.Join(root, "state"),
		PinsPath: filepath.Join(root, "pins", "pins.json"), LogPath: filepath.Join(root, "log", "host.log"),
		Secrets: secrets.NewMemoryStore(filepath.Join(root, "secrets", "secrets.json"))}
	h := &Host{opts: o}
	unregister := config.RegisterOwnState(h.ownState())
	got := h.startOptions(nil, nil).Protected
	want := []string{filepath.Join(root, "cfg"), o.RuntimeDir, filepath.Join(root, "sock"), o.StateDir, o.PinsPath,
		filepath.Join(root, "log"), filepath.Join(root, "secrets")}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("Protected %q lacks %q", got, w)
		}
	}
	unregister()
	if slices.Contains(config.OwnState(), o.RuntimeDir) {
		t.Error("the host's paths stay registered after it stopped")
	}
}
