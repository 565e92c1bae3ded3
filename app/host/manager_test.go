//go:build linux

package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// wait bounds every wait for a server to reach a state: generous, since
// nothing here measures speed.
const wait = 30 * time.Second

// helperEntry is a config entry that runs this test binary as a helper.
// GORACE: a binary built with -race sleeps a second at exit by default.
func helperEntry(role, mark string) map[string]any {
	return map[string]any{
		"command":    testExe,
		"env":        map[string]string{helperEnv: role, markEnv: mark, "GORACE": "atexit_sleep_ms=0"},
		"stdinGrace": 1000,
		"termGrace":  1000,
	}
}

// with returns a copy of entry with key set to v.
func with(entry map[string]any, key string, v any) map[string]any {
	out := map[string]any{}
	for k, x := range entry {
		out[k] = x
	}
	out[key] = v
	return out
}

// configs builds what the manager runs from a config file's mcpServers, as
// the host does: through config.Parse and ServerConfigs.
func configs(t testing.TB, servers map[string]any) []ServerConfig {
	t.Helper()
	b, err := json.Marshal(map[string]any{"version": 1, "mcpServers": servers})
	if err != nil {
		t.Fatal(err)
	}
	f, err := config.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfigs(f)
}

type events struct {
	mu   sync.Mutex
	list []string // "topic name state"
}

func (e *events) publish(topic string, data any) {
	b, _ := json.Marshal(data)
	e.mu.Lock()
	e.list = append(e.list, topic+" "+string(b))
	e.mu.Unlock()
}

func (e *events) all() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.list, "\n")
}

// newManager returns a manager whose servers restart quickly, and stops
// every server at the end of the test (failing it if that hangs).
func newManager(t *testing.T, store *secrets.Store) (*Manager, *events) {
	t.Helper()
	ev := &events{}
	var r engine.SecretResolver
	if store != nil {
		r = store
	}
	m := NewManager(ManagerOptions{
		Start: engine.StartOptions{Secrets: r},
		// The periodic retry of a secret is an hour away: only a secret set
		// or a start retries it here.
		Policy:  supervisor.Policy{Initial: 50 * time.Millisecond, Max: 500 * time.Millisecond, SecretRetry: time.Hour},
		Version: "test",
		Publish: ev.publish,
	})
	t.Cleanup(func() {
		pids := map[string]int{}
		for _, st := range m.Status() {
			if st.PID != 0 {
				pids[st.Name] = st.PID
			}
		}
		done := make(chan struct{})
		go func() { m.StopAll(); close(done) }()
		select {
		case <-done:
		case <-time.After(wait):
			t.Errorf("StopAll did not return within %v", wait)
			return
		}
		for name, pid := range pids {
			if !testkit.Gone(pid) {
				t.Errorf("server %s (pid %d) still runs after StopAll returned", name, pid)
			}
		}
	})
	return m, ev
}

func statusOf(m *Manager, name string) (hostapi.ServerStatus, bool) {
	for _, st := range m.Status() {
		if st.Name == name {
			return st, true
		}
	}
	return hostapi.ServerStatus{}, false
}

// waitStatus waits until the server's status satisfies cond.
func waitStatus(t *testing.T, m *Manager, name, what string, cond func(hostapi.ServerStatus) bool) hostapi.ServerStatus {
	t.Helper()
	var st hostapi.ServerStatus
	testkit.Eventually(t, fmt.Sprintf("server %s: %s", name, what), func() (bool, string) {
		var ok bool
		st, ok = statusOf(m, name)
		if !ok {
			return false, "not in the manager"
		}
		b, _ := json.Marshal(st)
		return cond(st), string(b)
	})

	return st
}

func waitRunning(t *testing.T, m *Manager, name string) hostapi.ServerStatus {
	t.Helper()
	return waitStatus(t, m, name, "running", func(st hostapi.ServerStatus) bool { return st.State == "running" && st.PID != 0 })
}

func toolNames(t *testing.T, m *Manager, name string) []string {
	t.Helper()
	tools, err := m.Tools(name)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	sort.Strings(names)
	return names
}

func waitTools(t *testing.T, m *Manager, name string, want ...string) {
	t.Helper()
	sort.Strings(want)
	testkit.Eventually(t, fmt.Sprintf("server %s: tools %v", name, want), func() (bool, string) {
		got := toolNames(t, m, name)
		return slices.Equal(got, want), fmt.Sprint(got)
	})

}

