//go:build linux

package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// testHost is a host run in this process by Run.
type testHost struct {
	opts Options
	c    *api.Client
	done chan error
}

// runHost runs a host on fresh directories (the socket's path must fit in
// 107 bytes, hence a short root) and connects a client to it. The host is
// stopped at the end of the test.
func runHost(t *testing.T, store *secrets.Store, cfg map[string]any) *testHost {
	t.Helper()
	return runHostWith(t, store, cfg, nil)
}

// runHostWith is runHost with options of its own: mutate (if not nil)
// changes them before the host starts.
func runHostWith(t *testing.T, store *secrets.Store, cfg map[string]any, mutate func(*Options)) *testHost {
	t.Helper()
	t.Setenv("SHELL", "/bin/sh") // root's bash profile takes seconds here
	root, err := os.MkdirTemp("", "sbh")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	th := &testHost{done: make(chan error, 1)}
	th.opts = Options{
		ConfigPath: filepath.Join(root, "cfg", "config.json"),
		RuntimeDir: filepath.Join(root, "run"),
		SocketPath: filepath.Join(root, "run", "host.sock"),
		LogPath:    filepath.Join(root, "cache", "host.log"),
		Secrets:    store,
		Version:    "test",
		Policy:     supervisor.Policy{Initial: 50 * time.Millisecond, Max: 500 * time.Millisecond},
	}
	if mutate != nil {
		mutate(&th.opts)
	}
	if cfg != nil {
		if err := os.MkdirAll(filepath.Dir(th.opts.ConfigPath), 0o700); err != nil {
			t.Fatal(err)
		}
		b, _ := json.MarshalIndent(map[string]any{"version": 1, "mcpServers": cfg}, "", "  ")
		if err := os.WriteFile(th.opts.ConfigPath, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ready := make(chan struct{})
	th.opts.Ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	go func() { th.done <- Run(ctx, th.opts) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-th.done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(wait):
			t.Errorf("Run did not return within %v of its context's end", wait)
		}
	})
	select {
	case <-ready:
	case err := <-th.done:
		t.Fatalf("Run returned before it was ready: %v", err)
	case <-time.After(wait):
		t.Fatal("the host was not ready in time")
	}
	th.c, err = api.Dial(context.Background(), th.opts.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { th.c.Close() })
	return th
}

// dial is another API client of the host (an approver, a follower),
// closed when the test ends.
func (th *testHost) dial(t *testing.T) *api.Client {
	t.Helper()
	c, err := api.Dial(context.Background(), th.opts.SocketPath)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// approvals is the approvals topic of a client of its own: what an
// approver (the window, the tray) sees.
func (th *testHost) approvals(t *testing.T) <-chan api.Event {
	t.Helper()
	events, err := th.dial(t).Subscribe(context.Background(), hostapi.TopicApprovals)
	if err != nil {
		t.Fatal(err)
	}
	return events
}

func (th *testHost) call(t *testing.T, method string, params, result any) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return th.c.Call(ctx, method, params, result)
}

