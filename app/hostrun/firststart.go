package hostrun

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/switchboard-mcp/switchboard/app/config"
	"github.com/switchboard-mcp/switchboard/app/host"
)

// OnceOptions are host.OnceOptions.
type OnceOptions = host.OnceOptions

// StartOnce is host.StartOnce: a server started once as the host would
// start it, for its first start when no host runs (the command line
// reaches the host's code only through this package).
func StartOnce(ctx context.Context, s *config.Server, name string, o OnceOptions) ([]*mcp.Tool, error) {
	return host.StartOnce(ctx, s, name, o)
}
