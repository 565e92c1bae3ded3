package trust

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func benchTools(n int) []*mcp.Tool {
	tools := make([]*mcp.Tool, n)
	for i := range tools {
		tools[i] = &mcp.Tool{Name: fmt.Sprintf("tool_%d", i), Description: strings.Repeat("Reads a file and returns its text. ", 8),
			InputSchema: map[string]any{"type": "object", "properties": map[string]any{
				"path": map[string]any{"type": "string", "description": "The file's path."},
				"head": map[string]any{"type": "number", "description": "Only the first N lines."}}, "required": []any{"path"}}}
	}
	return tools
}

// BenchmarkObserveUnchanged is the cost of observing a known server's
// unchanged list of 50 tools (hashing each; no write): what the gateway
// pays per changed list.
func BenchmarkObserveUnchanged(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "pins.json"))
	if err != nil {
		b.Fatal(err)
	}
	tools := benchTools(50)
	if _, err := s.Observe("a", ModePin, tools); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.Observe("a", ModePin, tools); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan is the scanner on one ordinary definition with 100 other
// tool names.
func BenchmarkScan(b *testing.B) {
	tl := benchTools(1)[0]
	var others []string
	for i := 0; i < 100; i++ {
		others = append(others, fmt.Sprintf("other_tool_%d", i))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if f := Scan(tl, others); len(f) != 0 {
			b.Fatal(f)
		}
	}
}
