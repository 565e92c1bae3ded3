// Package sandbox is the confinement of one server process (issue 16,
// docs/sandbox.md): a [Policy] says what the process may read, write and
// reach on the network; each OS turns it into its own mechanism (Linux:
// Landlock, applied by an exec shim just before the server's execve;
// macOS: a Seatbelt profile run through sandbox-exec; Windows: an
// AppContainer or a restricted token, with the job object's limits).
//
// The package knows nothing of the app: the app's config turns an entry's
// "sandbox" (a preset or an object) into a Policy, and the engine adds the
// runtime's own needs (the resolved executable, the node or python
// install, the npx and uv caches, the dynamic loader's paths, /dev/null,
// the locale and CA files) before it is enforced.
package sandbox

import "github.com/switchboard-mcp/switchboard/internal/serverspec"

// NetMode is what a sandboxed server may do on the network.
type NetMode = serverspec.NetMode

// The network modes (see serverspec).
const (
	NetNone     = serverspec.NetNone
	NetOutbound = serverspec.NetOutbound
	NetAllow    = serverspec.NetAllow
)

// Policy is what one server process may do (see serverspec).
type Policy = serverspec.Policy
