//go:build linux

package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// The on-demand tests' server is this test binary in a role of its own
// (sleepHelperEnv, chosen in init as the gateway tests' are): a go-sdk
// server whose tools are the lines of a file (sleepToolsEnv), read at its
// start, so that a test changes what the next run lists without changing
// the entry; its lists carry the ttlMs of sleepTTLEnv, if set.
const (
	sleepHelperEnv = "SWITCHBOARD_SLEEP_TEST_HELPER"
	sleepToolsEnv  = "SWITCHBOARD_SLEEP_TEST_TOOLS"
	sleepTTLEnv    = "SWITCHBOARD_SLEEP_TEST_TTL"
)

func init() {
	if os.Getenv(sleepHelperEnv) == "" {
		return
	}
	os.Exit(runSleepy())
}

func runSleepy() int {
	b, err := os.ReadFile(os.Getenv(sleepToolsEnv))
	if err != nil {
		fmt.Fprintln(os.Stderr, "sleepy:", err)
		return 1
	}
	var opts mcp.ServerOptions
	if ttl, err := strconv.Atoi(os.Getenv(sleepTTLEnv)); err == nil {
		opts.SetCacheable = func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.TTLMs = ttl }
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "host-test-sleepy", Version: "1"}, &opts)
	for _, name := range strings.Fields(string(b)) {
		mcp.AddTool(s, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name + " ok"}}}, nil, nil
		})
	}
	fmt.Fprintln(os.Stderr, "sleepy: serving", strings.Fields(string(b)))
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "sleepy:", err)
	}
	return 0
}

// sleepyEntry is an on-demand entry of the sleepy helper, listing the
// tools of the file tools, stopped after a second without a call.
func sleepyEntry(tools, ttl string) map[string]any {
	env := map[string]string{sleepHelperEnv: "1", sleepToolsEnv: tools, "GORACE": "atexit_sleep_ms=0"}
	if ttl != "" {
		env[sleepTTLEnv] = ttl
	}
	return map[string]any{"command": testExe, "env": env, "stdinGrace": 1000, "termGrace": 1000,
		"start": "on-demand", "idleStop": 1000}
}

var startedRe = regexp.MustCompile(`^--- started, pid (\d+) ---$`)

