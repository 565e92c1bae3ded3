package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"

	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// wait bounds what a test waits for before it fails: long, because a
// loaded machine (CI runs the packages in parallel) can be slow, and a
// passing test never waits it out.
const wait = 30 * time.Second

func TestExposedName(t *testing.T) {
	if got := ExposedName("github", "create_issue"); got != "github__create_issue" {
		t.Errorf("got %q", got)
	}
	// Exactly 64 bytes stays as it is.
	tool := strings.Repeat("t", 64-len("srv__"))
	if got := ExposedName("srv", tool); got != "srv__"+tool {
		t.Errorf("a 64-byte name changed: %q", got)
	}
	long1 := strings.Repeat("x", 70) + "_one"
	long2 := strings.Repeat("x", 70) + "_two"
	a, b := ExposedName("srv", long1), ExposedName("srv", long2)
	if len(a) != MaxNameLen || len(b) != MaxNameLen {
		t.Errorf("shortened names are %d and %d bytes, want %d", len(a), len(b), MaxNameLen)
	}
	if a == b {
		t.Errorf("two long names shortened to the same %q", a)
	}
	if a != ExposedName("srv", long1) {
		t.Errorf("shortening is not stable")
	}
	if s, _, ok := SplitName(a); !ok || s != "srv" {
		t.Errorf("a shortened name does not split to its server: %q", a)
	}
	// A multi-byte character is not cut in half.
	u := ExposedName("srv", strings.Repeat("é", 40))
	if !utf8Valid(u) || len(u) > MaxNameLen {
		t.Errorf("shortened %q is not valid UTF-8 of at most 64 bytes", u)
	}
	if s, n, ok := SplitName("a-b__c__d"); !ok || s != "a-b" || n != "c__d" {
		t.Errorf("SplitName: %q %q %v", s, n, ok)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestFilter(t *testing.T) {
	if err := (Filter{Tools: []string{"["}}).Check(); err == nil {
		t.Error("a malformed pattern passed Check")
	}
	f := Filter{Servers: []string{"a", "b"}, Tools: []string{"a__read_*", "b__*"}}
	for _, c := range []struct {
		server, name string
		want         bool
	}{{"a", "read_file", true}, {"a", "write_file", false}, {"b", "anything", true}, {"c", "read_file", false}} {
		if got := f.SeesTool(c.server, c.name, ExposedName(c.server, c.name)); got != c.want {
			t.Errorf("%s/%s: %v, want %v", c.server, c.name, got, c.want)
		}
	}
	// A shortened name matches through its full form too.
	long := "read_" + strings.Repeat("z", 80)
	if !f.SeesTool("a", long, ExposedName("a", long)) {
		t.Error("a shortened name does not match through its full form")
	}
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
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

func textOf(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// TestConformance runs the same cases through the go-sdk's path and both
// lean paths, in both protocol eras.
func TestConformance(t *testing.T) {
	for _, mode := range modes {
		for _, era := range eras {
			t.Run(mode+"/"+era.name, func(t *testing.T) { conformance(t, mode, era.version) })
		}
	}
}

func conformance(t *testing.T, mode, version string) {
	stopped := running("off", "tool")
	stopped.State, stopped.UserStopped, stopped.Cached = hostapi.StateStopped, true, false
	h := newHarness(t, mode, running("alpha", "echo", "fail", "rpcerr", "slow", "progress", "rich"), stopped)
	// The server "off" was running once (its tools are known), then stopped.
	h.fake.update("off", func(s *Server) { s.State, s.UserStopped, s.Cached = hostapi.StateRunning, false, true })
	h.notify()
	h.fake.update("off", func(s *Server) { s.State, s.UserStopped, s.Cached = hostapi.StateStopped, true, false })
	h.notify()

	slowStarted, slowCancelled := make(chan struct{}), make(chan struct{})
	h.fake.setOnCall(func(ctx context.Context, server string, p *mcp.CallToolParams, progress func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
		switch p.Name {
		case "fail":
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "it broke"}}}, nil
		case "rpcerr":
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad arguments"}
		case "slow":
			close(slowStarted)
			<-ctx.Done()
			close(slowCancelled)
			return nil, ctx.Err()
		case "progress":
			for i := 1; i <= 2; i++ {
				progress(&mcp.ProgressNotificationParams{ProgressToken: "upstream", Progress: float64(i), Total: 2, Message: fmt.Sprint("step ", i)})
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
		case "rich":
			return &mcp.CallToolResult{
				Meta:              mcp.Meta{"x-server": "kept", mcp.MetaKeyServerInfo: map[string]any{"name": "upstream"}},
				Content:           []mcp.Content{&mcp.TextContent{Text: "rich"}},
				StructuredContent: map[string]any{"n": 1.0},
			}, nil
		}
		args, _ := json.Marshal(p.Arguments)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(args)}}}, nil
	})

	var progMu sync.Mutex
	var progress []*mcp.ProgressNotificationParams
	cs := h.connect(t, nil, version, &mcp.ClientOptions{
		ProgressNotificationHandler: func(ctx context.Context, r *mcp.ProgressNotificationClientRequest) {
			progMu.Lock()
			progress = append(progress, r.Params)
			progMu.Unlock()
		},
	})
	ctx := context.Background()
	if got, want := toolNames(t, cs), []string{"alpha__echo", "alpha__fail", "alpha__progress", "alpha__rich", "alpha__rpcerr", "alpha__slow"}; !slices.Equal(got, want) {
		t.Fatalf("tools %v, want %v", got, want)
	}

	// A call reaches the server under its own name, with the arguments and
	// the client's own _meta, never the protocol's.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo", Arguments: map[string]any{"q": "x"}, Meta: mcp.Meta{"x-trace": "t1"}})
	if err != nil || res.IsError || textOf(t, res) != `{"q":"x"}` {
		t.Fatalf("echo: %v %+v", err, res)
	}
	calls := h.fake.recorded()
	last := calls[len(calls)-1]
	if last.server != "alpha" || last.tool != "echo" || last.args != `{"q":"x"}` {
		t.Errorf("the server got %+v", last)
	}
	if last.meta["x-trace"] != "t1" {
		t.Errorf("the client's _meta was not forwarded: %v", last.meta)
	}
	for k := range last.meta {
		if strings.HasPrefix(k, protocolMetaPrefix) || k == "progressToken" {
			t.Errorf("the server got the hop's _meta key %q", k)
		}
	}

	// A tool error of the server is the client's tool error.
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__fail"}); err != nil || !res.IsError || textOf(t, res) != "it broke" {
		t.Errorf("fail: %v %+v", err, res)
	}
	// A JSON-RPC error of the server is passed on.
	var rpc *jsonrpc.Error
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__rpcerr"}); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || rpc.Message != "bad arguments" {
		t.Errorf("rpcerr: %v", err)
	}
	// An unknown tool is a JSON-RPC error, as the go-sdk's own.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope__x"}); !errors.As(err, &rpc) || rpc.Code != jsonrpc.CodeInvalidParams || !strings.Contains(rpc.Message, `unknown tool "nope__x"`) {
		t.Errorf("unknown tool: %v", err)
	}
	// A tool of a stopped server: a tool error naming it and its state.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "off__tool"})
	if err != nil || !res.IsError || !strings.Contains(textOf(t, res), `"off" is stopped`) {
		t.Errorf("stopped server: %v %+v", err, res)
	}
	// Structured content and the server's own _meta pass; its protocol
	// _meta does not.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__rich"})
	if err != nil {
		t.Fatal(err)
	}
	if sc, _ := res.StructuredContent.(map[string]any); sc["n"] != 1.0 || res.Meta["x-server"] != "kept" {
		t.Errorf("rich: %+v", res)
	}
	if si, ok := res.Meta[mcp.MetaKeyServerInfo].(map[string]any); ok && si["name"] != "switchboard" {
		t.Errorf("the upstream's serverInfo leaked: %v", si)
	}

	// Progress comes under the client's token, before the result.
	p := &mcp.CallToolParams{Name: "alpha__progress"}
	p.SetProgressToken("client-token")
	if res, err := cs.CallTool(ctx, p); err != nil || textOf(t, res) != "done" {
		t.Fatalf("progress: %v %+v", err, res)
	}
	// The go-sdk's client runs its notification handler on a goroutine of
	// its own: the notifications were written before the result, but may
	// be handled after it.
	var got []*mcp.ProgressNotificationParams
	testkit.Eventually(t, "two progress notifications", func() bool {
		progMu.Lock()
		got = append(got[:0], progress...)
		progMu.Unlock()
		return len(got) >= 2
	})
	if len(got) != 2 || got[0].ProgressToken != "client-token" || got[1].Progress != 2 || got[1].Message != "step 2" {
		t.Errorf("progress notifications: %d %+v", len(got), got)
	}

	// Cancellation reaches the server.
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "alpha__slow"})
		errc <- err
	}()
	select { // the call reaches the server before it is cancelled
	case <-slowStarted:
	case <-time.After(wait):
		t.Fatal("the slow call did not reach the server")
	}
	cancel()
	select {
	case <-slowCancelled:
	case <-time.After(wait):
		t.Fatal("the server's call was not cancelled")
	}
	if err := <-errc; err == nil {
		t.Error("a cancelled call returned no error")
	}
	// The session still works.
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "alpha__echo"}); err != nil || res.IsError {
		t.Errorf("after the cancellation: %v %+v", err, res)
	}
}