func callText(t *testing.T, m *Manager, name, tool string, args any) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := m.Call(ctx, name, tool, args)
	if err != nil {
		t.Fatalf("calling %s.%s: %v", name, tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// TestManagerListChangedModern: a go-sdk server of the 2026-07-28 era adds
// a tool, a prompt and a resource at run time; the manager's caches follow
// through the list_changed notifications (which the go-sdk client only
// subscribes to when the handlers are set before Connect), without a
// restart.
func TestManagerListChangedModern(t *testing.T) {
	m, ev := newManager(t, nil)
	added, removed, changed := m.Apply(configs(t, map[string]any{"grow": helperEntry("modern", "m")}))
	if !slices.Equal(added, []string{"grow"}) || len(removed)+len(changed) != 0 {
		t.Fatalf("Apply = %v %v %v", added, removed, changed)
	}
	st := waitRunning(t, m, "grow")
	if st.Era != supervisor.EraModern {
		t.Fatalf("era %q, want %q (protocol %s)", st.Era, supervisor.EraModern, st.ProtocolVersion)
	}
	tools := []string{"echo", "grow", "grow-prompt", "grow-resource", "sleep"}
	waitTools(t, m, "grow", tools...)
	st = waitStatus(t, m, "grow", "one prompt and one resource cached", func(s hostapi.ServerStatus) bool { return s.Prompts == 1 && s.Resources == 1 })
	pid := st.PID

	if got := callText(t, m, "grow", "grow", map[string]any{}); got != "grew" {
		t.Fatalf("grow returned %q", got)
	}
	waitTools(t, m, "grow", append(tools, "grown")...)
	if !strings.Contains(ev.all(), `"tools":6`) {
		t.Errorf("no server.tools event with the new count:\n%s", ev.all())
	}
	callText(t, m, "grow", "grow-prompt", nil)
	waitStatus(t, m, "grow", "the grown prompt cached", func(s hostapi.ServerStatus) bool { return s.Prompts == 2 })
	callText(t, m, "grow", "grow-resource", nil)
	st = waitStatus(t, m, "grow", "the grown resource cached", func(s hostapi.ServerStatus) bool { return s.Resources == 2 })
	if st.PID != pid || st.Restarts != 0 || st.Tools != 6 || st.Prompts != 2 {
		t.Fatalf("after the refreshes: pid %d -> %d, restarts %d, tools %d, prompts %d", pid, st.PID, st.Restarts, st.Tools, st.Prompts)
	}
	if got := callText(t, m, "grow", "grown", nil); got != "grown" {
		t.Fatalf("the grown tool returned %q", got)
	}
}

// TestManagerListChangedLegacy: the same with a hand-written server of the
// 2025-11-25 era, which sends notifications/tools/list_changed itself.
func TestManagerListChangedLegacy(t *testing.T) {
	m, _ := newManager(t, nil)
	m.Apply(configs(t, map[string]any{"old": helperEntry("legacy", "l")}))
	st := waitRunning(t, m, "old")
	if st.Era != supervisor.EraLegacy {
		t.Fatalf("era %q, want %q", st.Era, supervisor.EraLegacy)
	}
	waitTools(t, m, "old", "echo", "grow")
	if got := callText(t, m, "old", "grow", nil); got != "grew" {
		t.Fatalf("grow returned %q", got)
	}
	waitTools(t, m, "old", "echo", "grow", "grown")
	if st2, _ := statusOf(m, "old"); st2.PID != st.PID {
		t.Fatalf("the refresh restarted the server: pid %d -> %d", st.PID, st2.PID)
	}
}

// TestManagerListChangedEverything: server-everything (legacy era, a real
// server no one here wrote) registers a session resource when its
// gzip-file-as-resource tool runs, and sends resources/list_changed.
func TestManagerListChangedEverything(t *testing.T) {
	bin := testkit.NpmServer(t, "mcp-server-everything")
	m, _ := newManager(t, nil)
	m.Apply(configs(t, map[string]any{"everything": map[string]any{"command": bin, "stdinGrace": 2000, "termGrace": 1000}}))
	st := waitRunning(t, m, "everything")
	if st.Era != supervisor.EraLegacy {
		t.Fatalf("era %q, want %q", st.Era, supervisor.EraLegacy)
	}
	st = waitStatus(t, m, "everything", "tools and resources cached", func(s hostapi.ServerStatus) bool { return s.Tools > 0 && s.Resources > 0 })
	before := st.Resources
	if !slices.Contains(toolNames(t, m, "everything"), "gzip-file-as-resource") {
		t.Fatalf("server-everything has no gzip-file-as-resource tool: %v", toolNames(t, m, "everything"))
	}
	callText(t, m, "everything", "gzip-file-as-resource", map[string]any{
		"name": "switchboard-test.gz", "data": "data:text/plain;base64,aGVsbG8=", "outputType": "resourceLink"})
	st = waitStatus(t, m, "everything", fmt.Sprintf("%d resources (one more)", before+1), func(s hostapi.ServerStatus) bool { return s.Resources == before+1 })
	t.Logf("resources: %d -> %d after resources/list_changed; tools %d, prompts %d", before, st.Resources, st.Tools, st.Prompts)
}

// TestManagerCallTimeout: a call that outlives callTimeout is cancelled,
// and its error names the server and the timeout; the server keeps running.
func TestManagerCallTimeout(t *testing.T) {
	m, _ := newManager(t, nil)
	m.Apply(configs(t, map[string]any{"slow": with(helperEntry("modern", "s"), "callTimeout", 300)}))
	st := waitRunning(t, m, "slow")
	start := time.Now()
	_, err := m.Call(context.Background(), "slow", "sleep", map[string]any{"ms": 120000})
	took := time.Since(start)
	if err == nil {
		t.Fatal("a call that sleeps 2 minutes returned no error with callTimeout 300 ms")
	}
	for _, want := range []string{`server "slow"`, `"sleep"`, "300ms", "callTimeout", "cancelled"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if took > 20*time.Second {
		t.Fatalf("the call returned after %v", took)
	}
	t.Logf("the call failed after %v: %v", took.Round(time.Millisecond), err)
	// The server got the cancellation and still serves.
	logs, _ := m.Logs("slow")
	testkit.Eventually(t, "the helper reports the cancelled sleep on stderr", func() (bool, string) {
		l := logs.Lines()
		return slices.Contains(l, "modern helper: sleep cancelled"), strings.Join(l, " | ")
	})

	if got := callText(t, m, "slow", "echo", map[string]any{"message": "after"}); got != "echo: after s" {
		t.Fatalf("echo after the timeout: %q", got)
	}
	if st2, _ := statusOf(m, "slow"); st2.PID != st.PID {
		t.Fatalf("the timeout restarted the server: pid %d -> %d", st.PID, st2.PID)
	}

	// The caller's own cancellation is not reported as a callTimeout.
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	m.Apply(configs(t, map[string]any{"slow": helperEntry("modern", "s")})) // default callTimeout: 5 minutes
	waitRunning(t, m, "slow")
	_, err = m.Call(ctx, "slow", "sleep", map[string]any{"ms": 120000})
	if err == nil || strings.Contains(err.Error(), "callTimeout") || !strings.Contains(err.Error(), `server "slow"`) {
		t.Fatalf("a call cancelled by its caller: %v", err)
	}
}

// TestManagerCallNotRunning: calls to a stopped, an unknown or an invalid
// server fail with an error that names the server and its state.
func TestManagerCallNotRunning(t *testing.T) {
	m, _ := newManager(t, nil)
	m.Apply(configs(t, map[string]any{
		"a":   helperEntry("modern", "a"),
		"bad": with(helperEntry("modern", "bad"), "cwd", "/no/such/dir/anywhere"),
	}))
	st := waitRunning(t, m, "a")
	done, err := m.StopServer("a")
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("the stop ladder did not finish")
	}
	if !testkit.Gone(st.PID) {
		t.Fatalf("pid %d still runs after its stop ladder finished", st.PID)
	}
	_, err = m.Call(context.Background(), "a", "echo", map[string]any{"message": "x"})
	if err == nil || !strings.Contains(err.Error(), `server "a" is stopped`) || !strings.Contains(err.Error(), "switchboard servers start a") {
		t.Fatalf("call to a stopped server: %v", err)
	}
	if _, err := m.Tools("a"); err == nil || !strings.Contains(err.Error(), `server "a" is stopped`) {
		t.Fatalf("tools of a stopped server: %v", err)
	}
	_, err = m.Call(context.Background(), "nope", "echo", nil)
	if !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), `"nope"`) || strings.Contains(err.Error(), "did you mean") {
		t.Fatalf("call to an unknown server: %v", err)
	}
	_, err = m.Call(context.Background(), "bda", "echo", nil)
	if !errors.Is(err, ErrNoServer) || !strings.Contains(err.Error(), `"bda" is not in the config (did you mean "bad"?)`) {
		t.Fatalf("call to a misspelled server: %v", err)
	}
	// Failed for good: says so once (the engine's error names the server
	// too), and what to do before a start.
	m.Apply(configs(t, map[string]any{
		"a":    helperEntry("modern", "a"),
		"bad":  with(helperEntry("modern", "bad"), "cwd", "/no/such/dir/anywhere"),
		"gone": map[string]any{"command": "/no/such/program", "maxReconnects": 0},
	}))
	waitStatus(t, m, "gone", "failed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateFailed })
	_, err = m.Call(context.Background(), "gone", "echo", nil)
	if want := `server "gone" has failed (command "/no/such/program" cannot be run (`; err == nil || !strings.Contains(err.Error(), want) ||
		!strings.HasSuffix(err.Error(), "and is not restarted any more: fix it, then start it with 'switchboard servers start gone'") {
		t.Fatalf("call to a failed server: %v, want it to say %q, and what to do", err, want)
	}
	_, err = m.Call(context.Background(), "bad", "echo", nil)
	if err == nil || !strings.Contains(err.Error(), `server "bad" is invalid`) {
		t.Fatalf("call to an invalid server: %v", err)
	}
	if err := m.StartServer("bad"); err == nil || !strings.Contains(err.Error(), "cwd") {
		t.Fatalf("starting an invalid server: %v", err)
	}
}

// TestManagerApply: a reload touches only what changed.
func TestManagerApply(t *testing.T) {
	m, _ := newManager(t, nil)
	a, b, c, d := helperEntry("modern", "a"), helperEntry("modern", "b"), helperEntry("modern", "c"), helperEntry("legacy", "d")
	added, removed, changed := m.Apply(configs(t, map[string]any{"a": a, "b": b, "c": c}))
	if !slices.Equal(added, []string{"a", "b", "c"}) || len(removed)+len(changed) != 0 {
		t.Fatalf("first Apply = %v %v %v", added, removed, changed)
	}
	sta := waitRunning(t, m, "a")
	pa, pb, pc := sta.PID, waitRunning(t, m, "b").PID, waitRunning(t, m, "c").PID

	// a untouched, b changed, c removed, d added.
	b2 := helperEntry("modern", "b2")
	added, removed, changed = m.Apply(configs(t, map[string]any{"a": a, "b": b2, "d": d}))
	if !slices.Equal(added, []string{"d"}) || !slices.Equal(removed, []string{"c"}) || !slices.Equal(changed, []string{"b"}) {
		t.Fatalf("second Apply = added %v removed %v changed %v", added, removed, changed)
	}
	stb := waitStatus(t, m, "b", "restarted with a new pid", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.PID != 0 && s.PID != pb })
	if got := callText(t, m, "b", "echo", map[string]any{"message": "x"}); got != "echo: x b2" {
		t.Fatalf("b after the change runs the old entry: %q", got)
	}
	pd := waitRunning(t, m, "d").PID
	testkit.Eventually(t, fmt.Sprintf("removed server c (pid %d) gone", pc), func() (bool, string) { return testkit.Gone(pc), "still there" })
	if _, ok := statusOf(m, "c"); ok {
		t.Fatal("c is still listed after its removal")
	}
	// Restarts as it was once a ran: a first start that failed on a
	// loaded machine (a probe answered late) counts one, and that is not
	// the reload's doing.
	if st, _ := statusOf(m, "a"); st.PID != pa || st.State != "running" || st.Restarts != sta.Restarts {
		t.Fatalf("untouched a: pid %d -> %d, state %s, restarts %d -> %d", pa, st.PID, st.State, sta.Restarts, st.Restarts)
	}
	// A run's "started" line is kept by a goroutine that follows the new
	// process's stderr: it may come after the state says running.
	testkit.Eventually(t, "b's kept stderr has the start of both its runs", func() (bool, string) {
		logs, _ := m.Logs("b")
		for _, pid := range []int{pb, stb.PID} {
			if !slices.Contains(logs.Lines(), fmt.Sprintf("--- started, pid %d ---", pid)) {
				return false, fmt.Sprintf("no start of pid %d in %q", pid, logs.Lines())
			}
		}
		return true, ""
	})

	// a becomes invalid: the running one is kept, the problem reported.
	badA := with(a, "cwd", "/no/such/dir/anywhere")
	added, removed, changed = m.Apply(configs(t, map[string]any{"a": badA, "b": b2, "d": d}))
	if len(added)+len(removed)+len(changed) != 0 {
		t.Fatalf("Apply with an invalid a = %v %v %v", added, removed, changed)
	}
	st, _ := statusOf(m, "a")
	if st.PID != pa || st.State != "running" || len(st.Problems) == 0 || st.Problems[0].Server != "a" || st.Problems[0].Key != "cwd" {
		t.Fatalf("invalid a: want the old one running (pid %d) with the problem reported, got %+v", pa, st)
	}
	// Fixed again, identical to what runs: nothing restarts, the problem goes.
	added, removed, changed = m.Apply(configs(t, map[string]any{"a": a, "b": b2, "d": d}))
	if len(added)+len(removed)+len(changed) != 0 {
		t.Fatalf("Apply with a fixed = %v %v %v", added, removed, changed)
	}
	if st, _ := statusOf(m, "a"); st.PID != pa || len(st.Problems) != 0 {
		t.Fatalf("a fixed: pid %d -> %d, problems %v", pa, st.PID, st.Problems)
	}

	// A server the user stopped stays stopped across reloads, changed or not.
	pb2 := stb.PID
	done, err := m.StopServer("b")
	if err != nil {
		t.Fatal(err)
	}
	<-done
	if !testkit.Gone(pb2) {
		t.Fatalf("b (pid %d) runs after its stop", pb2)
	}
	b3, d2 := helperEntry("modern", "b3"), helperEntry("legacy", "d2")
	_, _, changed = m.Apply(configs(t, map[string]any{"a": a, "b": b3, "d": d2}))
	if !slices.Equal(changed, []string{"b", "d"}) {
		t.Fatalf("changed = %v", changed)
	}
	// d restarting is the sign that the reload has been applied.
	waitStatus(t, m, "d", "restarted", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.PID != 0 && s.PID != pd })
	if st, _ := statusOf(m, "b"); st.State != "stopped" || st.PID != 0 || !st.UserStopped {
		t.Fatalf("user-stopped b after a reload that changed it: %+v", st)
	}
	m.Apply(configs(t, map[string]any{"a": a, "b": b3, "d": d2}))
	if st, _ := statusOf(m, "b"); st.State != "stopped" || !st.UserStopped {
		t.Fatalf("user-stopped b after a reload that did not change it: %+v", st)
	}
	if err := m.StartServer("b"); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, m, "b")
	if got := callText(t, m, "b", "echo", map[string]any{"message": "y"}); got != "echo: y b3" {
		t.Fatalf("b started again runs %q, want the entry of the last reload", got)
	}

	// Disabled in the file: stopped; enabled again: running.
	pd2, _ := statusOf(m, "d")
	_, _, changed = m.Apply(configs(t, map[string]any{"a": a, "b": b3, "d": with(d2, "disabled", true)}))
	if !slices.Equal(changed, []string{"d"}) {
		t.Fatalf("changed = %v", changed)
	}
	waitStatus(t, m, "d", "disabled", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateDisabled && s.PID == 0 })
	testkit.Eventually(t, "disabled d gone", func() (bool, string) { return testkit.Gone(pd2.PID), "still there" })
	if err := m.StartServer("d"); err == nil || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("starting a disabled server: %v", err)
	}
	m.Apply(configs(t, map[string]any{"a": a, "b": b3, "d": d2}))
	waitRunning(t, m, "d")

	// An entry that was never valid becomes valid: it starts.
	bad := with(helperEntry("modern", "e"), "stderr", "nowhere")
	added, _, _ = m.Apply(configs(t, map[string]any{"a": a, "b": b3, "d": d2, "e": bad}))
	if !slices.Equal(added, []string{"e"}) {
		t.Fatalf("added = %v", added)
	}
	if st, _ := statusOf(m, "e"); st.State != hostapi.StateInvalid || len(st.Problems) == 0 {
		t.Fatalf("invalid e: %+v", st)
	}
	_, _, changed = m.Apply(configs(t, map[string]any{"a": a, "b": b3, "d": d2, "e": helperEntry("modern", "e")}))
	if !slices.Equal(changed, []string{"e"}) {
		t.Fatalf("changed = %v", changed)
	}
	waitRunning(t, m, "e")
	if st, _ := statusOf(m, "a"); st.PID != pa {
		t.Fatalf("a restarted along the way: pid %d -> %d", pa, st.PID)
	}
}

