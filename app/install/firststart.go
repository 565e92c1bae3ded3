package install

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/trust"
)

// FirstTool is one tool of a server's first start, for the user: its
// name, what it says, its annotations in words, and its definition's
// hash (trust.Hash, as the pins and servers.lock hold it).
type FirstTool struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Hints are the annotations the server declares, in words:
	// "read-only", "destructive" or "not destructive", "open world" or
	// "closed world", "idempotent"; empty when it declares none.
	Hints []string `json:"hints,omitempty"`
	Hash  string   `json:"hash"`
}

// FirstTools describes a first start's tools, sorted by name.
func FirstTools(tools []*mcp.Tool) ([]FirstTool, error) {
	var out []FirstTool
	for _, t := range tools {
		if t == nil {
			continue
		}
		h, err := trust.Hash(t)
		if err != nil {
			return nil, err
		}
		ft := FirstTool{Name: t.Name, Title: t.Title, Description: t.Description, Hash: h}
		if a := t.Annotations; a != nil {
			if a.ReadOnlyHint {
				ft.Hints = append(ft.Hints, "read-only")
			}
			if a.DestructiveHint != nil {
				ft.Hints = append(ft.Hints, map[bool]string{true: "destructive", false: "not destructive"}[*a.DestructiveHint])
			}
			if a.IdempotentHint {
				ft.Hints = append(ft.Hints, "idempotent")
			}
			if a.OpenWorldHint != nil {
				ft.Hints = append(ft.Hints, map[bool]string{true: "open world", false: "closed world"}[*a.OpenWorldHint])
			}
		}
		out = append(out, ft)
	}
	slices.SortFunc(out, func(a, b FirstTool) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// RecordTools writes the tools' hashes of local's first start into its
// servers.lock record (one Add wrote).
func RecordTools(stateDir, local string, tools []FirstTool, at time.Time) error {
	var missing bool
	err := UpdateLock(stateDir, func(l *Lock) {
		rec := l.Servers[local]
		if rec == nil {
			missing = true
			return
		}
		rec.Tools = map[string]string{}
		for _, t := range tools {
			rec.Tools[t.Name] = t.Hash
		}
		rec.ToolsAt = at.UTC().Truncate(time.Second)
	})
	if err == nil && missing {
		return fmt.Errorf("servers.lock has no record of %s", local)
	}
	return err
}