// TestConformanceWire compares what the go-sdk's path and the lean paths
// write for the same requests, as JSON values.
func TestConformanceWire(t *testing.T) {
	for _, era := range []bool{false, true} {
		name := map[bool]string{false: "legacy", true: "modern"}[era]
		t.Run(name, func(t *testing.T) {
			answers := map[string][]map[string]any{}
			var compared []string // the modes besides the go-sdk's
			for _, mode := range modes {
				if mode == "fds" && !handOffHere {
					continue // Unix-only; newHarness says so
				}
				if mode != "sdk" {
					compared = append(compared, mode)
				}
				h := newHarness(t, mode, running("alpha", "echo", "rpcerr", "rich"), Server{Name: "down", State: hostapi.StateFailed, LastError: "exit 1"})
				h.fake.setOnCall(func(ctx context.Context, server string, p *mcp.CallToolParams, _ func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
					switch p.Name {
					case "rpcerr":
						return nil, &jsonrpc.Error{Code: -32000, Message: "nope", Data: json.RawMessage(`{"why":1}`)}
					case "rich":
						return &mcp.CallToolResult{Meta: mcp.Meta{"b": 2.0, "a": "x", mcp.MetaKeyServerInfo: "up"},
							Content:           []mcp.Content{&mcp.TextContent{Text: "r"}, &mcp.ImageContent{Data: []byte{1, 2}, MIMEType: "image/png"}},
							StructuredContent: []any{1.0, "two"}, IsError: true}, nil
					}
					args, _ := json.Marshal(p.Arguments)
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(args)}}}, nil
				})
				c := h.rawClient(t, era)
				for _, params := range []map[string]any{
					{"name": "alpha__echo", "arguments": map[string]any{"k": []any{1, 2}}},
					{"name": "alpha__echo"},
					{"name": "alpha__echo", "arguments": nil},
					{"name": "alpha__rpcerr", "arguments": map[string]any{}},
					{"name": "alpha__rich", "_meta": map[string]any{"x": 1}},
					{"name": "down__thing"},
					{"name": "missing"},
				} {
					r := c.request("tools/call", params)
					delete(r, "id")
					answers[mode] = append(answers[mode], r)
				}
			}
			for i := range answers["sdk"] {
				want := answers["sdk"][i]
				for _, mode := range compared {
					if got := answers[mode][i]; !reflect.DeepEqual(got, want) {
						g, _ := json.Marshal(got)
						w, _ := json.Marshal(want)
						t.Errorf("request %d: %s wrote\n  %s\nthe go-sdk's path\n  %s", i, mode, g, w)
					}
				}
			}
		})
	}
}