// TestManagerSecrets: a server whose env refers to a missing secret waits
// for it, with an error that names the variable and the secret; setting it
// starts the server with the value in its environment, and changing it
// restarts the server. The value is in no status.
func TestManagerSecrets(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	m, ev := newManager(t, store)
	entry := helperEntry("modern", "sec")
	entry["env"].(map[string]string)["TOKEN"] = "Bearer ${keyring:tok}"
	m.Apply(configs(t, map[string]any{"sec": entry, "plain": helperEntry("modern", "plain")}))
	st := waitStatus(t, m, "sec", "waiting for secret", func(s hostapi.ServerStatus) bool { return s.State == hostapi.State(supervisor.WaitingSecret) })
	for _, want := range []string{"env.TOKEN", `secret "tok"`, "switchboard secret set tok"} {
		if !strings.Contains(st.LastError, want) {
			t.Errorf("waiting error %q lacks %q", st.LastError, want)
		}
	}
	if !slices.Equal(st.Secrets, []string{"tok"}) {
		t.Errorf("status secrets = %v", st.Secrets)
	}
	plain := waitRunning(t, m, "plain").PID

	const v1, v2 = "first-SECRET-value-1", "second-SECRET-value-2"
	if err := store.Set("tok", secrets.New(v1)); err != nil {
		t.Fatal(err)
	}
	if got := m.SecretChanged("tok"); !slices.Equal(got, []string{"sec"}) {
		t.Fatalf("SecretChanged = %v", got)
	}
	p1 := waitRunning(t, m, "sec").PID
	if env := testkit.Environ(t, p1); !slices.Contains(env, "TOKEN=Bearer "+v1) {
		t.Fatalf("the server's environment lacks the secret: %q", env)
	}
	if err := store.Set("tok", secrets.New(v2)); err != nil {
		t.Fatal(err)
	}
	m.SecretChanged("tok")
	p2 := waitStatus(t, m, "sec", "restarted", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.PID != 0 && s.PID != p1 }).PID
	if env := testkit.Environ(t, p2); !slices.Contains(env, "TOKEN=Bearer "+v2) {
		t.Fatalf("the restarted server's environment lacks the new value: %q", env)
	}
	if st, _ := statusOf(m, "plain"); st.PID != plain {
		t.Fatalf("a server that does not use the secret restarted: pid %d -> %d", plain, st.PID)
	}
	b, _ := json.Marshal(m.Status())
	for _, v := range []string{v1, v2} {
		if strings.Contains(string(b), v) || strings.Contains(ev.all(), v) {
			t.Fatalf("a secret value is in the status or the events")
		}
	}
}

