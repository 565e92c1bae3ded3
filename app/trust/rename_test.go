package trust

import (
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRename: a renamed server keeps its pins (a held tool stays held
// under the new name, it is not trusted as first seen), on disk too; an
// unknown server is no change.
func TestRename(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pins.json")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Observe("a", ModePin, []*mcp.Tool{tool("x", "one")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Observe("a", ModePin, []*mcp.Tool{tool("x", "two")}); err != nil {
		t.Fatal(err)
	}
	if err := s.Rename("a", "b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Rename("nope", "c"); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if s2.Pins("a") != nil || s2.Pins("c") != nil {
		t.Errorf("pins left under the old name, or made for an unknown one: %v %v", s2.Pins("a"), s2.Pins("c"))
	}
	v, err := s2.Observe("b", ModePin, []*mcp.Tool{tool("x", "two")})
	if err != nil {
		t.Fatal(err)
	}
	if v.FirstSeen || v.Visible("x") {
		t.Errorf("after the rename the changed tool is visible: %+v", v)
	}
	if got := s2.HeldCounts(); got["b"] != 1 {
		t.Errorf("held counts %v", got)
	}
}