// TestLeanCancelNoResponse: a call the client cancels gets no response on
// the lean paths (the protocol's SHOULD NOT).
func TestLeanCancelNoResponse(t *testing.T) {
	for _, mode := range []string{"raw"} {
		t.Run(mode, func(t *testing.T) {
			h := newHarness(t, mode, running("alpha", "slow"))
			started, done := make(chan struct{}), make(chan struct{})
			h.fake.setOnCall(func(ctx context.Context, _ string, _ *mcp.CallToolParams, _ func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
				close(started)
				<-ctx.Done()
				close(done)
				return nil, ctx.Err()
			})
			c := h.rawClient(t, false)
			c.send(map[string]any{"jsonrpc": "2.0", "id": "call-1", "method": "tools/call", "params": map[string]any{"name": "alpha__slow"}})
			select { // the call reaches the server before it is cancelled
			case <-started:
			case <-time.After(wait):
				t.Fatal("the call did not reach the server")
			}
			c.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": map[string]any{"requestId": "call-1"}})
			select {
			case <-done:
			case <-time.After(wait):
				t.Fatal("not cancelled")
			}
			if m := c.read(300 * time.Millisecond); m != nil {
				t.Errorf("a response after the cancellation: %v", m)
			}
		})
	}
}

func TestFiltersAndMapping(t *testing.T) {
	files := running("files", "read_file", "write_file", "delete_file")
	files.Filter = &config.Tools{Allow: []string{"*_file"}, Deny: []string{"delete_*"}}
	h := newHarness(t, "raw", files, running("git", "status", "log"))
	all := h.connect(t, nil, "", nil)
	if got, want := toolNames(t, all), []string{"files__read_file", "files__write_file", "git__log", "git__status"}; !slices.Equal(got, want) {
		t.Errorf("config filter: %v, want %v", got, want)
	}
	narrow := h.connect(t, &Filter{Servers: []string{"files", "git"}, Tools: []string{"*__read_*", "git__*"}}, "", nil)
	if got, want := toolNames(t, narrow), []string{"files__read_file", "git__log", "git__status"}; !slices.Equal(got, want) {
		t.Errorf("bridge filter: %v, want %v", got, want)
	}
	onlyGit := h.connect(t, &Filter{Servers: []string{"git"}}, "", nil)
	if got, want := toolNames(t, onlyGit), []string{"git__log", "git__status"}; !slices.Equal(got, want) {
		t.Errorf("--servers: %v, want %v", got, want)
	}
	// What a client does not see, it cannot call: the same answer as for
	// a tool that does not exist.
	var rpc *jsonrpc.Error
	for _, c := range []struct {
		cs   *mcp.ClientSession
		tool string
	}{{all, "files__delete_file"}, {narrow, "files__write_file"}, {onlyGit, "files__read_file"}} {
		if _, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: c.tool}); !errors.As(err, &rpc) || !strings.Contains(rpc.Message, "unknown tool") {
			t.Errorf("calling the hidden %s: %v", c.tool, err)
		}
	}
	m := h.g.Mapping()
	var hidden string
	for _, n := range m.Tools {
		if n.Exposed == "files__delete_file" {
			hidden = n.Hidden
		}
	}
	if !strings.Contains(hidden, "tools.allow/deny") {
		t.Errorf("the mapping does not say why delete_file is hidden: %+v", m.Tools)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	a := running("a")
	a.Resources = []*mcp.Resource{{URI: "file:///shared", Name: "s"}, {URI: "file:///only-a", Name: "a"}}
	a.Prompts = []*mcp.Prompt{{Name: "greet"}}
	b := running("b")
	b.Resources = []*mcp.Resource{{URI: "file:///shared", Name: "s"}, {URI: "file:///only-b", Name: "b"}}
	h := newHarness(t, "raw", a, b)
	cs := h.connect(t, nil, "", nil)
	ctx := context.Background()
	rs, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rs.Resources {
		uris = append(uris, r.URI)
	}
	slices.Sort(uris)
	if want := []string{"file:///only-a", "file:///only-b"}; !slices.Equal(uris, want) {
		t.Errorf("resources %v, want %v (the shared URI served by neither)", uris, want)
	}
	m := h.g.Mapping()
	if len(m.Conflicts) != 1 || m.Conflicts[0].URI != "file:///shared" || !slices.Equal(m.Conflicts[0].Servers, []string{"a", "b"}) {
		t.Errorf("conflicts: %+v", m.Conflicts)
	}
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///only-b"})
	if err != nil || len(rr.Contents) != 1 || rr.Contents[0].Text != "b file:///only-b" {
		t.Errorf("read: %v %+v", err, rr)
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "file:///shared"}); err == nil {
		t.Error("the conflicting URI was read")
	}
	ps, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(ps.Prompts) != 1 || ps.Prompts[0].Name != "a__greet" {
		t.Fatalf("prompts: %v %+v", err, ps)
	}
	gp, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "a__greet"})
	if err != nil || gp.Messages[0].Content.(*mcp.TextContent).Text != "a/greet" {
		t.Errorf("get prompt: %v %+v", err, gp)
	}
	// A server that restarts keeps its prompt listed; getting it says why
	// it fails.
	h.fake.update("a", func(s *Server) { s.State, s.Cached, s.LastError = hostapi.StateRestarting, false, "exit status 1" })
	h.notify()
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "a__greet"}); err == nil || !strings.Contains(err.Error(), `"a" is restarting`) {
		t.Errorf("prompt of a restarting server: %v", err)
	}
}

