//go:build unix

package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// The tests run real hosts (host.Run in this process, on temporary
// directories) whose servers are this test binary re-executed as a go-sdk
// MCP server. Only the tests import app/host: the package itself must
// not (internal/deptest).

const (
	helperEnv = "SWITCHBOARD_CLIENT_TEST_HELPER"
	wait      = 30 * time.Second
)

var testExe string

func TestMain(m *testing.M) {
	testkit.HelperMain(&testExe, helperEnv, map[string]func() int{"mcp": runMCP})
	os.Exit(m.Run())
}

// runMCP is a go-sdk MCP server with one tool, echo, that says so on
// stderr first.
func runMCP() int {
	fmt.Fprintln(os.Stderr, "client test server: serving")
	s := mcp.NewServer(&mcp.Implementation{Name: "client-test", Version: "1"}, nil)
	type echoArgs struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: a.Message}}}, nil, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "client test server:", err)
	}
	return 0
}

// helperEntry is a config entry that runs this test binary as the MCP
// server. GORACE: a binary built with -race sleeps a second at exit by
// default.
func helperEntry() map[string]any {
	return map[string]any{
		"command":    testExe,
		"env":        map[string]string{helperEnv: "mcp", "GORACE": "atexit_sleep_ms=0"},
		"stdinGrace": 1000,
		"termGrace":  1000,
	}
}

// dirs are one test's directories: every host of the test uses them, so
// that a second host takes the first one's place.
type dirs struct {
	root   string
	config string
	run    string
	socket string
}

// newDirs makes fresh directories; the socket's path must fit in 107
// bytes, hence a short root.
func newDirs(t *testing.T) dirs {
	t.Helper()
	t.Setenv("SHELL", "/bin/sh") // the host reads the login shell's PATH
	root, err := os.MkdirTemp("", "sbc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	d := dirs{root: root, config: filepath.Join(root, "cfg", "config.json"), run: filepath.Join(root, "run")}
	d.socket = filepath.Join(d.run, "host.sock")
	return d
}

// writeConfig writes the config file with these servers.
func (d dirs) writeConfig(t *testing.T, servers map[string]any) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(d.config), 0o700); err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(map[string]any{"version": 1, "mcpServers": servers}, "", "  ")
	if err := os.WriteFile(d.config, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// testHost is a host run by host.Run in this process.
type testHost struct {
	cancel context.CancelFunc
	done   chan error
}

// startHost runs a host on d and returns once its API serves. It is
// stopped at the end of the test if it still runs.
func startHost(t *testing.T, d dirs) *testHost {
	t.Helper()
	th, err := launchHost(t, d)
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// launchHost is startHost for a goroutine other than the test's (a
// StartHost hook): it returns its error instead of failing the test.
func launchHost(t *testing.T, d dirs) (*testHost, error) {
	opts := host.Options{ConfigPath: d.config, RuntimeDir: d.run, SocketPath: d.socket,
		LogPath: filepath.Join(d.root, "host.log"), Version: "test", GatewayHTTPPort: 0}
	opts.Policy.Initial = 50 * time.Millisecond
	opts.Policy.Max = 500 * time.Millisecond
	ready := make(chan struct{})
	opts.Ready = func() { close(ready) }
	ctx, cancel := context.WithCancel(context.Background())
	th := &testHost{cancel: cancel, done: make(chan error, 1)}
	go func() { th.done <- host.Run(ctx, opts) }()
	t.Cleanup(func() { th.stop(t) })
	select {
	case <-ready:
	case err := <-th.done:
		th.done <- err
		return nil, fmt.Errorf("host.Run returned before it was ready: %v", err)
	case <-time.After(wait):
		return nil, errors.New("the host was not ready in time")
	}
	return th, nil
}

// stop ends the host and waits for host.Run to return (every server
// stopped); a second stop returns at once.
func (th *testHost) stop(t *testing.T) {
	t.Helper()
	th.cancel()
	select {
	case err, ok := <-th.done:
		if ok {
			close(th.done)
			if err != nil {
				t.Errorf("host.Run: %v", err)
			}
		}
	case <-time.After(wait):
		t.Errorf("host.Run did not return within %v of its context's end", wait)
	}
}

// runLive runs a Live view until the end of the test.
func runLive(t *testing.T, o client.Options) *client.Live {
	t.Helper()
	l := client.New(o)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { l.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return l
}

// waitSnap waits for a wake-up of the view (never polling blindly) until
// its snapshot satisfies cond.
func waitSnap(t *testing.T, l *client.Live, what string, cond func(client.Snapshot) bool) client.Snapshot {
	t.Helper()
	ch, stop := l.Watch()
	defer stop()
	deadline := time.After(wait)
	for {
		s := l.Snapshot()
		if cond(s) {
			return s
		}
		select {
		case <-ch:
		case <-deadline:
			b, _ := json.Marshal(s)
			t.Fatalf("%s: not within %v; last snapshot: %s", what, wait, b)
		}
	}
}

// server returns a server's status in a snapshot, and whether it is there.
func server(s client.Snapshot, name string) (hostapi.ServerStatus, bool) {
	for _, st := range s.Servers {
		if st.Name == name {
			return st, true
		}
	}
	return hostapi.ServerStatus{}, false
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	t.Cleanup(cancel)
	return ctx
}