// TestManagerStartRetriesSecret: 'servers start' on a server that waits
// for a secret tries it again at once (the waiting error tells the user to
// run it), here after the secret was stored behind the host's back.
func TestManagerStartRetriesSecret(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	m, _ := newManager(t, store)
	entry := helperEntry("modern", "sec")
	entry["env"].(map[string]string)["TOKEN"] = "${keyring:tok}"
	m.Apply(configs(t, map[string]any{"sec": entry}))
	st := waitStatus(t, m, "sec", "waiting for secret", func(s hostapi.ServerStatus) bool { return s.State == hostapi.State(supervisor.WaitingSecret) })
	if !strings.Contains(st.LastError, "start the server again") {
		t.Errorf("the waiting error %q does not say to start the server", st.LastError)
	}
	if err := store.Set("tok", secrets.New("v")); err != nil {
		t.Fatal(err)
	}
	if err := m.StartServer("sec"); err != nil {
		t.Fatal(err)
	}
	waitRunning(t, m, "sec")
}

// TestManagerRedactsSecrets: what the host shows a person of a server has
// the secrets the server was given redacted, as the activity log has: a
// servers.call's result (the window's Try it, 'switchboard call'), its
// stderr (logs, the Logs tab) and its status's stderr lines; the secret
// still reaches the server.
func TestManagerRedactsSecrets(t *testing.T) {
	const value = "s3cret-tok-value"
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	if err := store.Set("tok", secrets.New(value)); err != nil {
		t.Fatal(err)
	}
	m, _ := newManager(t, store)
	entry := helperEntry("modern", "")
	entry["env"].(map[string]string)[markEnv] = "${keyring:tok}" // echo reports it
	m.Apply(configs(t, map[string]any{"sec": entry}))
	waitRunning(t, m, "sec")
	if got := callText(t, m, "sec", "echo", map[string]any{"message": "hi"}); got != "echo: hi [secret tok]" {
		t.Errorf("the call's result is %q, want the secret redacted", got)
	}
	// The helper says its mark on stderr as it starts.
	ring, err := m.Logs("sec")
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the helper's stderr line in the server's logs", func() bool {
		return slices.ContainsFunc(ring.Lines(), func(l string) bool { return strings.Contains(l, "modern helper: serving") })
	})
	for _, l := range ring.Lines() {
		if strings.Contains(l, value) {
			t.Errorf("a stderr line shows the secret: %q", l)
		} else if strings.Contains(l, "modern helper: serving") && !strings.Contains(l, "[secret tok]") {
			t.Errorf("the stderr line %q does not say which secret was redacted", l)
		}
	}

	// A server that fails quoting its secret: an unknown helper role
	// (here the secret) is said on stderr, and the helper exits.
	bad := with(helperEntry("", ""), "maxReconnects", 0)
	bad["env"].(map[string]string)[helperEnv] = "${keyring:tok}"
	m.Apply(configs(t, map[string]any{"sec": entry, "bad": bad}))
	st := waitStatus(t, m, "bad", "failed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.State(supervisor.Failed) })
	all := st.LastError + "\n" + strings.Join(st.Stderr, "\n")
	if strings.Contains(all, value) || !strings.Contains(strings.Join(st.Stderr, "\n"), `unknown helper "[secret tok]"`) {
		t.Errorf("the failed server's status shows %q, want its secret redacted", all)
	}
}