// TestFirstListWaits: the first tools/list of a session waits for a server
// that is starting for the first time; a later list does not.
func TestFirstListWaits(t *testing.T) {
	h := newHarness(t, "raw", running("up", "a"), Server{Name: "slow", State: hostapi.StateStarting, StartTimeout: 10 * time.Second})
	// (How long it waits: TestWaitStartedOnTheClock.)
	go func() {
		h.fake.set(running("slow", "b"))
		h.g.Notify()
	}()
	cs := h.connect(t, nil, "", nil)
	if got, want := toolNames(t, cs), []string{"slow__b", "up__a"}; !slices.Equal(got, want) {
		t.Errorf("first list %v, want %v", got, want)
	}

	// A server that never comes: the wait ends at its start timeout.
	h2 := newHarness(t, "raw", running("up", "a"), Server{Name: "stuck", State: hostapi.StateStarting, StartTimeout: 300 * time.Millisecond})
	cs2 := h2.connect(t, nil, "", nil)
	start := time.Now()
	if got := toolNames(t, cs2); !slices.Equal(got, []string{"up__a"}) {
		t.Errorf("list %v", got)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 5*time.Second {
		t.Errorf("the wait for a stuck server took %v, want about 300 ms", d)
	}
	// A filter that leaves the starting server out does not wait for it.
	h3 := newHarness(t, "raw", running("up", "a"), Server{Name: "stuck", State: hostapi.StateStarting, StartTimeout: wait})
	cs3 := h3.connect(t, &Filter{Servers: []string{"up"}}, "", nil)
	start = time.Now()
	toolNames(t, cs3)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("a client that does not see the starting server waited %v", d)
	}
}

