//go:build linux

package host

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/gateway"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

// foundTools is find_tools' answer: the tools' definitions, best first.
func foundTools(t *testing.T, cs *mcp.ClientSession, query string, limit int) []*mcp.Tool {
	t.Helper()
	args := map[string]any{"query": query}
	if limit > 0 {
		args["limit"] = limit
	}
	res := gwCall(t, cs, "find_tools", args)
	if res.IsError {
		t.Fatalf("find_tools %q: a tool error: %s", query, gwText(res))
	}
	text := gwText(res)
	if strings.HasPrefix(text, "No tool matches") {
		return nil
	}
	var a struct {
		Tools []*mcp.Tool `json:"tools"`
	}
	if err := json.Unmarshal([]byte(text), &a); err != nil {
		t.Fatalf("find_tools %q: the answer is not {\"tools\":[...]}: %v\n%s", query, err, text)
	}
	return a.Tools
}

func toolNamesOf(ts []*mcp.Tool) []string {
	var out []string
	for _, tl := range ts {
		out = append(out, tl.Name)
	}
	return out
}

// callErr is a call's outcome as text: the JSON-RPC error, or the tool
// result (error flag and text), for comparing a direct call with one
// through call_tool.
func callErr(cs *mcp.ClientSession, name string, args any) string {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "error: " + err.Error()
	}
	return fmt.Sprintf("result (isError %v): %s", res.IsError, gwText(res))
}

// TestGatewaySearchMode: a bridge in search mode (--tool-mode search), on
// the lean path and on the go-sdk's, against server-everything and a
// go-sdk server: its tools/list is find_tools and call_tool; find_tools
// finds server-everything's get-sum for a request in plain words, with
// its full definition under its exposed name; call_tool runs it, and the
// activity log records the real tool and server; a tool the entry denies
// is neither found nor callable (the same error as a direct call), nor is
// a name that does not exist; the filter's servers bound the search;
// progress and cancellation go through call_tool; a direct call of an
// exposed name still works; the found tools join the connection's
// tools/list with list_changed; prompts are as in the normal mode.
func TestGatewaySearchMode(t *testing.T) {
	everything := testkit.NpmServer(t, "mcp-server-everything")
	for _, path := range []string{"lean", "sdk"} {
		t.Run(path, func(t *testing.T) {
			setGatewayPath(t, path)
			ev := map[string]any{"command": everything, "stdinGrace": 2000, "termGrace": 1000,
				"tools": map[string]any{"deny": []string{"echo"}}}
			th := runHostWith(t, nil, map[string]any{"ev": ev, "m": gwEntry("gwmodern")}, func(o *Options) {
				o.StateDir = filepath.Join(filepath.Dir(o.RuntimeDir), "state")
			})
			th.waitRunning(t, "ev")
			th.waitRunning(t, "m")
			search := gateway.Filter{ToolMode: "search"}
			for _, era := range []struct{ name, version string }{{"legacy", "2025-11-25"}, {"modern", ""}} {
				t.Run(era.name, func(t *testing.T) { searchMode(t, th, search, era.version) })
			}

			// The activity log has the real tools, never the meta-tools.
			var q hostapi.ActivityQueryResult
			th.must(t, hostapi.MethodActivityQuery.Name, hostapi.ActivityQueryParams{}, &q)
			var sums int
			for _, r := range q.Records {
				if r.Target == "find_tools" || r.Target == "call_tool" {
					t.Errorf("the activity log records a meta-tool: %+v", r)
				}
				if r.Server == "ev" && r.Target == "get-sum" && r.Outcome == "ok" {
					sums++
				}
			}
			if sums < 2 { // one call_tool per era (and the direct calls)
				t.Errorf("the activity log has %d ok calls of ev's get-sum, want at least 2: %+v", sums, q.Records)
			}
		})
	}
}

