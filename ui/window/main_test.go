package window

// The tests drive the window with Fyne's headless test driver against a
// real host (host.Run in this process, on temporary directories, with the
// in-memory keyring) through a real client.Live. The servers are helper
// processes: this test binary re-executed, its role chosen by helperEnv in
// TestMain (the engine passes a server only allowlisted variables and its
// entry's env, so the entries carry helperEnv).
//
// Widgets are only touched on the test's goroutine: the window's Do queues
// what other goroutines hand it, and the tests run the queue (pump).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-mcp/switchboard/app/client"
	"github.com/switchboard-mcp/switchboard/app/host"
	"github.com/switchboard-mcp/switchboard/app/host/hosttest"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

const (
	helperEnv = "SWITCHBOARD_WINDOW_TEST_HELPER" // "server": run the helper MCP server
	tokenEnv  = "HELPER_TOKEN"                   // the helper's "secret" tool reports it
	wait      = 30 * time.Second
)

var testExe string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ShimArg { // an in-process host's sandbox shim is this binary
		os.Exit(sandbox.ShimMain(os.Args[2:]))
	}
	if os.Getenv(helperEnv) == "server" {
		os.Exit(runHelper())
	}
	if os.Getenv(helperEnv) == "described" {
		os.Exit(runDescribed()) // review_test.go
	}
	if os.Getenv(helperEnv) == "asker" {
		os.Exit(runAsker()) // questions_test.go
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "cannot find the test binary:", err)
		os.Exit(2)
	}
	testExe = exe
	os.Exit(m.Run())
}

