//go:build linux

package host

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/api"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
	"github.com/switchboard-mcp/switchboard/secrets"
)

// The gateway's servers are this test binary re-executed in a role of its
// own (gwHelperEnv), chosen in init so that TestMain need not know them:
// gwmodern (a go-sdk server) and gwlegacy (hand-written, 2025-11-25).
const (
	gwHelperEnv = "SWITCHBOARD_GATEWAY_TEST_HELPER"
	gwDelayEnv  = "SWITCHBOARD_GATEWAY_TEST_DELAY" // sleep this long before serving
	gwGateEnv   = "SWITCHBOARD_GATEWAY_TEST_GATE"  // serve only once this file does not exist
)

func init() {
	role := os.Getenv(gwHelperEnv)
	if role == "" {
		return
	}
	if d, err := time.ParseDuration(os.Getenv(gwDelayEnv)); err == nil {
		time.Sleep(d)
	}
	if gate := os.Getenv(gwGateEnv); gate != "" {
		// The test holds this run back (not running, no session) for as
		// long as it needs, however slow the machine.
		testkit.Poll(24*time.Hour, func() bool { _, err := os.Stat(gate); return err != nil })
	}
	switch role {
	case "gwmodern":
		os.Exit(runGatewayModern())
	case "gwlegacy":
		os.Exit(runGatewayLegacy())
	}
	fmt.Fprintf(os.Stderr, "unknown gateway helper %q\n", role)
	os.Exit(99)
}

// runGatewayModern is a go-sdk server with the tools the gateway's tests
// call: echo, pid, meta (returns the _meta it got), progress (sends two
// progress notifications), sleep (until cancelled; says so on stderr),
// rpcerr (a JSON-RPC error), rich (structured content and _meta).
func runGatewayModern() int {
	s := mcp.NewServer(&mcp.Implementation{Name: "gw-modern", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	text := func(s string) *mcp.CallToolResult {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
	}
	s.AddTool(&mcp.Tool{Name: "echo", InputSchema: obj}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text("modern " + string(r.Params.Arguments)), nil
	})
	s.AddTool(&mcp.Tool{Name: "pid", InputSchema: obj}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return text(fmt.Sprint(os.Getpid())), nil
	})
	s.AddTool(&mcp.Tool{Name: "meta", InputSchema: obj}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		m := map[string]any{}
		for k, v := range r.Params.Meta {
			if k != "progressToken" {
				m[k] = v
			}
		}
		b, _ := json.Marshal(m)
		return text(string(b)), nil
	})
	s.AddTool(&mcp.Tool{Name: "progress", InputSchema: obj}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		tok := r.Params.GetProgressToken()
		for i := 1; tok != nil && i <= 2; i++ {
			_ = r.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 2, Message: fmt.Sprint("step ", i)})
		}
		return text(fmt.Sprintf("token %v", tok != nil)), nil
	})
	s.AddTool(&mcp.Tool{Name: "sleep", InputSchema: obj}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintln(os.Stderr, "gwmodern: sleeping") // the test waits for it (sleeps)
		select {
		case <-time.After(2 * time.Minute):
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "gwmodern: sleep cancelled")
			return nil, ctx.Err()
		}
		return text("slept"), nil
	})
	s.AddTool(&mcp.Tool{Name: "rpcerr", InputSchema: obj}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: -32001, Message: "modern says no", Data: json.RawMessage(`{"why":"test"}`)}
	})
	s.AddTool(&mcp.Tool{Name: "rich", InputSchema: obj}, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Meta: mcp.Meta{"z-kept": true}, Content: []mcp.Content{&mcp.TextContent{Text: "rich"}},
			StructuredContent: map[string]any{"answer": 42}, IsError: true}, nil
	})
	s.AddPrompt(&mcp.Prompt{Name: "hello"}, func(ctx context.Context, r *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello from modern"}}}}, nil
	})
	s.AddResource(&mcp.Resource{URI: "gw://modern/r", Name: "r"}, func(ctx context.Context, r *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: r.Params.URI, Text: "modern resource"}}}, nil
	})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "gwmodern:", err)
	}
	return 0
}

