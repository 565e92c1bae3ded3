package toolsearch

import (
	"context"
	"encoding/json"
	"slices"
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

// The older form (query alone) keeps its default of 5 and full
// definitions; intent or keywords make the answer compact, 5 to 8.
func TestFindToolsArgsForms(t *testing.T) {
	for _, c := range []struct {
		a       FindToolsArgs
		compact bool
		limit   int
		q       Query
	}{
		{FindToolsArgs{Query: "read a file"}, false, DefaultLimit, Query{Intent: "read a file"}},
		{FindToolsArgs{Intent: "Read a file."}, true, CompactMax, Query{Intent: "Read a file."}},
		{FindToolsArgs{Keywords: []string{"read", " ", "file"}}, true, CompactMax, Query{Keywords: []string{"read", "file"}}},
		{FindToolsArgs{Intent: "Read a file.", Query: "open notes", Limit: 3}, true, 3, Query{Intent: "Read a file.", Keywords: []string{"open notes"}}},
	} {
		if c.a.Compact() != c.compact || c.a.Clamp() != c.limit {
			t.Errorf("%+v: compact %v limit %d, want %v %d", c.a, c.a.Compact(), c.a.Clamp(), c.compact, c.limit)
		}
		if got := c.a.SearchQuery(); got.Intent != c.q.Intent || !slices.Equal(got.Keywords, c.q.Keywords) {
			t.Errorf("%+v: searches %+v, want %+v", c.a, got, c.q)
		}
	}
	if !(FindToolsArgs{Keywords: []string{" "}}).Empty() || (FindToolsArgs{Describe: []string{"x"}}).Empty() {
		t.Error("Empty")
	}
}

// Cut keeps 5, and the 6th to 8th while close to the 5th's score; a
// limit or the older form keeps all.
func TestFindToolsCut(t *testing.T) {
	hits := func(scores ...float64) []Hit {
		var out []Hit
		for i, s := range scores {
			out = append(out, Hit{Doc: i, Score: s})
		}
		return out
	}
	compact := FindToolsArgs{Intent: "x"}
	for _, c := range []struct {
		scores []float64
		want   int
	}{
		{[]float64{9, 8, 7}, 3},
		{[]float64{9, 8, 7, 6, 5, 1, 0.5, 0.4}, 5},
		{[]float64{9, 8, 7, 6, 5, 4.5, 4, 3.9}, 7},
		{[]float64{9, 8, 7, 6, 5, 5, 5, 5}, 8},
	} {
		if got := compact.Cut(hits(c.scores...)); got != c.want {
			t.Errorf("Cut(%v) = %d, want %d", c.scores, got, c.want)
		}
	}
	all := hits(9, 8, 7, 6, 5, 1, 0.5, 0.4)
	if n := (FindToolsArgs{Intent: "x", Limit: 8}).Cut(all); n != 8 {
		t.Errorf("with a limit: %d", n)
	}
	if n := (FindToolsArgs{Query: "x"}).Cut(all[:5]); n != 5 {
		t.Errorf("the older form: %d", n)
	}
}

// A compact answer: each tool's name, the first sentence of its
// description (cut at a word), its arguments required first and the
// others marked "?"; much smaller than the full definitions.
func TestCompactAnswer(t *testing.T) {
	long := strings.Repeat("word ", 60)
	tools := []*mcp.Tool{
		{Name: "gh__create_issue", Description: "Create a new issue. Use it when asked.\nMore lines.", InputSchema: map[string]any{
			"type": "object", "required": []any{"repo", "owner", "title"},
			"properties": map[string]any{"owner": map[string]any{"type": "string", "description": "The owner " + long}, "repo": map[string]any{"type": "string"},
				"title": map[string]any{"type": "string"}, "labels": map[string]any{"type": "array"}, "body": map[string]any{"type": "string"}}}},
		{Name: "x__long", Description: long, InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{}}}`)},
		{Name: "x__titled", Title: "A title only", InputSchema: map[string]any{"type": "object"}},
	}
	res := CompactAnswer(tools)
	text := res.Content[0].(*mcp.TextContent).Text
	var got struct {
		Tools []struct {
			Name, Description string
			Arguments         []string
		}
	}
	if err := json.Unmarshal([]byte(text), &got); err != nil || len(got.Tools) != 3 {
		t.Fatalf("%v %s", err, text)
	}
	if g := got.Tools[0]; g.Name != "gh__create_issue" || g.Description != "Create a new issue." ||
		!slices.Equal(g.Arguments, []string{"repo", "owner", "title", "body?", "labels?"}) {
		t.Errorf("compact: %+v", g)
	}
	if d := got.Tools[1].Description; len(d) > maxCompactDesc+3 || !strings.HasSuffix(d, "word...") || !slices.Equal(got.Tools[1].Arguments, []string{"a?"}) {
		t.Errorf("a long description: %q %v", d, got.Tools[1].Arguments)
	}
	if got.Tools[2].Description != "A title only" || got.Tools[2].Arguments != nil {
		t.Errorf("title only: %+v", got.Tools[2])
	}
	full := Answer(tools).Content[0].(*mcp.TextContent).Text
	if len(text)*2 > len(full) {
		t.Errorf("compact %d bytes, full %d: not much smaller", len(text), len(full))
	}
	if res := CompactAnswer(nil); !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "Search again") {
		t.Errorf("no tools: %+v", res)
	}
}

// Keywords find what the intent's words alone do not, and each keyword
// is expanded and paired on its own: the pair of two keywords side by
// side is no phrase.
func TestFindWithKeywords(t *testing.T) {
	ix := New(obviousDocs())
	if got := names(ix.Find(Query{Intent: "Keep this for me."}, 3, nil)); slices.Contains(got, "files__write_file") {
		t.Fatalf("the intent alone found %v: the test needs a miss", got)
	}
	if got := names(ix.Find(Query{Intent: "Keep this for me.", Keywords: []string{"save", "store", "notes"}}, 1, nil)); !slices.Equal(got, []string{"files__write_file"}) {
		t.Errorf("with keywords: %v", got)
	}
	if got := names(ix.Find(Query{Keywords: []string{"pull request", "open"}}, 1, nil)); !slices.Equal(got, []string{"github__create_pull_request"}) {
		t.Errorf("a keyword phrase: %v", got)
	}
	a := ix.Find(Query{Keywords: []string{"new issue"}}, 8, nil)
	b := ix.Find(Query{Keywords: []string{"new", "issue"}}, 8, nil)
	if len(a) == 0 || len(b) == 0 || a[0].Name != b[0].Name || !(a[0].Score > b[0].Score) {
		t.Errorf("a phrase in one keyword should score above the same words as two: %v %v", a, b)
	}
	if got := ix.Search("open an issue on GitHub", 8); !slices.EqualFunc(got, ix.Find(Query{Intent: "open an issue on GitHub"}, 8, nil), func(x, y Hit) bool { return x == y }) {
		t.Errorf("Search is not Find of the intent: %v", got)
	}
}

// keywords and describe as arrays, or as one string of comma-separated
// words (a model may send either).
func TestFindToolsArgsDecode(t *testing.T) {
	for in, want := range map[string][]string{
		`{"keywords": ["read", "file"]}`: {"read", "file"},
		`{"keywords": "read, file ,"}`:   {"read", "file"},
		`{"keywords": "pull request"}`:   {"pull request"},
	} {
		var a FindToolsArgs
		if err := json.Unmarshal([]byte(in), &a); err != nil || !slices.Equal(a.Keywords, want) {
			t.Errorf("%s: %q %v, want %q", in, a.Keywords, err, want)
		}
	}
	var a FindToolsArgs
	if err := json.Unmarshal([]byte(`{"describe": "a__b"}`), &a); err != nil || !slices.Equal(a.Describe, []string{"a__b"}) {
		t.Errorf("describe as a string: %q %v", a.Describe, err)
	}
	if err := json.Unmarshal([]byte(`{"keywords": 3}`), &a); err == nil {
		t.Error("keywords 3 decoded")
	}
}
