//go:build linux

package host

import (
	"encoding/json"

	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// warmManager is a manager whose servers see home as $HOME (so npm's cache
// is the test's own, and cold) and that remembers warmed entries in
// warmPath.
func warmManager(t *testing.T, home, warmPath string) *Manager {
	t.Helper()
	if _, err := exec.LookPath("npx"); err != nil {
		testkit.SkipOrFail(t, "npx is not installed (scripts/deps.sh installs Node.js)")
	}
	m := NewManager(ManagerOptions{
		Start:    engine.StartOptions{HostEnv: []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}},
		Policy:   supervisor.Policy{Initial: 50 * time.Millisecond, Max: 500 * time.Millisecond, SecretRetry: time.Hour},
		Version:  "test",
		WarmPath: warmPath,
	})
	t.Cleanup(m.StopAll)
	return m
}

func logText(t *testing.T, m *Manager, name string) string {
	t.Helper()
	r, err := m.Logs(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(r.Lines(), "\n")
}

// waitLong polls cond for up to limit: a package download's time depends
// on the network, so this wait is longer than the others.
func waitLong(t *testing.T, what string, limit time.Duration, cond func() (bool, string)) {
	t.Helper()
	testkit.EventuallyWithin(t, what, limit, cond)
}

// TestWarmFetchesBeforeFirstStart: an added npx entry, on a cold npm
// cache, is shown as "starting" with what it fetches; its package is
// fetched by a warm-up before the server's first start, which then does
// not fail; and the next manager (a host restart) does not fetch it again.
func TestWarmFetchesBeforeFirstStart(t *testing.T) {
	testkit.SkipShort(t, "a test that runs npx")
	home, state := t.TempDir(), t.TempDir()
	warmPath := filepath.Join(state, "warm.json")
	m := warmManager(t, home, warmPath)
	entry := map[string]any{"command": "npx", "args": []string{"-y", "@modelcontextprotocol/server-filesystem@2026.8.31", t.TempDir()}}
	m.Apply(configs(t, map[string]any{"fs": entry}))
	st, _ := statusOf(m, "fs")
	if st.Preparing != "fetching the npm package @modelcontextprotocol/server-filesystem@2026.8.31" || st.State != hostapi.StateStarting || st.PID != 0 {
		t.Fatalf("just after the add: state %q, pid %d, preparing %q; want starting, no process, fetching the package", st.State, st.PID, st.Preparing)
	}
	waitLong(t, "the warm-up ends", 5*time.Minute, func() (bool, string) {
		l := logText(t, m, "fs")
		return strings.Contains(l, "--- fetched ") || strings.Contains(l, "--- could not fetch"), l
	})
	if l := logText(t, m, "fs"); strings.Contains(l, "--- could not fetch") {
		testkit.SkipOrFail(t, "the npm registry could not be reached (CI reaches package registries):\n%s", l)
	}
	waitLong(t, "fs runs", 2*time.Minute, func() (bool, string) {
		st, _ := statusOf(m, "fs")
		b, _ := json.Marshal(st)
		return st.State == hostapi.StateRunning && st.Tools > 0, string(b)
	})
	st, _ = statusOf(m, "fs")
	if st.Failures != 0 || st.Restarts != 0 || st.Preparing != "" {
		t.Errorf("after the warm-up: %d failures, %d restarts, preparing %q; want a first start that worked", st.Failures, st.Restarts, st.Preparing)
	}
	l := logText(t, m, "fs")
	fetched, served := strings.Index(l, "--- fetched "), strings.Index(l, "Secure MCP Filesystem Server running on stdio")
	if fetched < 0 || served < 0 || served < fetched {
		t.Errorf("the server's own start should follow the fetch in its log:\n%s", l)
	}
	var warmed map[string]time.Time
	if b, err := os.ReadFile(warmPath); err != nil || json.Unmarshal(b, &warmed) != nil || len(warmed) != 1 {
		t.Fatalf("warm.json: %s, %v; want one warmed entry", b, err)
	}
	m.StopAll()

	// A host restart: the entry is warm, and starts at once.
	m2 := warmManager(t, home, warmPath)
	m2.Apply(configs(t, map[string]any{"fs": entry}))
	if st, _ := statusOf(m2, "fs"); st.Preparing != "" {
		t.Errorf("after a restart the warm entry is fetched again: %q", st.Preparing)
	}
	waitRunning(t, m2, "fs")
	if l := logText(t, m2, "fs"); strings.Contains(l, "fetching the npm package") {
		t.Errorf("after a restart the warm entry was fetched again:\n%s", l)
	}
}

// TestWarmFailureStartsAnyway: a package that cannot be fetched (here, a
// registry that refuses connections) is reported in the server's log, not
// remembered as warm, and the server is started anyway, so that its own
// failure is what the user sees.
func TestWarmFailureStartsAnyway(t *testing.T) {
	testkit.SkipShort(t, "a test that runs npx")
	home, state := t.TempDir(), t.TempDir()
	warmPath := filepath.Join(state, "warm.json")
	m := warmManager(t, home, warmPath)
	m.Apply(configs(t, map[string]any{"nope": map[string]any{
		"command": "npx", "args": []string{"--yes", "--registry=http://127.0.0.1:9/", "--fetch-retries=0", "@switchboard-test/nope@1.0.0"},
		"maxReconnects": 0,
	}}))
	if st, _ := statusOf(m, "nope"); st.Preparing == "" || st.State != hostapi.StateStarting {
		t.Fatalf("just after the add: state %q, preparing %q; want starting while fetching", st.State, st.Preparing)
	}
	waitLong(t, "the server's own start fails", 3*time.Minute, func() (bool, string) {
		st, _ := statusOf(m, "nope")
		b, _ := json.Marshal(st)
		return st.State == hostapi.StateFailed, string(b)
	})
	l := logText(t, m, "nope")
	if !strings.Contains(l, "--- could not fetch @switchboard-test/nope@1.0.0 (exit status") || !strings.Contains(l, "starting the server anyway") {
		t.Errorf("the log does not say the fetch failed:\n%s", l)
	}
	if st, _ := statusOf(m, "nope"); st.Failures == 0 || st.Preparing != "" {
		t.Errorf("the server was not started after the failed fetch: %+v", st)
	}
	if _, err := os.Stat(warmPath); !os.IsNotExist(err) {
		t.Errorf("a failed warm-up was remembered: %v", err)
	}
}

// TestWarmKeepsOldVersionServing: an entry changed to an npx package keeps
// its running process while the package is fetched, and is restarted on
// the new entry only once the fetch ended (here, failed at once: a
// registry that refuses connections).
func TestWarmKeepsOldVersionServing(t *testing.T) {
	testkit.SkipShort(t, "a test that runs npx")
	home, state := t.TempDir(), t.TempDir()
	m := warmManager(t, home, filepath.Join(state, "warm.json"))
	m.Apply(configs(t, map[string]any{"a": helperEntry("modern", "warm")}))
	old := waitRunning(t, m, "a")
	// A registry that accepts connections and never answers holds the
	// fetch, so that what runs meanwhile can be seen.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	m.Apply(configs(t, map[string]any{"a": map[string]any{
		"command": "npx", "args": []string{"--yes", "--registry=http://" + ln.Addr().String() + "/", "--fetch-retries=0", "--fetch-timeout=600000", "@switchboard-test/nope@1.0.0"},
		"maxReconnects": 0,
	}}))
	waitLong(t, "the fetch is under way", time.Minute, func() (bool, string) {
		return len(logText(t, m, "a")) > 0 && strings.Contains(logText(t, m, "a"), "--- fetching the npm package"), logText(t, m, "a")
	})
	// The fetch reached the registry, which holds it: nothing else
	// should change meanwhile.
	testkit.EventuallyWithin(t, "npm's request reached the registry", time.Minute, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(conns) > 0
	})
	st, _ := statusOf(m, "a")
	if st.PID != old.PID || st.State != hostapi.StateRunning || st.Preparing == "" {
		t.Fatalf("while the new package is fetched: state %q, pid %d (was %d), preparing %q; want the old process running", st.State, st.PID, old.PID, st.Preparing)
	}
	ln.Close() // the registry goes away: the fetch fails, the new entry starts
	mu.Lock()
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	waitLong(t, "the new entry replaced the old process", 3*time.Minute, func() (bool, string) {
		st, _ := statusOf(m, "a")
		b, _ := json.Marshal(st)
		return st.State == hostapi.StateFailed && st.Preparing == "", string(b)
	})
	if !testkit.Gone(old.PID) {
		t.Errorf("the old process %d still runs after the entry changed", old.PID)
	}
}