// TestManagerChangedEntryRestartsFailed: a server that gave up (failed)
// starts again when its entry changes, with the count reset and the old
// stderr gone (the docs' promise: a changed entry resets the count); a
// failed server the user stopped stays stopped.
func TestManagerChangedEntryRestartsFailed(t *testing.T) {
	m, _ := newManager(t, nil)
	// An unknown role: the helper says so on stderr and exits 99 at once.
	broken := with(helperEntry("no-such-role", "old"), "maxReconnects", 0)
	m.Apply(configs(t, map[string]any{"f": broken, "g": broken}))
	for _, name := range []string{"f", "g"} {
		st := waitStatus(t, m, name, "failed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.State(supervisor.Failed) })
		if !strings.Contains(strings.Join(st.Stderr, "\n"), "unknown helper") {
			t.Fatalf("%s failed with stderr %q, want the helper's complaint", name, st.Stderr)
		}
	}
	done, err := m.StopServer("g")
	if err != nil {
		t.Fatal(err)
	}
	<-done

	fixed := helperEntry("modern", "fixed")
	_, _, changed := m.Apply(configs(t, map[string]any{"f": fixed, "g": fixed}))
	if !slices.Equal(changed, []string{"f", "g"}) {
		t.Fatalf("changed = %v", changed)
	}
	st := waitRunning(t, m, "f")
	if st.Failures != 0 || st.LastError != "" || len(st.Stderr) != 0 {
		t.Errorf("f running again keeps its old failure: failures %d, error %q, stderr %q", st.Failures, st.LastError, st.Stderr)
	}
	if got := callText(t, m, "f", "echo", map[string]any{"message": "x"}); got != "echo: x fixed" {
		t.Fatalf("f runs %q, want the changed entry", got)
	}
	if st, _ := statusOf(m, "g"); st.PID != 0 || !st.UserStopped {
		t.Fatalf("g, failed then stopped by the user, after its entry changed: %+v", st)
	}
}

// A server that failed for good and is then disabled in the file is
// disabled, not failed: the user said not to run it, so its old failure no
// longer makes the tray red or the status ask for a fix; enabled again, it
// gets a new chance.
func TestManagerDisableFailed(t *testing.T) {
	m, ev := newManager(t, nil)
	broken := with(helperEntry("no-such-role", "old"), "maxReconnects", 0)
	m.Apply(configs(t, map[string]any{"f": broken}))
	first := waitStatus(t, m, "f", "failed", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateFailed })

	_, _, changed := m.Apply(configs(t, map[string]any{"f": with(broken, "disabled", true)}))
	if !slices.Equal(changed, []string{"f"}) {
		t.Fatalf("changed = %v", changed)
	}
	if st, _ := statusOf(m, "f"); st.State != hostapi.StateDisabled || !st.Disabled {
		t.Fatalf("f, failed and then disabled: state %q (disabled %v), want %q", st.State, st.Disabled, hostapi.StateDisabled)
	}
	var last string // the last state event of f
	for _, e := range strings.Split(ev.all(), "\n") {
		if strings.HasPrefix(e, hostapi.TopicState+" ") && strings.Contains(e, `"name":"f"`) {
			last = e
		}
	}
	if !strings.Contains(last, `"state":"disabled"`) {
		t.Fatalf("the last state event of f is %s, want it disabled", last)
	}

	m.Apply(configs(t, map[string]any{"f": broken}))
	waitStatus(t, m, "f", "failed anew once enabled", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateFailed && s.FailedAt.After(first.FailedAt)
	})
}

