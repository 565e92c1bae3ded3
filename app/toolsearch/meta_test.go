package toolsearch

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The meta-tools as a real go-sdk server serves them and a real go-sdk
// client sees and calls them: find_tools answers with the definitions
// found by an Index.
func TestMetaToolsThroughGoSDK(t *testing.T) {
	docs := obviousDocs()
	defs := map[string]*mcp.Tool{}
	for _, d := range docs {
		defs[d.Name] = &mcp.Tool{Name: d.Name, Description: d.Description, InputSchema: map[string]any{"type": "object"}}
	}
	ix := New(docs)
	srv := mcp.NewServer(&mcp.Implementation{Name: "search", Version: "1"}, nil)
	srv.AddTool(FindTools(), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a FindToolsArgs
		if err := json.Unmarshal(r.Params.Arguments, &a); err != nil {
			return nil, err
		}
		var found []*mcp.Tool
		for _, h := range ix.Search(a.Query, a.Clamp()) {
			found = append(found, defs[h.Name])
		}
		return Answer(found), nil
	})
	srv.AddTool(CallTool(), func(_ context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var a CallToolArgs
		if err := json.Unmarshal(r.Params.Arguments, &a); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "called " + a.Name + " " + string(a.Arguments)}}}, nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "app", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 2 || list.Tools[0].Name != CallToolName || list.Tools[1].Name != FindToolsName {
		t.Fatalf("tools/list = %v, want call_tool and find_tools", list.Tools)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: FindToolsName, Arguments: map[string]any{"query": "open a GitHub issue", "limit": 2}})
	if err != nil || res.IsError {
		t.Fatalf("find_tools: %v %v", res, err)
	}
	var got struct{ Tools []*mcp.Tool }
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tools) == 0 || len(got.Tools) > 2 || got.Tools[0].Name != "github__create_issue" || got.Tools[0].InputSchema == nil {
		t.Fatalf("find_tools answered %+v, want github__create_issue first with its schema, at most 2", got.Tools)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: CallToolName, Arguments: map[string]any{"name": got.Tools[0].Name, "arguments": map[string]any{"title": "x"}}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `called github__create_issue {"title":"x"}`) {
		t.Fatalf("call_tool: %v %v", res, err)
	}
	// Server.AddTool does not validate arguments: a find_tools without a
	// query finds nothing and says how to go on.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: FindToolsName, Arguments: map[string]any{"limit": 2}})
	if err != nil || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "No tool matches") {
		t.Fatalf("find_tools without a query: %v %v", res, err)
	}
}

func TestFindToolsArgsClamp(t *testing.T) {
	for in, want := range map[int]int{0: DefaultLimit, -3: DefaultLimit, 1: 1, 7: 7, MaxLimit: MaxLimit, 500: MaxLimit} {
		if got := (FindToolsArgs{Limit: in}).Clamp(); got != want {
			t.Errorf("Clamp(%d) = %d, want %d", in, got, want)
		}
	}
}

func TestAnswerNoneSaysWhatToDo(t *testing.T) {
	res := Answer(nil)
	if res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Search again") {
		t.Fatalf("Answer(nil) = %+v", res)
	}
}
