//go:build linux

package host

// The servers of these tests are helper processes: this test binary
// re-executed, its role chosen by helperEnv in TestMain. The engine passes
// only allowlisted variables to a server, so a test puts helperEnv (and the
// helper's other settings) in the entry's env.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/engine/sandbox"
	"github.com/switchboard-mcp/switchboard/engine/sandbox/sandboxtest"
	"github.com/switchboard-mcp/switchboard/internal/testkit"
)

const (
	helperEnv = "SWITCHBOARD_HOST_TEST_HELPER" // the helper's role: modern, legacy
	markEnv   = "SWITCHBOARD_HOST_TEST_MARK"   // a value echo reports (which entry started it)
)

var testExe string

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == sandbox.ShimArg { // the host's shim is this binary
		os.Exit(sandbox.ShimMain(os.Args[2:]))
	}
	sandboxtest.Main()
	testkit.HelperMain(&testExe, helperEnv, map[string]func() int{"modern": runModern, "legacy": runLegacy})
	os.Exit(testkit.Run(m))
}

// runModern is a go-sdk server (the 2026-07-28 era). It starts with one
// prompt and one resource (so that it advertises both lists) and the tools
// echo ("echo: MESSAGE MARK"), sleep ({"ms": n}: sleeps, or until the call
// is cancelled), and grow, grow-prompt and grow-resource, which add the
// tool "grown", the prompt "grown" and the resource "grown://r" at run
// time: the SDK then sends that list's list_changed notification.
func runModern() int {
	fmt.Fprintln(os.Stderr, "modern helper: serving", os.Getenv(markEnv))
	s := mcp.NewServer(&mcp.Implementation{Name: "host-test-modern", Version: "1"}, nil)
	type echoArgs struct {
		Message string `json:"message"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo: " + a.Message + " " + os.Getenv(markEnv)}}}, nil, nil
	})
	type sleepArgs struct {
		MS int `json:"ms"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, req *mcp.CallToolRequest, a sleepArgs) (*mcp.CallToolResult, any, error) {
		select {
		case <-time.After(time.Duration(a.MS) * time.Millisecond):
		case <-ctx.Done():
			fmt.Fprintln(os.Stderr, "modern helper: sleep cancelled")
			return nil, nil, ctx.Err()
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slept"}}}, nil, nil
	})
	promptHandler := func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hi"}}}}, nil
	}
	resourceHandler := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, Text: "x"}}}, nil
	}
	s.AddPrompt(&mcp.Prompt{Name: "p0"}, promptHandler)
	s.AddResource(&mcp.Resource{URI: "r0://x", Name: "r0"}, resourceHandler)
	// Each grow tool changes one list, so that each list's notification
	// is needed for its change to be seen.
	grow := func(name string, add func()) {
		var once sync.Once
		mcp.AddTool(s, &mcp.Tool{Name: name}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			once.Do(add)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grew"}}}, nil, nil
		})
	}
	grow("grow", func() {
		mcp.AddTool(s, &mcp.Tool{Name: "grown"}, func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "grown"}}}, nil, nil
		})
	})
	grow("grow-prompt", func() { s.AddPrompt(&mcp.Prompt{Name: "grown"}, promptHandler) })
	grow("grow-resource", func() { s.AddResource(&mcp.Resource{URI: "grown://r", Name: "grown"}, resourceHandler) })
	err := s.Run(context.Background(), &mcp.StdioTransport{})
	if err != nil && !errors.Is(err, io.EOF) {
		fmt.Fprintln(os.Stderr, "modern helper:", err)
	}
	return 0
}

// runLegacy is a hand-written JSON-RPC server of the 2025-11-25 era (it
// answers server/discover with -32601). It has the tools echo and grow;
// grow adds the tool "grown" and sends notifications/tools/list_changed.
func runLegacy() int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	tools := []any{
		map[string]any{"name": "echo", "inputSchema": map[string]any{"type": "object"}},
		map[string]any{"name": "grow", "inputSchema": map[string]any{"type": "object"}},
	}
	grown := false
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Message string `json:"message"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil || req.Method == "" || len(req.ID) == 0 {
			continue // a response, a notification or junk
		}
		reply := map[string]any{"jsonrpc": "2.0", "id": req.ID}
		var notify bool
		switch req.Method {
		case "initialize":
			reply["result"] = map[string]any{
				"protocolVersion": "2025-11-25",
				"capabilities":    map[string]any{"tools": map[string]any{"listChanged": true}},
				"serverInfo":      map[string]any{"name": "host-test-legacy", "version": "1"},
			}
		case "ping":
			reply["result"] = map[string]any{}
		case "tools/list":
			reply["result"] = map[string]any{"tools": tools}
		case "tools/call":
			text := "echo: " + req.Params.Arguments.Message + " " + os.Getenv(markEnv)
			if req.Params.Name == "grow" {
				text = "grew"
				if !grown {
					grown, notify = true, true
					tools = append(tools, map[string]any{"name": "grown", "inputSchema": map[string]any{"type": "object"}})
				}
			}
			reply["result"] = map[string]any{"content": []any{map[string]any{"type": "text", "text": text}}}
		default:
			reply["error"] = map[string]any{"code": -32601, "message": "method not found: " + req.Method}
		}
		if err := out.Encode(reply); err != nil {
			return 1
		}
		if notify {
			if err := out.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}); err != nil {
				return 1
			}
		}
	}
	return 0
}