// TestListChanged: a server's start, list change, restart and stop reach a
// connected client as list_changed; a restarting server's tools stay
// listed and a call gets a tool error naming its state.
func TestListChanged(t *testing.T) {
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			h := newHarness(t, "raw", running("a", "one"))
			changed := make(chan struct{}, 16)
			cs := h.connect(t, nil, era.version, &mcp.ClientOptions{
				ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			})
			if era.version == "" {
				// The 2026-07-28 protocol delivers list_changed to a
				// subscription, which the go-sdk's client opens itself.
				time.Sleep(200 * time.Millisecond)
			}
			toolNames(t, cs)
			wait := func(what string, want []string) {
				t.Helper()
				deadline := time.After(wait)
				for {
					select {
					case <-changed:
						if got := toolNames(t, cs); slices.Equal(got, want) {
							return
						}
					case <-deadline:
						t.Fatalf("%s: no list_changed with %v; list: %v", what, want, toolNames(t, cs))
					}
				}
			}
			h.fake.set(running("a", "one", "two"))
			h.g.Notify()
			wait("a new tool", []string{"a__one", "a__two"})
			h.fake.set(running("b", "x"))
			h.g.Notify()
			wait("a new server", []string{"a__one", "a__two", "b__x"})

			// Restarting: still listed, a call is a tool error.
			h.fake.update("a", func(s *Server) {
				s.State, s.Cached, s.Tools, s.LastError = hostapi.StateRestarting, false, nil, "exit status 2"
			})
			h.g.Notify()
			// A call says so once the gateway has the news; the tools stay.
			testkit.Eventually(t, "a call during a restart is a tool error", func() (bool, string) {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "a__one"})
				return err == nil && res.IsError && strings.Contains(textOf(t, res), `"a" is restarting (exit status 2)`), fmt.Sprintf("%v %+v", err, res)
			})
			if got := toolNames(t, cs); !slices.Contains(got, "a__one") {
				t.Errorf("a restarting server's tools went away: %v", got)
			}
			// Back: works again.
			h.fake.set(running("a", "one", "two"))
			h.g.Notify()
			testkit.Eventually(t, "a call works after the restart", func() (bool, string) {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "a__one"})
				return err == nil && !res.IsError, fmt.Sprintf("%v %+v", err, res)
			})
			// Failed: gone from the list, a call says so.
			h.fake.update("a", func(s *Server) {
				s.State, s.Cached, s.Tools, s.LastError = hostapi.StateFailed, false, nil, "exit status 3"
			})
			h.g.Notify()
			wait("a failed server", []string{"b__x"})
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "a__two"})
			if err != nil || !res.IsError || !strings.Contains(textOf(t, res), `"a" has failed (exit status 3)`) {
				t.Errorf("call to a failed server: %v %+v", err, res)
			}
		})
	}
}

