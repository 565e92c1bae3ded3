package host

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/engine"
	"github.com/switchboard-mcp/switchboard/engine/supervisor"
)

// OnceOptions are how StartOnce starts a server.
type OnceOptions struct {
	Path    string                // the PATH servers get (the login shell's)
	Secrets engine.SecretResolver // the keyring
	// Version is the client's version in the handshake.
	Version string
	// Timeout bounds the start and the listing (0: 2 minutes).
	Timeout time.Duration
}

// StartOnce starts the command entry s, named name, once as the host
// would start it (its spec, its sandbox through the shim with its
// private temp, Switchboard's own state protected), lists its tools and
// stops it. It is the first start of a server added from a registry
// when no host runs (docs/registry.md, "First start"); with a host, the
// host starts it. A failure says what the server wrote to stderr.
func StartOnce(ctx context.Context, s *config.Server, name string, o OnceOptions) ([]*mcp.Tool, error) {
	if s.IsRemote() {
		return nil, fmt.Errorf("%s is a remote: it is reached when a host runs ('switchboard serve')", name)
	}
	spec, err := specOf(s, name)
	if err != nil {
		return nil, err
	}
	if o.Timeout == 0 {
		o.Timeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	changes := make(chan supervisor.Status, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "switchboard", Version: o.Version}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	sup := supervisor.New(supervisor.Options{Spec: spec, Client: client,
		Start: engine.StartOptions{Path: o.Path, Secrets: o.Secrets, Shim: shimPath(), SandboxTemp: config.SandboxTempRoot(), Protected: config.OwnState()},
		OnChange: func(st supervisor.Status, _ *mcp.ClientSession) {
			select {
			case changes <- st:
			default:
			}
		}})
	sup.Start()
	defer func() { <-sup.Stop() }()
	failed := func(st supervisor.Status) error {
		msg := st.LastError
		if len(st.Stderr) > 0 {
			tail := st.Stderr
			if len(tail) > 10 {
				tail = tail[len(tail)-10:]
			}
			msg += "; its stderr: " + strings.Join(tail, " | ")
		}
		return fmt.Errorf("%s did not start: %s", name, msg)
	}
	for {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%s did not answer within %v", name, o.Timeout)
		case st := <-changes:
			switch st.State {
			case supervisor.Running:
				cs := sup.Session()
				if cs == nil {
					return nil, fmt.Errorf("%s stopped right after it started", name)
				}
				var tools []*mcp.Tool
				params := &mcp.ListToolsParams{}
				for range 100 { // pages
					res, err := cs.ListTools(ctx, params)
					if err != nil {
						return nil, fmt.Errorf("listing %s's tools: %w", name, err)
					}
					tools = append(tools, res.Tools...)
					if res.NextCursor == "" {
						break
					}
					params.Cursor = res.NextCursor
				}
				return tools, nil
			case supervisor.Failed, supervisor.Backoff, supervisor.WaitingSecret:
				return nil, failed(st)
			}
		}
	}
}