func (th *testHost) must(t *testing.T, method string, params, result any) {
	t.Helper()
	if err := th.call(t, method, params, result); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

func (th *testHost) list(t *testing.T) []hostapi.ServerStatus {
	t.Helper()
	var out []hostapi.ServerStatus
	th.must(t, hostapi.MethodServersList.Name, nil, &out)
	return out
}

// statusOf is the listed status of the server name, or fails.
func (th *testHost) statusOf(t *testing.T, name string) hostapi.ServerStatus {
	t.Helper()
	for _, st := range th.list(t) {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("%s is not listed", name)
	return hostapi.ServerStatus{}
}

func (th *testHost) waitServer(t *testing.T, name, what string, cond func(hostapi.ServerStatus) bool) hostapi.ServerStatus {
	t.Helper()
	var got hostapi.ServerStatus
	testkit.Eventually(t, name+": "+what, func() (bool, string) {
		for _, st := range th.list(t) {
			if st.Name == name {
				got = st
				b, _ := json.Marshal(st)
				return cond(st), string(b)
			}
		}
		return false, "not listed"
	})

	return got
}

func (th *testHost) waitRunning(t *testing.T, name string) hostapi.ServerStatus {
	t.Helper()
	return th.waitServer(t, name, "running", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.PID != 0 })
}

func (th *testHost) log(t *testing.T) string {
	t.Helper()
	b, _ := os.ReadFile(th.opts.LogPath)
	return string(b)
}

func apiCode(err error) string {
	var e *api.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// TestHostMethods calls every method of the host's API against a host run
// in this process.
func TestHostMethods(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	th := runHost(t, store, map[string]any{"a": helperEntry("modern", "a")})
	if v := th.c.HostAPI(); v != hostapi.APIVersion {
		t.Errorf("the host's greeting states API %q, want %q (hostapi.APIVersion)", v, hostapi.APIVersion)
	}

	var info hostapi.Info
	th.must(t, hostapi.MethodHostInfo.Name, nil, &info)
	if info.PID != os.Getpid() || info.Socket != th.opts.SocketPath || info.ConfigPath != th.opts.ConfigPath || !info.Config.OK || info.Clients != 1 {
		t.Fatalf("host.info: %+v", info)
	}
	a := th.waitRunning(t, "a")

	// servers.stop (by name, waiting), start, restart, --all.
	th.must(t, hostapi.MethodServersStop.Name, hostapi.NameParams{Name: "a", Wait: true}, nil)
	if st := th.waitServer(t, "a", "stopped", func(s hostapi.ServerStatus) bool { return s.State == "stopped" }); !st.UserStopped || !testkit.Gone(a.PID) {
		t.Fatalf("after servers.stop with wait: %+v, pid %d gone %v", st, a.PID, testkit.Gone(a.PID))
	}
	th.must(t, hostapi.MethodServersStart.Name, hostapi.NameParams{Name: "a"}, nil)
	a2 := th.waitRunning(t, "a")
	th.must(t, hostapi.MethodServersRestart.Name, hostapi.NameParams{All: true}, nil)
	a3 := th.waitServer(t, "a", "restarted", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.PID != 0 && s.PID != a2.PID })
	th.must(t, hostapi.MethodServersStop.Name, hostapi.NameParams{All: true, Wait: true}, nil)
	if !testkit.Gone(a3.PID) {
		t.Fatal("servers.stop --all with wait returned before the ladder finished")
	}
	th.must(t, hostapi.MethodServersStart.Name, hostapi.NameParams{All: true}, nil)
	th.waitRunning(t, "a")
	if err := th.call(t, hostapi.MethodServersStop.Name, hostapi.NameParams{Name: "nope"}, nil); apiCode(err) != api.CodeNotFound {
		t.Fatalf("servers.stop of an unknown server: %v (code %q)", err, apiCode(err))
	}
	if err := th.call(t, hostapi.MethodServersStart.Name, hostapi.NameParams{}, nil); apiCode(err) != api.CodeBadRequest {
		t.Fatalf("servers.start without a name: %v", err)
	}

	// servers.put (create), get, call, tools, logs.
	b := helperEntry("modern", "b")
	raw, _ := json.Marshal(b)
	th.must(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "b", Entry: raw, Create: true}, nil)
	if err := th.call(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "b", Entry: raw, Create: true}, nil); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("servers.put of an existing name: %v", err)
	}
	bad, _ := json.Marshal(with(b, "cwd", "relative/dir"))
	err := th.call(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "c", Entry: bad, Create: true}, nil)
	if err == nil || !strings.Contains(err.Error(), "mcpServers.c.cwd") {
		t.Fatalf("servers.put of an invalid entry: %v", err)
	}
	if err := th.call(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "Bad_Name", Entry: raw, Create: true}, nil); err == nil || !strings.Contains(err.Error(), `"bad-name"`) {
		t.Fatalf("servers.put with an invalid name: %v", err)
	}
	th.waitRunning(t, "b")
	var er hostapi.EntryResult
	th.must(t, hostapi.MethodServersGet.Name, hostapi.NameParams{Name: "b"}, &er)
	if !strings.Contains(string(er.Entry), testExe) {
		t.Fatalf("servers.get: %s", er.Entry)
	}
	var res struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	th.must(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "b", Tool: "echo", Arguments: json.RawMessage(`{"message":"hi"}`)}, &res)
	if len(res.Content) != 1 || res.Content[0].Text != "echo: hi b" {
		t.Fatalf("servers.call: %+v", res)
	}
	var tr hostapi.ToolsResult
	testkit.Eventually(t, "servers.tools lists b's tools", func() (bool, string) {
		th.must(t, hostapi.MethodServersTools.Name, hostapi.NameParams{Name: "b"}, &tr)
		return len(tr.Tools) == 5, fmt.Sprint(len(tr.Tools))
	})

	var lr hostapi.LogsResult
	th.must(t, hostapi.MethodServersLogs.Name, hostapi.NameParams{Name: "b"}, &lr)
	if !slices.Contains(lr.Lines, "modern helper: serving b") {
		t.Fatalf("servers.logs: %q", lr.Lines)
	}
	if len(lr.Times) != len(lr.Lines) {
		t.Fatalf("servers.logs: %d times for %d lines", len(lr.Times), len(lr.Lines))
	}
	for i, at := range lr.Times {
		if at.IsZero() || at.After(time.Now()) || i > 0 && at.Before(lr.Times[i-1]) {
			t.Errorf("servers.logs: line %d (%q) read at %v: want a time, not after now nor before the line above", i, lr.Lines[i], at)
		}
	}
	if err := th.call(t, hostapi.MethodServersCall.Name, hostapi.CallParams{Name: "nope", Tool: "echo"}, nil); apiCode(err) != api.CodeNotFound {
		t.Fatalf("servers.call of an unknown server: %v", err)
	}

	// disable, enable, remove: in the file.
	th.must(t, hostapi.MethodServersDisable.Name, hostapi.NameParams{Name: "b"}, nil)
	th.waitServer(t, "b", "disabled", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateDisabled })
	f, err := config.Load(th.opts.ConfigPath)
	if err != nil || !f.Servers["b"].Disabled {
		t.Fatalf("disable is not in the file: %v", err)
	}
	th.must(t, hostapi.MethodServersEnable.Name, hostapi.NameParams{Name: "b"}, nil)
	th.waitRunning(t, "b")
	th.must(t, hostapi.MethodServersRemove.Name, hostapi.NameParams{Name: "b"}, nil)
	if slices.ContainsFunc(th.list(t), func(s hostapi.ServerStatus) bool { return s.Name == "b" }) {
		t.Fatal("b listed after servers.remove")
	}
	if f, _ := config.Load(th.opts.ConfigPath); f.Servers["b"] != nil {
		t.Fatal("b in the file after servers.remove")
	}
	if fi, err := os.Stat(th.opts.ConfigPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the host's config file: %v %v", fi, err)
	}

	// secrets.set, list, delete; the value is never in the file or the log.
	const value = "the-SECRET-value-42"
	s := helperEntry("modern", "s")
	s["env"].(map[string]string)["TOKEN"] = "${keyring:tok}"
	raw, _ = json.Marshal(s)
	th.must(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "s", Entry: raw, Create: true}, nil)
	th.waitServer(t, "s", "waiting for secret", func(st hostapi.ServerStatus) bool { return st.State == hostapi.State(supervisor.WaitingSecret) })
	var restarted map[string][]string
	th.must(t, hostapi.MethodSecretsSet.Name, hostapi.SecretParams{Name: "tok", Value: value}, &restarted)
	if !slices.Equal(restarted["restarted"], []string{"s"}) {
		t.Fatalf("secrets.set: %v", restarted)
	}
	sp := th.waitRunning(t, "s").PID
	if !slices.Contains(testkit.Environ(t, sp), "TOKEN="+value) {
		t.Fatal("the secret is not in the server's environment")
	}
	var list []hostapi.SecretInfo
	th.must(t, hostapi.MethodSecretsList.Name, nil, &list)
	if len(list) != 1 || list[0].Name != "tok" || !slices.Equal(list[0].UsedBy, []string{"s"}) {
		t.Fatalf("secrets.list: %+v", list)
	}
	th.must(t, hostapi.MethodSecretsDelete.Name, hostapi.SecretParams{Name: "tok"}, nil)
	th.must(t, hostapi.MethodSecretsList.Name, nil, &list)
	if len(list) != 0 {
		t.Fatalf("secrets.list after delete: %+v", list)
	}
	cfgBytes, _ := os.ReadFile(th.opts.ConfigPath)
	for what, text := range map[string]string{"config": string(cfgBytes), "host.log": th.log(t)} {
		if strings.Contains(text, value) {
			t.Fatalf("the secret's value is in the %s", what)
		}
	}

	// The host's own writes do not come back as reloads.
	time.Sleep(3 * config.DefaultDebounce)
	if strings.Contains(th.log(t), "config file changed") {
		t.Fatalf("the host's own writes were reloaded:\n%s", th.log(t))
	}

	var cs hostapi.ConfigStatus
	th.must(t, hostapi.MethodConfigStatus.Name, nil, &cs)
	if !cs.OK || cs.Path != th.opts.ConfigPath {
		t.Fatalf("config.status: %+v", cs)
	}

	// host.stop: Run returns after every server stopped.
	pids := []int{}
	for _, st := range th.list(t) {
		if st.PID != 0 {
			pids = append(pids, st.PID)
		}
	}
	th.must(t, hostapi.MethodHostStop.Name, nil, nil)
	select {
	case err := <-th.done:
		th.done <- err // for the cleanup
	case <-time.After(wait):
		t.Fatal("Run did not return after host.stop")
	}
	for _, pid := range pids {
		if !testkit.Gone(pid) {
			t.Fatalf("pid %d outlived the host", pid)
		}
	}
}

// TestHostReloadAfterOwnWrite: after the host wrote the file, an editor
// that saves the content the file had before the host's write (an editor
// buffer opened earlier and saved unchanged, an undo) is a change: the
// host must apply it, not take it for content it already has.
func TestHostReloadAfterOwnWrite(t *testing.T) {
	th := runHost(t, nil, map[string]any{"a": helperEntry("modern", "a")})
	before, err := os.ReadFile(th.opts.ConfigPath)
	if err != nil {
		t.Fatal(err)
	}
	th.waitRunning(t, "a")
	raw, _ := json.Marshal(helperEntry("modern", "b"))
	th.must(t, hostapi.MethodServersPut.Name, hostapi.PutParams{Name: "b", Entry: raw, Create: true}, nil)
	th.waitRunning(t, "b")
	tmp := th.opts.ConfigPath + ".new"
	if err := os.WriteFile(tmp, before, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, th.opts.ConfigPath); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "b removed by the editor's save", func() (bool, string) {
		l := th.list(t)
		b, _ := json.Marshal(l)
		return !slices.ContainsFunc(l, func(s hostapi.ServerStatus) bool { return s.Name == "b" }), string(b)
	})

}