// An entry that turns invalid keeps its running predecessor, unless the
// same change disables it: `servers disable` (which writes only the flag)
// on an entry with a misspelled key, or a hand edit that adds both. The
// user asked for it not to run, and that stops nothing that should run.
func TestManagerDisableInvalid(t *testing.T) {
	m, _ := newManager(t, nil)
	d := helperEntry("modern", "d")
	m.Apply(configs(t, map[string]any{"d": d}))
	st := waitRunning(t, m, "d")

	// Only invalid: the predecessor keeps running.
	m.Apply(configs(t, map[string]any{"d": with(d, "comand", "x")}))
	if now, _ := statusOf(m, "d"); now.PID != st.PID || len(now.Problems) == 0 {
		t.Fatalf("d with a misspelled key: pid %d (was %d), problems %v", now.PID, st.PID, now.Problems)
	}
	// Invalid and disabled: stopped, shown disabled, its problems still said.
	m.Apply(configs(t, map[string]any{"d": with(with(d, "comand", "x"), "disabled", true)}))
	waitStatus(t, m, "d", "disabled", func(s hostapi.ServerStatus) bool {
		return s.State == hostapi.StateDisabled && s.PID == 0 && len(s.Problems) > 0
	})
	testkit.Eventually(t, "d's process gone after its entry was disabled", func() (bool, string) {
		return testkit.Gone(st.PID), fmt.Sprintf("pid %d runs", st.PID)
	})
	// Fixed, still disabled: stays stopped; enabled: runs.
	m.Apply(configs(t, map[string]any{"d": with(d, "disabled", true)}))
	if now, _ := statusOf(m, "d"); now.State != hostapi.StateDisabled || len(now.Problems) != 0 {
		t.Fatalf("d fixed and disabled: %+v", now)
	}
	m.Apply(configs(t, map[string]any{"d": d}))
	waitRunning(t, m, "d")

	// An entry with problems that never ran: invalid, or, disabled,
	// disabled with its problems.
	m.Apply(configs(t, map[string]any{"d": d, "n": with(d, "comand", "x")}))
	if st, _ := statusOf(m, "n"); st.State != hostapi.StateInvalid || len(st.Problems) == 0 {
		t.Fatalf("n, a new entry with a misspelled key: %+v", st)
	}
	m.Apply(configs(t, map[string]any{"d": d, "n": with(with(d, "comand", "x"), "disabled", true)}))
	if st, _ := statusOf(m, "n"); st.State != hostapi.StateDisabled || len(st.Problems) == 0 {
		t.Fatalf("n, a new entry with a misspelled key, disabled: %+v", st)
	}
	m.Apply(configs(t, map[string]any{"d": d, "n": with(d, "comand", "x")}))
	if st, _ := statusOf(m, "n"); st.State != hostapi.StateInvalid || st.Disabled {
		t.Fatalf("n enabled again, its key still misspelled: %+v", st)
	}
	// d disabled while invalid, then enabled while still invalid: not
	// disabled, and not running (nothing valid to run was asked for).
	m.Apply(configs(t, map[string]any{"d": with(with(d, "comand", "x"), "disabled", true)}))
	waitStatus(t, m, "d", "disabled", func(s hostapi.ServerStatus) bool { return s.State == hostapi.StateDisabled && s.PID == 0 })
	m.Apply(configs(t, map[string]any{"d": with(d, "comand", "x")}))
	if st, _ := statusOf(m, "d"); st.State == hostapi.StateDisabled || st.Disabled || st.PID != 0 || len(st.Problems) == 0 {
		t.Fatalf("d enabled again, its key still misspelled: %+v", st)
	}
}