func searchMode(t *testing.T, th *testHost, search gateway.Filter, version string) {
	var mu sync.Mutex
	var progress []*mcp.ProgressNotificationParams
	changed := make(chan struct{}, 16)
	cs := gwClient(t, th, search, version, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params)
			mu.Unlock()
		},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	normal := gwClient(t, th, gateway.Filter{}, version, nil)

	if got := gwTools(t, cs); !slices.Equal(got, []string{"call_tool", "find_tools"}) {
		t.Fatalf("search mode lists %v, want [call_tool find_tools]", got)
	}
	all := gwTools(t, normal)
	if !slices.Contains(all, "ev__get-sum") || slices.Contains(all, "ev__echo") {
		t.Fatalf("the normal mode lists %v", all)
	}

	// find_tools: a request in plain words.
	found := foundTools(t, cs, "what is the sum of two numbers", 0)
	i := slices.IndexFunc(found, func(tl *mcp.Tool) bool { return tl.Name == "ev__get-sum" })
	if i < 0 {
		t.Fatalf("find_tools did not find ev__get-sum: %v", toolNamesOf(found))
	}
	if len(found) > 5 {
		t.Errorf("find_tools returned %d tools, the default limit is 5", len(found))
	}
	def := found[i]
	props, _ := def.InputSchema.(map[string]any)["properties"].(map[string]any)
	if def.Description == "" || props["a"] == nil || props["b"] == nil {
		t.Errorf("ev__get-sum's definition is not whole: %+v", def)
	}
	if got := foundTools(t, cs, "sum of two numbers", 1); len(got) != 1 {
		t.Errorf("limit 1 returned %v", toolNamesOf(got))
	}

	// call_tool runs it.
	res := gwCall(t, cs, "call_tool", map[string]any{"name": "ev__get-sum", "arguments": map[string]any{"a": 2, "b": 3}})
	if res.IsError || !strings.Contains(gwText(res), "5") {
		t.Errorf("call_tool ev__get-sum: %v %q", res.IsError, gwText(res))
	}
	// A direct call of the exposed name works too.
	if res := gwCall(t, cs, "ev__get-sum", map[string]any{"a": 4, "b": 5}); res.IsError || !strings.Contains(gwText(res), "9") {
		t.Errorf("a direct call in search mode: %v %q", res.IsError, gwText(res))
	}

	// The denied tool: not found, not callable, the direct call's error.
	if got := toolNamesOf(foundTools(t, cs, "echo back the input string", 20)); slices.Contains(got, "ev__echo") {
		t.Errorf("find_tools found the denied ev__echo: %v", got)
	}
	for _, name := range []string{"ev__echo", "ev__no-such-tool", "nothing"} {
		direct := callErr(cs, name, map[string]any{"message": "x"})
		through := callErr(cs, "call_tool", map[string]any{"name": name, "arguments": map[string]any{"message": "x"}})
		if !strings.HasPrefix(direct, "error: ") || !strings.Contains(direct, "unknown tool") || through != direct {
			t.Errorf("%s: through call_tool %q, directly %q (want the same unknown tool error)", name, through, direct)
		}
	}
	// call_tool without a name, or with arguments that are not an object.
	if got := callErr(cs, "call_tool", map[string]any{"arguments": map[string]any{}}); !strings.Contains(got, "isError true") || !strings.Contains(got, "needs the name") {
		t.Errorf("call_tool without a name: %s", got)
	}
	if got := callErr(cs, "call_tool", map[string]any{"name": "ev__get-sum", "arguments": "a=2"}); !strings.Contains(got, "isError true") || !strings.Contains(got, "must be an object") {
		t.Errorf("call_tool with a string for arguments: %s", got)
	}

	// Progress through call_tool, under the client's token.
	p := &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "m__progress"}}
	p.SetProgressToken("through-call-tool")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	res, err := cs.CallTool(ctx, p)
	cancel()
	if err != nil || gwText(res) != "token true" {
		t.Errorf("call_tool m__progress: %v %+v", err, res)
	}
	testkit.Eventually(t, "two progress notifications through call_tool", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, pr := range progress {
			if pr.ProgressToken == "through-call-tool" {
				n++
			}
		}
		return n == 2, fmt.Sprint(len(progress))
	})

	// Cancellation through call_tool reaches the server.
	n := th.sleeps(t)
	ctx, cancel = context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "call_tool", Arguments: map[string]any{"name": "m__sleep"}})
		errc <- err
	}()
	th.awaitSleep(t, n)
	cancel()
	if err := <-errc; err == nil {
		t.Error("a cancelled call_tool returned no error")
	}
	testkit.Eventually(t, "the server reports the cancelled sleep", func() bool {
		var logs hostapi.LogsResult
		th.must(t, hostapi.MethodServersLogs.Name, hostapi.NameParams{Name: "m"}, &logs)
		c := 0
		for _, l := range logs.Lines {
			if l == "gwmodern: sleep cancelled" {
				c++
			}
		}
		return c > 0
	})

	// The found tools joined this connection's list (and only its).
	deadline := time.After(wait)
	for !slices.Contains(gwTools(t, cs), "ev__get-sum") {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("the found tools are not in the list: %v", gwTools(t, cs))
		}
	}
	if got := gwTools(t, cs); !slices.Contains(got, "find_tools") || !slices.Contains(got, "call_tool") || len(got) >= len(all)+2 {
		t.Errorf("after find_tools, search mode lists %v", got)
	}
	other := gwClient(t, th, search, version, nil)
	if got := gwTools(t, other); !slices.Equal(got, []string{"call_tool", "find_tools"}) {
		t.Errorf("another search-mode connection lists %v", got)
	}

	// A filter's servers bound the search.
	onlyM := gwClient(t, th, gateway.Filter{Servers: []string{"m"}, ToolMode: "search"}, version, nil)
	if got := toolNamesOf(foundTools(t, onlyM, "what is the sum of two numbers", 20)); slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "ev__") }) {
		t.Errorf("a client that sees only m found %v", got)
	}
	if got := callErr(onlyM, "call_tool", map[string]any{"name": "ev__get-sum", "arguments": map[string]any{"a": 1, "b": 1}}); !strings.Contains(got, "unknown tool") {
		t.Errorf("a client that sees only m called ev__get-sum: %s", got)
	}

	// Prompts are those of the normal mode.
	lp := func(c *mcp.ClientSession) []string {
		res, err := c.ListPrompts(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range res.Prompts {
			out = append(out, p.Name)
		}
		slices.Sort(out)
		return out
	}
	if a, b := lp(cs), lp(normal); !slices.Equal(a, b) || len(a) == 0 {
		t.Errorf("prompts in search mode %v, in the normal mode %v", a, b)
	}
}