func TestPreamble(t *testing.T) {
	h := newHarness(t, "raw", running("a", "x"))
	nc := dialT(t, h.sock)
	if _, _, err := Handshake(nc, Hello{Filter: Filter{Tools: []string{"["}}}); err == nil || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("a malformed pattern: %v", err)
	}
	nc = dialT(t, h.sock)
	_, w, err := Handshake(nc, Hello{Filter: Filter{Servers: []string{"a", "nosuch"}}})
	if err != nil || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0], `"nosuch"`) || strings.Contains(w.Warnings[0], "did you mean") {
		t.Errorf("warnings: %v %+v", err, w)
	}
	// A misspelled name: the warning guesses the server meant.
	gh := newHarness(t, "raw", running("github", "x"))
	_, w, err = Handshake(dialT(t, gh.sock), Hello{Filter: Filter{Servers: []string{"gihub"}}})
	if err != nil || len(w.Warnings) != 1 || !strings.Contains(w.Warnings[0], `no server is named "gihub": did you mean "github"?`) {
		t.Errorf("warnings of a misspelled server: %v %+v", err, w)
	}
	nc = dialT(t, h.sock)
	if _, err := nc.Write([]byte(`{"switchboard": {"version": 99}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	n, _ := nc.Read(buf)
	if !strings.Contains(string(buf[:n]), "preamble version") {
		t.Errorf("a newer preamble: %q", buf[:n])
	}
}

// TestSlowClient: a client that does not read is disconnected, and the
// others go on.
func TestSlowClient(t *testing.T) {
	f := newFake(running("a", "big"))
	f.setOnCall(func(context.Context, string, *mcp.CallToolParams, func(*mcp.ProgressNotificationParams)) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 64<<10)}}}, nil
	})
	g := New(Options{Backend: fakeRaw{f}, QueueBytes: 256 << 10})
	defer g.Close()
	h := &harness{g: g, fake: f}
	l, sock := listenT(t)
	h.sock = sock
	go func() { _ = g.Serve(l) }()
	c := h.rawClient(t, false)
	for i := 0; i < 200; i++ {
		c.send(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "tools/call", "params": map[string]any{"name": "a__big"}})
	}
	testkit.Eventually(t, "the client that does not read disconnected", func() (bool, string) {
		n := g.Clients()
		return n == 0, fmt.Sprintf("%d clients", n)
	})
	cs := h.connect(t, nil, "", nil)
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "a__big"}); err != nil {
		t.Errorf("another client: %v", err)
	}
}

// TestHandOff: a bridge that handed its stdin and stdout over learns how
// the session ended: the app closed stdin (no error), or the host stopped;
// and the bridge going away ends the session.
func TestHandOff(t *testing.T) {
	h := newHarness(t, "fds", running("a", "x"))
	w, r, end := h.handOff(t, nil)
	c := &rawClient{t: t, w: w, r: r, br: bufio.NewReader(r)}
	c.request("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "raw", "version": "1"}})
	if n := h.g.Clients(); n != 1 {
		t.Errorf("%d clients", n)
	}
	w.Close() // the app closes the bridge's stdin
	select {
	case err := <-end:
		if err != nil {
			t.Errorf("the end of a session the app closed: %v", err)
		}
	case <-time.After(testkit.Deadline):
		t.Fatal("the bridge was not told the session ended")
	}
	if c.read(2*time.Second) != nil {
		t.Error("a message after the end")
	}
	// The gateway forgets a client after the bridge has been told the
	// session ended: wait for that, so that the one client counted below
	// is the next session's, not this one lingering.
	testkit.Eventually(t, "the ended session's client gone", func() bool { return h.g.Clients() == 0 })

	// The bridge goes away: the app's stdout ends.
	_, r2, _ := h.handOff(t, nil)
	testkit.Eventually(t, "the gateway has 1 client", func() bool { return h.g.Clients() == 1 })
	for _, cc := range h.g.conns2() {
		_ = cc.nc.Close() // as if the bridge had been killed
	}
	_ = r2.SetReadDeadline(time.Now().Add(testkit.Deadline))
	if _, err := io.ReadAll(r2); err != nil {
		t.Errorf("the app's stdout did not end when the bridge went away: %v", err)
	}
	testkit.Eventually(t, "the killed bridge's client gone", func() bool { return h.g.Clients() == 0 })

	// The host stops: the bridge is told why.
	_, _, end3 := h.handOff(t, nil)
	testkit.Eventually(t, "the gateway has 1 client", func() bool { return h.g.Clients() == 1 })
	h.g.Close()
	select {
	case err := <-end3:
		if err == nil || !strings.Contains(err.Error(), "stopping") {
			t.Errorf("the end when the host stops: %v", err)
		}
	case <-time.After(testkit.Deadline):
		t.Fatal("the bridge was not told the host stopped")
	}
}