// startedPIDs are the pids of every run of the server name, from the
// markers of its kept stderr.
func (th *testHost) startedPIDs(t *testing.T, name string) []int {
	t.Helper()
	var logs hostapi.LogsResult
	th.must(t, hostapi.MethodServersLogs.Name, hostapi.NameParams{Name: name}, &logs)
	var pids []int
	for _, l := range logs.Lines {
		if m := startedRe.FindStringSubmatch(l); m != nil {
			pid, _ := strconv.Atoi(m[1])
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitAsleep waits until the server sleeps with no process: its status
// says so, and every process it ran is gone.
func (th *testHost) waitAsleep(t *testing.T, name string) {
	t.Helper()
	th.waitServer(t, name, "sleeping", func(st hostapi.ServerStatus) bool {
		return st.State == hostapi.StateSleeping && st.PID == 0
	})
	for _, pid := range th.startedPIDs(t, name) {
		testkit.Eventually(t, fmt.Sprintf("pid %d of %s has exited", pid, name), func() bool { return testkit.Gone(pid) })
	}
}

func writeTools(t *testing.T, path string, names ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(names, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSleepWakeAndIdle: an on-demand server with no cache is started once
// to learn its lists, then sleeps (no process); a bridge's client lists its
// tools from the cache while it sleeps; a call wakes it, waits and
// succeeds, and the activity record shows the wait; idleStop after the
// call it sleeps again. A run that lists other tools than the cache
// (the file changed, the entry did not) corrects the cache, and the
// client gets list_changed and the new list. A new host with the same
// state directory keeps it asleep: it lists the cache, and starts nothing.
func TestSleepWakeAndIdle(t *testing.T) {
	dir := t.TempDir()
	toolsFile := filepath.Join(dir, "tools")
	writeTools(t, toolsFile, "alpha")
	state := filepath.Join(dir, "state")
	cfg := map[string]any{"s": sleepyEntry(toolsFile, "3600000")}
	th := runHostWith(t, nil, cfg, func(o *Options) { o.StateDir = state })

	// The learning run, then sleep.
	th.waitAsleep(t, "s")
	if n := len(th.startedPIDs(t, "s")); n != 1 {
		t.Fatalf("%d runs before the first sleep, want the one learning run", n)
	}
	fi, err := os.Stat(filepath.Join(state, ListsDir, "s.json"))
	if err != nil {
		t.Fatalf("no list cache: %v", err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("the list cache has mode %v, want 0600", fi.Mode().Perm())
	}

	// Listed from the cache while no process runs.
	changed := make(chan struct{}, 16)
	cs := gwClient(t, th, gateway.Filter{}, "", &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	if got := gwTools(t, cs); !slices.Equal(got, []string{"s__alpha"}) {
		t.Fatalf("tools while asleep: %v, want [s__alpha]", got)
	}
	if st := th.waitServer(t, "s", "still asleep", func(hostapi.ServerStatus) bool { return true }); st.State != hostapi.StateSleeping || st.PID != 0 || st.Tools != 1 {
		t.Fatalf("listing woke it: %+v", st)
	}

	// A call wakes it and succeeds; the record shows the wait.
	if res := gwCall(t, cs, "s__alpha", nil); res.IsError || gwText(res) != "alpha ok" {
		t.Fatalf("the waking call: %+v (%s)", res, gwText(res))
	}
	if n := len(th.startedPIDs(t, "s")); n != 2 {
		t.Fatalf("%d runs after the call, want 2", n)
	}
	var q hostapi.ActivityQueryResult
	th.must(t, hostapi.MethodActivityQuery.Name, hostapi.ActivityQueryParams{Server: "s"}, &q)
	if len(q.Records) != 1 || q.Records[0].Target != "alpha" || q.Records[0].Outcome != "ok" || q.Records[0].WaitMs <= 0 {
		t.Fatalf("activity: %+v, want one ok call of alpha that waited", q.Records)
	}

	// Idle: asleep again.
	th.waitAsleep(t, "s")

	// A run that lists otherwise corrects the cache: list_changed, and
	// the new list.
	writeTools(t, toolsFile, "alpha", "beta")
	for len(changed) > 0 {
		<-changed
	}
	if res := gwCall(t, cs, "s__alpha", nil); res.IsError {
		t.Fatalf("the second waking call: %s", gwText(res))
	}
	deadline := time.After(wait)
	for !slices.Equal(gwTools(t, cs), []string{"s__alpha", "s__beta"}) {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("no list_changed with s__beta: %v", gwTools(t, cs))
		}
	}
	th.waitAsleep(t, "s")
	var lc listCache
	b, err := os.ReadFile(filepath.Join(state, ListsDir, "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lc); err != nil || len(lc.Tools) != 2 || lc.TTLMs == nil || *lc.TTLMs != 3600000 {
		t.Fatalf("the cache after the correction: %s (%v)", b, err)
	}

	// A new host (the same state directory, copied: the first one still
	// runs) keeps it asleep and lists the cache.
	state2 := filepath.Join(dir, "state2")
	if err := os.MkdirAll(filepath.Join(state2, ListsDir), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state2, ListsDir, "s.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	th2 := runHostWith(t, nil, cfg, func(o *Options) { o.StateDir = state2 })
	th2.waitAsleep(t, "s")
	cs2 := gwClient(t, th2, gateway.Filter{}, "", nil)
	if got := gwTools(t, cs2); !slices.Equal(got, []string{"s__alpha", "s__beta"}) {
		t.Fatalf("tools from the new host: %v", got)
	}
	if pids := th2.startedPIDs(t, "s"); len(pids) != 0 {
		t.Fatalf("the new host started the sleeping server: pids %v", pids)
	}
}

// runs counts the runs of a manager's server, from its kept stderr.
func runs(t *testing.T, m *Manager, name string) int {
	t.Helper()
	ring, err := m.Logs(name)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range ring.Lines() {
		if startedRe.MatchString(l) {
			n++
		}
	}
	return n
}

func waitSleeping(t *testing.T, m *Manager, name string) {
	t.Helper()
	waitStatus(t, m, name, "sleeping", func(st hostapi.ServerStatus) bool { return st.State == hostapi.StateSleeping && st.PID == 0 })
}

// TestSleepReloadAndControls: changing start or idleStop restarts nothing
// (a running server made on-demand runs until idle, a sleeping one made
// "always" starts); a "start" typo runs the entry as "always"; Stop makes
// a sleeping server one the user stopped (a call does not wake it), Start
// wakes it until it is idle again.
func TestSleepReloadAndControls(t *testing.T) {
	// The directories first: cleanups run last-in first-out, so the
	// manager (made after them) is closed before they are removed, and no
	// late cache write races their removal (CI saw "directory not empty").
	lists := t.TempDir()
	tools := filepath.Join(t.TempDir(), "tools")
	m, _ := newManager(t, nil)
	m.listsDir = lists
	writeTools(t, tools, "alpha")
	onDemand := sleepyEntry(tools, "3600000")
	always := with(onDemand, "start", "always")

	m.Apply(configs(t, map[string]any{"s": always}))
	pid := waitRunning(t, m, "s").PID
	if _, _, changed := m.Apply(configs(t, map[string]any{"s": onDemand})); len(changed) != 0 {
		t.Fatalf("always -> on-demand changed %v: a restart", changed)
	}
	waitSleeping(t, m, "s")
	testkit.Eventually(t, fmt.Sprintf("pid %d has exited while the server sleeps", pid), func() bool { return testkit.Gone(pid) })
	if n := runs(t, m, "s"); n != 1 {
		t.Fatalf("%d runs, want the one that ran until idle", n)
	}
	if _, _, changed := m.Apply(configs(t, map[string]any{"s": always})); len(changed) != 0 {
		t.Fatalf("on-demand -> always changed %v", changed)
	}
	waitRunning(t, m, "s")
	if _, _, changed := m.Apply(configs(t, map[string]any{"s": with(onDemand, "idleStop", 2000)})); len(changed) != 0 {
		t.Fatalf("a new idleStop changed %v", changed)
	}
	waitSleeping(t, m, "s")

	// A changed entry (another fingerprint) has no cache: it is started
	// once to learn its lists, then sleeps.
	before := runs(t, m, "s")
	if _, _, changed := m.Apply(configs(t, map[string]any{"s": with(with(onDemand, "idleStop", 2000), "args", []string{"changed"})})); !slices.Equal(changed, []string{"s"}) {
		t.Fatalf("a changed entry: changed %v", changed)
	}
	waitStatus(t, m, "s", "a learning run", func(hostapi.ServerStatus) bool { return runs(t, m, "s") == before+1 })
	waitSleeping(t, m, "s")

	// A typo: "always", and the entry is valid.
	c := configs(t, map[string]any{"s": with(onDemand, "start", "on-demand ")})
	if c[0].OnDemand || len(c[0].Problems) != 0 {
		t.Fatalf("typo: on demand %v, problems %v; want always, no problem", c[0].OnDemand, c[0].Problems)
	}

	// Stop: user-stopped, not sleeping; a call does not wake it.
	done, err := m.StopServer("s")
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if st, _ := statusOf(m, "s"); st.State != hostapi.StateStopped || !st.UserStopped {
		t.Fatalf("after Stop: %+v", st)
	}
	before = runs(t, m, "s")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var he *hostapi.Error
	if _, err := m.Call(ctx, "s", "alpha", nil); !errors.As(err, &he) || he.Code != hostapi.CodeNotRunning {
		t.Fatalf("a call to the stopped server: %v, want not running", err)
	}
	if n := runs(t, m, "s"); n != before {
		t.Fatalf("the call started the stopped server")
	}
	// Start: it runs, then sleeps when idle.
	if err := m.StartServer("s"); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, m, "s")
	waitSleeping(t, m, "s")
	// A call through the manager (servers.call) wakes it too.
	if got := callText(t, m, "s", "alpha", nil); got != "alpha ok" {
		t.Fatalf("call: %q", got)
	}
}

// TestSleepStaleCache: a cache whose ttlMs has passed (here 0: stale at
// once, as the protocol says) is served, but the server is started once
// to refresh it when the entry is applied; a fresh one is not.
func TestSleepStaleCache(t *testing.T) {
	lists := t.TempDir()
	tools := filepath.Join(t.TempDir(), "tools")
	writeTools(t, tools, "alpha")
	for _, ttl := range []string{"0", "3600000"} {
		entry := map[string]any{"s": sleepyEntry(tools, ttl)}
		m1, _ := newManager(t, nil)
		m1.listsDir = lists
		m1.Apply(configs(t, entry))
		waitSleeping(t, m1, "s")
		m1.StopAll()

		m2, _ := newManager(t, nil)
		m2.listsDir = lists
		m2.Apply(configs(t, entry))
		if ttl == "0" {
			waitStatus(t, m2, "s", "a refresh run", func(hostapi.ServerStatus) bool { return runs(t, m2, "s") == 1 })
			waitSleeping(t, m2, "s")
			continue
		}
		s, _ := m2.get("s")
		s.cacheMu.Lock()
		learning := s.learning
		s.cacheMu.Unlock()
		if learning {
			t.Fatalf("ttl %s: the fresh cache is learnt again", ttl)
		}
		if st, _ := statusOf(m2, "s"); st.State != hostapi.StateSleeping || st.Tools != 1 {
			t.Fatalf("ttl %s: %+v, want asleep with its cached tool", ttl, st)
		}
		if n := runs(t, m2, "s"); n != 0 {
			t.Fatalf("ttl %s: %d runs, want none", ttl, n)
		}
	}
}