// runGatewayLegacy is a hand-written server of the 2025-11-25 era with
// echo, meta, progress and rpcerr.
func runGatewayLegacy() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	var mu sync.Mutex
	out := json.NewEncoder(os.Stdout)
	write := func(v any) {
		mu.Lock()
		defer mu.Unlock()
		_ = out.Encode(v)
	}
	tool := func(name string) map[string]any {
		return map[string]any{"name": name, "inputSchema": map[string]any{"type": "object"}}
	}
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
				Meta      map[string]any  `json:"_meta"`
			} `json:"params"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil || req.Method == "" || len(req.ID) == 0 {
			continue
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		content := func(s string) map[string]any {
			return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
		}
		switch req.Method {
		case "initialize":
			reply["result"] = map[string]any{"protocolVersion": "2025-11-25",
				"capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo":   map[string]any{"name": "gw-legacy", "version": "1"}}
		case "ping":
			reply["result"] = map[string]any{}
		case "tools/list":
			reply["result"] = map[string]any{"tools": []any{tool("echo"), tool("meta"), tool("progress"), tool("rpcerr")}}
		case "tools/call":
			switch req.Params.Name {
			case "echo":
				reply["result"] = content("legacy " + string(req.Params.Arguments))
			case "meta":
				m := map[string]any{}
				for k, v := range req.Params.Meta {
					if k != "progressToken" {
						m[k] = v
					}
				}
				b, _ := json.Marshal(m)
				reply["result"] = content(string(b))
			case "progress":
				tok, ok := req.Params.Meta["progressToken"]
				for i := 1; ok && i <= 2; i++ {
					write(map[string]any{"jsonrpc": "2.0", "method": "notifications/progress",
						"params": map[string]any{"progressToken": tok, "progress": i, "total": 2, "message": fmt.Sprint("step ", i)}})
				}
				reply["result"] = content(fmt.Sprintf("token %v", ok))
			case "rpcerr":
				reply["error"] = map[string]any{"code": -32002, "message": "legacy says no"}
			default:
				reply["error"] = map[string]any{"code": -32602, "message": "no tool " + req.Params.Name}
			}
		default:
			reply["error"] = map[string]any{"code": -32601, "message": "method not found: " + req.Method}
		}
		write(reply)
	}
	return 0
}

// gwEntry runs this binary as a gateway helper.
func gwEntry(role string, extra ...string) map[string]any {
	env := map[string]string{gwHelperEnv: role, "GORACE": "atexit_sleep_ms=0"}
	for i := 0; i+1 < len(extra); i += 2 {
		env[extra[i]] = extra[i+1]
	}
	return map[string]any{"command": testExe, "env": env, "stdinGrace": 1000, "termGrace": 1000}
}

// gwSocket is the gateway's socket of a test host.
// sleeps counts the calls of m's sleep tool that have reached the server
// (its stderr says "gwmodern: sleeping"): a test waits for one before it
// cancels, restarts or kills.
func (th *testHost) sleeps(t *testing.T) int {
	t.Helper()
	var logs hostapi.LogsResult
	th.must(t, hostapi.MethodServersLogs.Name, hostapi.NameParams{Name: "m"}, &logs)
	n := 0
	for _, l := range logs.Lines {
		if l == "gwmodern: sleeping" {
			n++
		}
	}
	return n
}

// awaitSleep waits until more than n sleep calls have reached m.
func (th *testHost) awaitSleep(t *testing.T, n int) {
	t.Helper()
	testkit.Eventually(t, "the sleep call reaches the server", func() bool { return th.sleeps(t) > n })
}

func (th *testHost) gwSocket() string { return api.GatewayPathFor(th.opts.SocketPath) }

// gwClient connects a go-sdk client to a test host's gateway (in the era
// of version; "": the newest), with a bridge's preamble.
func gwClient(t *testing.T, th *testHost, filter gateway.Filter, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	nc, err := api.DialGateway(context.Background(), th.gwSocket())
	if err != nil {
		t.Fatal(err)
	}
	br, _, err := gateway.Handshake(nc, gateway.Hello{Filter: filter, Client: "test"})
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "host-gateway-test", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.IOTransport{Reader: struct {
		io.Reader
		io.Closer
	}{br, nc}, Writer: nc}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func gwTools(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	return names
}

func gwText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func gwCall(t *testing.T, cs *mcp.ClientSession, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("calling %s: %v", tool, err)
	}
	return res
}

// setGatewayPath makes the hosts the test starts take calls on the lean
// path ("lean") or through the gateway's go-sdk server only ("sdk": its
// backend, a test double, hides the lean path; its calls still go through
// the call pipeline, pipeline.go).
func setGatewayPath(t *testing.T, path string) {
	t.Helper()
	t.Setenv("SHELL", "/bin/sh") // as runHost: no t.Parallel with a package variable set
	if path != "sdk" {
		return
	}
	testBackend = func(b gateway.RawBackend) gateway.Backend { return sdkOnly{b} }
	t.Cleanup(func() { testBackend = nil })
}

// sdkOnly is a backend without the lean path: the gateway's go-sdk path.
type sdkOnly struct{ gateway.Backend }

// gwHost runs a host with a modern and a legacy server, on the lean path
// or (sdk) with it off, and waits until the gateway lists both.
func gwHost(t *testing.T, path string) *testHost {
	t.Helper()
	setGatewayPath(t, path)
	th := runHost(t, nil, map[string]any{"m": gwEntry("gwmodern"), "l": gwEntry("gwlegacy")})
	th.waitRunning(t, "m")
	th.waitRunning(t, "l")
	return th
}

// TestGatewayConformance runs the same calls through the lean path (the
// host's raw relay) and the go-sdk's path, to a modern and a legacy
// server, from go-sdk clients of both eras, and checks that both paths
// answer alike.
func TestGatewayConformance(t *testing.T) {
	type answer struct {
		Text    string
		IsError bool
		Err     string
		Meta    mcp.Meta
		SC      any
	}
	answers := map[string][]answer{}
	for _, path := range []string{"lean", "sdk"} {
		t.Run(path, func(t *testing.T) {
			th := gwHost(t, path)
			for _, era := range []struct{ name, version string }{{"legacy", "2025-11-25"}, {"modern", ""}} {
				var progMu sync.Mutex
				var prog []*mcp.ProgressNotificationParams
				cs := gwClient(t, th, gateway.Filter{}, era.version, &mcp.ClientOptions{
					ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
						progMu.Lock()
						prog = append(prog, r.Params)
						progMu.Unlock()
					},
				})
				want := []string{"l__echo", "l__meta", "l__progress", "l__rpcerr", "m__echo", "m__meta", "m__pid", "m__progress", "m__rich", "m__rpcerr", "m__sleep"}
				if got := gwTools(t, cs); !slices.Equal(got, want) {
					t.Fatalf("%s: tools %v, want %v", era.name, got, want)
				}
				record := func(tool string, args any, meta mcp.Meta, progress bool) {
					p := &mcp.CallToolParams{Name: tool, Arguments: args, Meta: meta}
					if progress {
						p.SetProgressToken("client-" + tool)
					}
					ctx, cancel := context.WithTimeout(context.Background(), wait)
					defer cancel()
					res, err := cs.CallTool(ctx, p)
					a := answer{}
					if err != nil {
						a.Err = err.Error()
					} else {
						a.Text, a.IsError, a.SC = gwText(res), res.IsError, res.StructuredContent
						a.Meta = res.Meta
					}
					answers[path+"/"+era.name] = append(answers[path+"/"+era.name], a)
				}
				for _, s := range []string{"m", "l"} {
					record(s+"__echo", map[string]any{"x": []int{1, 2}}, nil, false)
					record(s+"__echo", nil, nil, false)
					record(s+"__meta", nil, mcp.Meta{"x-user": "kept"}, false)
					record(s+"__rpcerr", nil, nil, false)
					record(s+"__progress", nil, nil, true)
				}
				record("m__rich", nil, nil, false)
				record("nope__x", nil, nil, false)

				// Progress came under the client's tokens.
				testkit.Eventually(t, "four progress notifications", func() (bool, string) {
					progMu.Lock()
					defer progMu.Unlock()
					var toks []string
					for _, p := range prog {
						toks = append(toks, fmt.Sprint(p.ProgressToken))
					}
					return len(prog) == 4 && slices.Contains(toks, "client-m__progress") && slices.Contains(toks, "client-l__progress"), strings.Join(toks, ",")
				})

				// Cancellation reaches the server.
				ctx, cancel := context.WithCancel(context.Background())
				errc := make(chan error, 1)
				n := th.sleeps(t)
				go func() {
					_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "m__sleep"})
					errc <- err
				}()
				th.awaitSleep(t, n)
				cancel()
				if err := <-errc; err == nil {
					t.Error("a cancelled call returned no error")
				}
				var logs hostapi.LogsResult
				testkit.Eventually(t, "the server reports the cancelled sleep", func() (bool, string) {
					th.must(t, hostapi.MethodServersLogs.Name, hostapi.NameParams{Name: "m"}, &logs)
					n := 0
					for _, l := range logs.Lines {
						if l == "gwmodern: sleep cancelled" {
							n++
						}
					}
					return n >= map[string]int{"legacy": 1, "modern": 2}[era.name], strings.Join(logs.Lines, " | ")
				})

			}
		})
	}
	for key, want := range answers {
		if !strings.HasPrefix(key, "sdk/") {
			continue
		}
		got := answers["lean/"+strings.TrimPrefix(key, "sdk/")]
		if !reflect.DeepEqual(got, want) {
			g, _ := json.MarshalIndent(got, "", " ")
			w, _ := json.MarshalIndent(want, "", " ")
			t.Errorf("%s: the lean path answered\n%s\nthe go-sdk's path\n%s", key, g, w)
		}
	}
	// Spot checks of what both answered.
	a := answers["lean/modern"]
	if a[0].Text != `modern {"x":[1,2]}` || a[1].Text != "modern {}" {
		t.Errorf("modern echo: %+v %+v", a[0], a[1])
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(a[2].Text), &meta); err != nil || meta["x-user"] != "kept" || meta[mcp.MetaKeyProtocolVersion] != "2026-07-28" {
		t.Errorf("the modern server's _meta: %s", a[2].Text)
	}
	if !strings.Contains(a[3].Err, "modern says no") || !strings.Contains(a[8].Err, "legacy says no") {
		t.Errorf("JSON-RPC errors: %q %q", a[3].Err, a[8].Err)
	}
	if a[4].Text != "token true" || a[9].Text != "token true" {
		t.Errorf("progress tokens did not reach the servers: %q %q", a[4].Text, a[9].Text)
	}
	if rich := a[10]; rich.Text != "rich" || !rich.IsError || rich.Meta["z-kept"] != true || fmt.Sprint(rich.SC) != "map[answer:42]" {
		t.Errorf("rich: %+v", rich)
	}
	if !strings.Contains(a[11].Err, `unknown tool "nope__x"`) {
		t.Errorf("unknown tool: %q", a[11].Err)
	}
}

// TestGatewayRestart: a server restarted or killed during a call gives a
// tool error that names it; the next call works again, on the new process.
func TestGatewayRestart(t *testing.T) {
	th := runHost(t, nil, map[string]any{"m": gwEntry("gwmodern")})
	st := th.waitRunning(t, "m")
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	if got := gwText(gwCall(t, cs, "m__pid", nil)); got != fmt.Sprint(st.PID) {
		t.Fatalf("pid %s, want %d", got, st.PID)
	}

	// A restart during a call.
	res := make(chan *mcp.CallToolResult, 1)
	n := th.sleeps(t)
	go func() { res <- gwCall(t, cs, "m__sleep", nil) }()
	th.awaitSleep(t, n)
	th.must(t, hostapi.MethodServersRestart.Name, hostapi.NameParams{Name: "m"}, nil)
	select {
	case r := <-res:
		if !r.IsError || !strings.Contains(gwText(r), `Switchboard server "m"`) || !strings.Contains(gwText(r), "stopped while") {
			t.Errorf("the call during the restart: %+v %q", r, gwText(r))
		}
	case <-time.After(wait):
		t.Fatal("the call during a restart hangs")
	}
	// While it restarts, a call is a tool error naming its state; once it
	// runs again, the call works.
	st2 := th.waitServer(t, "m", "running again with a new pid", func(s hostapi.ServerStatus) bool {
		r := gwCall(t, cs, "m__pid", nil)
		if r.IsError && !strings.Contains(gwText(r), `"m"`) {
			t.Errorf("a call during the restart: %q", gwText(r))
		}
		return s.State == "running" && s.PID != st.PID && !r.IsError
	})
	if got := gwText(gwCall(t, cs, "m__pid", nil)); got != fmt.Sprint(st2.PID) {
		t.Errorf("after the restart: pid %s, want %d", got, st2.PID)
	}

	// Killed during a call.
	n = th.sleeps(t)
	go func() { res <- gwCall(t, cs, "m__sleep", nil) }()
	th.awaitSleep(t, n)
	if err := syscall.Kill(st2.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-res:
		if !r.IsError || !strings.Contains(gwText(r), `"m" stopped while tool "sleep" was running`) {
			t.Errorf("the call when the server was killed: %q", gwText(r))
		}
	case <-time.After(wait):
		t.Fatal("the call hangs after the server was killed")
	}
	th.waitServer(t, "m", "running again", func(s hostapi.ServerStatus) bool { return s.State == "running" && s.PID != st2.PID })
	testkit.Eventually(t, "calls work again", func() (bool, string) {
		r := gwCall(t, cs, "m__echo", nil)
		return !r.IsError, gwText(r)
	})

	// Stopped by the user: not listed, a call says how to start it.
	th.must(t, hostapi.MethodServersStop.Name, hostapi.NameParams{Name: "m", Wait: true}, nil)
	r := gwCall(t, cs, "m__echo", nil)
	if !r.IsError || !strings.Contains(gwText(r), "switchboard servers start m") {
		t.Errorf("a call to the stopped server: %q", gwText(r))
	}
	if got := gwTools(t, cs); len(got) != 0 {
		t.Errorf("a stopped server's tools are listed: %v", got)
	}
}

// TestGatewayCallTimeout: callTimeout bounds a relayed call.
func TestGatewayCallTimeout(t *testing.T) {
	th := runHost(t, nil, map[string]any{"m": with(gwEntry("gwmodern"), "callTimeout", 300)})
	th.waitRunning(t, "m")
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	start := time.Now()
	r := gwCall(t, cs, "m__sleep", nil)
	if !r.IsError || !strings.Contains(gwText(r), "300ms") || !strings.Contains(gwText(r), "callTimeout") {
		t.Errorf("a call over callTimeout: %q", gwText(r))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("it took %v", d)
	}
	var logs hostapi.LogsResult
	testkit.Eventually(t, "the server got the cancellation", func() (bool, string) {
		th.must(t, hostapi.MethodServersLogs.Name, hostapi.NameParams{Name: "m"}, &logs)
		return slices.Contains(logs.Lines, "gwmodern: sleep cancelled"), strings.Join(logs.Lines, " | ")
	})

	if r := gwCall(t, cs, "m__echo", nil); r.IsError {
		t.Errorf("after the timeout: %q", gwText(r))
	}
}

// TestGatewayFirstList: a client that lists at once sees a server that
// takes a while to start; the config's tool filter and the mapping.
func TestGatewayFirstList(t *testing.T) {
	slow := gwEntry("gwmodern", gwDelayEnv, "700ms")
	filtered := with(gwEntry("gwlegacy"), "tools", map[string]any{"deny": []string{"rpc*"}})
	th := runHost(t, nil, map[string]any{"slow": slow, "f": filtered})
	cs := gwClient(t, th, gateway.Filter{}, "", nil)
	got := gwTools(t, cs)
	if !slices.Contains(got, "slow__echo") || !slices.Contains(got, "f__echo") || slices.Contains(got, "f__rpcerr") {
		t.Errorf("the first list: %v", got)
	}
	var info hostapi.GatewayInfo
	th.must(t, hostapi.MethodGatewayTools.Name, nil, &info)
	if info.Socket != th.gwSocket() {
		t.Errorf("socket %q", info.Socket)
	}
	found := false
	for _, n := range info.Mapping.Tools {
		if n.Exposed == "f__rpcerr" && strings.Contains(n.Hidden, "allow/deny") {
			found = true
		}
	}
	if !found {
		t.Errorf("the mapping does not show the hidden tool: %+v", info.Mapping.Tools)
	}
	// A bridge's filter.
	narrow := gwClient(t, th, gateway.Filter{Servers: []string{"f"}, Tools: []string{"*__echo"}}, "", nil)
	if got := gwTools(t, narrow); !slices.Equal(got, []string{"f__echo"}) {
		t.Errorf("a filtered client: %v", got)
	}
	// Prompts and resources of the modern server.
	ctx := context.Background()
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "slow__hello"})
	if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "hello from modern" {
		t.Errorf("prompt: %v", err)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "gw://modern/r"})
	if err != nil || rr.Contents[0].Text != "modern resource" {
		t.Errorf("resource: %v", err)
	}
}

// TestGatewayListChanged: a server's own list_changed reaches a client of
// the gateway, in both eras.
func TestGatewayListChanged(t *testing.T) {
	th := runHost(t, nil, map[string]any{"old": helperEntry("modern", "old"), "new": helperEntry("modern", "new")})
	th.waitRunning(t, "old")
	th.waitRunning(t, "new")
	for _, c := range []struct{ server, version string }{{"old", "2025-11-25"}, {"new", ""}} {
		changed := make(chan struct{}, 8)
		cs := gwClient(t, th, gateway.Filter{Servers: []string{c.server}}, c.version, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
		})
		grown := c.server + "__grown"
		if got := gwTools(t, cs); slices.Contains(got, grown) {
			t.Fatalf("grown before grow: %v", got)
		}
		if c.version == "" {
			time.Sleep(300 * time.Millisecond) // the 2026-07-28 client subscribes on its own
		}
		gwCall(t, cs, c.server+"__grow", nil)
		deadline := time.After(wait)
	waiting:
		for {
			select {
			case <-changed:
				if slices.Contains(gwTools(t, cs), grown) {
					break waiting
				}
			case <-deadline:
				t.Fatalf("%q: no list_changed with %s: %v", c.version, grown, gwTools(t, cs))
			}
		}
	}
}

// TestGatewayKeepsOnDemandHostAlive: an on-demand host does not go idle
// while a bridge is connected.
func TestGatewayKeepsOnDemandHostAlive(t *testing.T) {
	root, err := os.MkdirTemp("", "sbo")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	t.Setenv("SHELL", "/bin/sh")
	o := Options{ConfigPath: filepath.Join(root, "config.json"), RuntimeDir: filepath.Join(root, "run"),
		SocketPath: filepath.Join(root, "run", "host.sock"), OnDemand: true, IdleTimeout: 500 * time.Millisecond, Version: "test"}
	ready := make(chan struct{})
	o.Ready = func() { close(ready) }
	done := make(chan error, 1)
	go func() { done <- Run(context.Background(), o) }()
	<-ready
	nc, err := api.DialGateway(context.Background(), api.GatewayPathFor(o.SocketPath))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := gateway.Handshake(nc, gateway.Hello{}); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		t.Fatalf("the host went idle with a bridge connected: %v", err)
	case <-time.After(1500 * time.Millisecond):
	}
	nc.Close()
	select {
	case <-done:
	case <-time.After(wait):
		t.Fatal("the host did not go idle after the bridge left")
	}
}

// TestGatewayHTTP: the HTTP endpoint with the host's keyring token, for
// the go-sdk's client and the MCP Inspector's CLI.
func TestGatewayHTTP(t *testing.T) {
	store := secrets.NewMemoryStore(filepath.Join(t.TempDir(), "secrets.json"))
	t.Setenv("SHELL", "/bin/sh")
	th := runHostWith(t, store, map[string]any{"m": gwEntry("gwmodern")}, func(o *Options) { o.GatewayHTTPPort = -1 })
	th.waitRunning(t, "m")
	var info hostapi.GatewayInfo
	th.must(t, hostapi.MethodGatewayTools.Name, nil, &info)
	if !strings.HasPrefix(info.HTTP, "http://127.0.0.1:") || !strings.HasSuffix(info.HTTP, gateway.HTTPPath) {
		t.Fatalf("HTTP endpoint %q", info.HTTP)
	}
	token, err := gateway.Token(store)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", info.HTTP, strings.NewReader("{}"))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %v %v", resp, err)
	}

	inspector := testkit.NpmServer(t, "mcp-inspector")
	run := func(args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, inspector, append([]string{"--cli", info.HTTP, "--transport", "http",
			"--header", "Authorization: Bearer " + token}, args...)...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("inspector %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	if out := run("--method", "tools/list"); !strings.Contains(out, `"m__echo"`) {
		t.Errorf("inspector tools/list:\n%s", out)
	}
	if out := run("--method", "tools/call", "--tool-name", "m__echo", "--tool-arg", "word=hi"); !strings.Contains(out, `modern {\"word\":\"hi\"}`) {
		t.Errorf("inspector tools/call:\n%s", out)
	}
}