// runHelper is a go-sdk MCP server with the tools echo (a form: a
// required string, an integer and a boolean) and secret (no properties:
// raw JSON), which reports whether HELPER_TOKEN reached it. It writes a
// line to stderr at start and on each echo, for the logs view.
func runHelper() int {
	fmt.Fprintln(os.Stderr, "helper: serving")
	s := mcp.NewServer(&mcp.Implementation{Name: "window-test-helper", Version: "1"}, nil)
	type echoArgs struct {
		Message string `json:"message" jsonschema:"the text to send back"`
		Times   int    `json:"times,omitempty" jsonschema:"how many times"`
		Loud    bool   `json:"loud,omitempty" jsonschema:"upper case"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Sends the message back."}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		fmt.Fprintln(os.Stderr, "helper: echo", a.Message)
		out := strings.TrimSpace(strings.Repeat(a.Message+" ", max(1, a.Times)))
		if a.Loud {
			out = strings.ToUpper(out)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}}, nil, nil
	})
	s.AddTool(&mcp.Tool{Name: "secret", Description: "Tells whether HELPER_TOKEN is set.", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tokenEnv + "=" + os.Getenv(tokenEnv)}}}, nil
		})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "helper:", err)
	}
	return 0
}

// helperEntry is a config entry that runs the helper.
func helperEntry() map[string]any {
	return map[string]any{"command": testExe, "env": map[string]string{helperEnv: "server"}}
}

// uiQueue stands for the UI goroutine: Do queues, pump runs.
type uiQueue struct {
	mu  sync.Mutex
	fns []func()
}

func (q *uiQueue) do(f func()) {
	q.mu.Lock()
	q.fns = append(q.fns, f)
	q.mu.Unlock()
}

func (q *uiQueue) pump() {
	for {
		q.mu.Lock()
		fns := q.fns
		q.fns = nil
		q.mu.Unlock()
		if len(fns) == 0 {
			return
		}
		for _, f := range fns {
			f()
		}
	}
}

// harness is a host, a live view of it and a window over that view.
type harness struct {
	t     *testing.T
	opts  host.Options
	store *secrets.Store
	live  *client.Live
	q     *uiQueue
	w     *Window
}

// start runs a host on fresh directories with the servers of cfg, a
// client.Live connected to it, and a shown window; env is set first (the
// host reads SHELL and PATH at start). Everything stops with the test.
func start(t *testing.T, cfg map[string]any, env ...string) *harness {
	t.Helper()
	return startWith(t, cfg, nil, env...)
}

// startWith is start with options for the host (another keyring: its
// Secrets become the harness's store).
func startWith(t *testing.T, cfg map[string]any, opts []func(*host.Options), env ...string) *harness {
	t.Helper()
	t.Setenv("SHELL", "/bin/sh") // root's bash profile takes seconds here
	for i := 0; i+1 < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
	h := &harness{t: t, q: &uiQueue{}}
	th := hosttest.Start(t, cfg, opts...)
	h.opts, h.store = th.Opts, th.Opts.Secrets

	h.live = client.New(client.Options{Socket: h.opts.SocketPath})
	lctx, lcancel := context.WithCancel(context.Background())
	ldone := make(chan struct{})
	go func() { h.live.Run(lctx); close(ldone) }()
	t.Cleanup(func() { lcancel(); <-ldone })

	h.w = New(test.NewTempApp(t), h.live, Options{Do: h.q.do})
	h.w.Show()
	t.Cleanup(h.w.Close)
	h.until("the window is connected", func() bool { return h.w.snap.Connected })
	return h
}

// until runs the UI queue until cond holds, failing the test after wait.
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	testkit.Eventually(h.t, what, func() (bool, string) {
		h.q.pump()
		if cond() {
			return true, ""
		}
		return false, fmt.Sprintf("status line: %q; %s", h.w.statusLine.Text, h.describeAll())
	})
}

// call calls the host directly, as another client would.
func (h *harness) call(method func(ctx context.Context, c *client.Live) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return method(ctx, h.live)
}

// entry returns a server's entry as the host has it.
func (h *harness) entry(name string) map[string]any {
	h.t.Helper()
	var res hostapi.EntryResult
	if err := h.call(func(ctx context.Context, c *client.Live) (err error) {
		res.Entry, err = c.GetServer(ctx, name)
		return err
	}); err != nil {
		h.t.Fatalf("servers.get %s: %v", name, err)
	}
	var e map[string]any
	if err := json.Unmarshal(res.Entry, &e); err != nil {
		h.t.Fatal(err)
	}
	return e
}

// row chooses a server in the list, once it shows, as a click on it
// would, and returns the right side that shows it.
func (h *harness) row(name string) *serverDetail {
	h.t.Helper()
	sp := h.w.servers
	h.until("a row for "+name, func() bool { return sp.index(name) >= 0 })
	sp.list.Select(sp.index(name))
	if sp.detail == nil || sp.detail.name != name {
		h.t.Fatalf("choosing %s in the list did not show it", name)
	}
	return sp.detail
}

// state waits until a server shows the state, and returns its side.
func (h *harness) state(name string, state hostapi.State) *serverDetail {
	h.t.Helper()
	d := h.row(name)
	h.until(fmt.Sprintf("%s %s", name, state), func() bool { return d.state.Text == state.Label() })
	return d
}

// tab opens a tab of the server shown, as a click on it would.
func (h *harness) tab(d *serverDetail, i int) {
	h.t.Helper()
	if h.w.servers.detail != d {
		h.t.Fatalf("%s is not shown", d.name)
	}
	d.tabs.SelectIndex(i)
	h.q.pump()
}

// describe says what the window and the host show of a server, for a
// failure's message.
func (h *harness) describe(name string) string {
	var list []hostapi.ServerStatus
	err := h.call(func(ctx context.Context, c *client.Live) (err error) {
		list, err = c.Servers(ctx)
		return err
	})
	row := "no row"
	if i := h.w.servers.index(name); i >= 0 {
		row = "row " + summary(h.w.servers.items[i])
	}
	var live []string
	for _, s := range h.live.Snapshot().Servers {
		live = append(live, s.Name+":"+string(s.State))
	}
	var hs []string
	for _, s := range list {
		hs = append(hs, s.Name+":"+string(s.State))
	}
	return fmt.Sprintf("%s; live view %v; host %v %v", row, live, hs, err)
}

func (h *harness) describeAll() string {
	var out []string
	for _, s := range h.live.Snapshot().Servers {
		out = append(out, h.describe(s.Name))
	}
	if len(out) == 0 {
		return h.describe("")
	}
	return strings.Join(out, "; ")
}
