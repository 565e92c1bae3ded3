package tokens

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The expected counts and ids are those of OpenAI's tiktoken (Python) for
// o200k_base: "hello world" encodes as [24912, 2375] there, and the
// sentence as 14 tokens.
func TestCountKnownStrings(t *testing.T) {
	for _, c := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"hello  world", 3},
		{"hello   world", 3},
		{"supercalifragilistic", 6},
		{"We know what we are, but know not what we may be.", 14},
		{"<|endoftext|>", 7},
	} {
		if got := Count(c.text); got != c.want {
			t.Errorf("Count(%q) = %d, want %d", c.text, got, c.want)
		}
	}
}

func TestEncodeMatchesTiktokenIDs(t *testing.T) {
	ids, _, err := get().Encode("hello world")
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != 24912 || ids[1] != 2375 {
		t.Fatalf("o200k_base ids of %q = %v, want [24912 2375] (tiktoken's)", "hello world", ids)
	}
}

func TestCountGrowsWithText(t *testing.T) {
	one := Count("Read the complete contents of a file as text. ")
	ten := Count(strings.Repeat("Read the complete contents of a file as text. ", 10))
	if one < 5 || ten < 9*one || ten > 11*one {
		t.Fatalf("one sentence %d tokens, ten of them %d: want about 10x", one, ten)
	}
}

func TestCountInvalidUTF8(t *testing.T) {
	if n := Count("ok \xff\xfe done"); n < 3 {
		t.Fatalf("Count of text with invalid UTF-8 = %d, want every part counted", n)
	}
}

func TestCountConcurrent(t *testing.T) {
	want := Count("We know what we are, but know not what we may be.")
	var wg sync.WaitGroup
	errs := make(chan int, 8)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if n := Count("We know what we are, but know not what we may be."); n != want {
					errs <- n
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for n := range errs {
		t.Fatalf("concurrent Count = %d, want %d", n, want)
	}
}

func TestToolsCostIsTheListResultJSON(t *testing.T) {
	tools := []*mcp.Tool{
		{Name: "files__read_file", Description: "Read the complete contents of a file as text.",
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
		{Name: "git__status", Description: "Show the working tree status.", InputSchema: map[string]any{"type": "object"}},
	}
	b, err := json.Marshal(&mcp.ListToolsResult{Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	got := ToolsCost(tools)
	if got.Bytes != len(b) || got.Tokens != Count(string(b)) {
		t.Fatalf("ToolsCost = %+v, want {%d %d} (the result's JSON %s)", got, len(b), Count(string(b)), b)
	}
	one := ToolsCost(tools[:1])
	if one.Tokens >= got.Tokens || one.Bytes >= got.Bytes {
		t.Fatalf("one tool costs %+v, two %+v: want less", one, got)
	}
	if !strings.Contains(string(b), `"tools":[`) {
		t.Fatalf("the list result's JSON is not the wire form: %s", b)
	}
	// A tool that cannot be serialized is left out, not a zero for all.
	bad := &mcp.Tool{Name: "bad", InputSchema: map[string]any{"type": "object", "x": make(chan int)}}
	if c := ToolsCost(append([]*mcp.Tool{bad}, tools...)); c != got {
		t.Fatalf("with an unserializable tool: %+v, want %+v", c, got)
	}
	// An empty list is the result's fixed fields only: {"ttlMs":0,"cacheScope":"","tools":[]}
	// with go-sdk v1.8.0.
	if c := ToolsCost(nil); c.Tokens == 0 || c.Tokens > 20 || c.Tokens >= one.Tokens {
		t.Fatalf("an empty list costs %+v, want the few tokens of the result's fixed fields", c)
	}
}

func TestPromptsCost(t *testing.T) {
	ps := []*mcp.Prompt{{Name: "review", Description: "Review the staged changes", Arguments: []*mcp.PromptArgument{{Name: "focus"}}}}
	b, _ := json.Marshal(&mcp.ListPromptsResult{Prompts: ps})
	if got := PromptsCost(ps); got.Bytes != len(b) || got.Tokens != Count(string(b)) {
		t.Fatalf("PromptsCost = %+v, want {%d %d}", got, len(b), Count(string(b)))
	}
}

func TestCostAdd(t *testing.T) {
	if got := (Cost{1, 2}).Add(Cost{10, 20}); got != (Cost{11, 22}) {
		t.Fatalf("Add = %+v", got)
	}
}

func BenchmarkCountToolList(b *testing.B) {
	s := strings.Repeat(`{"name":"github__create_issue","description":"Create a new issue in a GitHub repository","inputSchema":{"type":"object","properties":{"owner":{"type":"string"}}}},`, 100)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Count(s)
	}
}
