package install

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/hostapi"
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

// Starter is a running host as a first start needs it: start a server,
// read its status and its tools. The CLI gives the host's API; the host
// gives its own manager.
type Starter interface {
	Start(ctx context.Context, name string) error
	Status(ctx context.Context, name string) (hostapi.ServerStatus, error)
	Tools(ctx context.Context, name string) ([]*mcp.Tool, error)
}

// StartInHost is the first start of name in a running host: started,
// waited on until it runs (at most limit), and its tools listed (the
// host's gateway pins them as it first sees them). A failure says what
// the server wrote to stderr.
func StartInHost(ctx context.Context, s Starter, name string, limit time.Duration) ([]*mcp.Tool, error) {
	if err := s.Start(ctx, name); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(limit)
	var runningSince time.Time
	for {
		st, err := s.Status(ctx, name)
		if err != nil {
			return nil, err
		}
		switch st.State {
		case hostapi.StateRunning:
			// The host lists its tools just after the handshake: a
			// count of 0 is waited on for a while (a server may have
			// none).
			if runningSince.IsZero() {
				runningSince = time.Now()
			}
			if st.Tools > 0 || time.Since(runningSince) > 10*time.Second {
				return s.Tools(ctx, name)
			}
		case hostapi.StateFailed, hostapi.StateRestarting, hostapi.StateWaiting, hostapi.StateInvalid:
			msg := st.LastError
			if len(st.Stderr) > 0 {
				msg += "; its stderr: " + strings.Join(st.Stderr[max(0, len(st.Stderr)-10):], " | ")
			}
			return nil, fmt.Errorf("%s did not start: %s", name, msg)
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s was not running within %v ('switchboard status')", name, limit)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// SandboxLine says a sandbox in words: its preset, then what it grants.
func SandboxLine(sb *config.Sandbox) string {
	p := sb.Preset
	if p == "" {
		p = config.SandboxStrict
	}
	parts := []string{p}
	if len(sb.Write) > 0 {
		parts = append(parts, "read and write "+strings.Join(sb.Write, ", "))
	}
	if len(sb.Read) > 0 {
		parts = append(parts, "read "+strings.Join(sb.Read, ", "))
	}
	return strings.Join(parts, "; ")
}
