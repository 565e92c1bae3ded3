package hostapi

import "github.com/switchboard-mcp/switchboard/app/trust"

// The pinned tool definitions' methods (docs/trust.md): a tool whose
// definition is new on a known server, or changed, is held (apps do not
// see it) until the user accepts it; a rejected one stays hidden until its
// definition changes again.
const (
	MethodToolsReview = "tools.review" // NameParams (Name; "" for every server) -> ReviewResult
	MethodToolsAccept = "tools.accept" // ToolParams -> none
	MethodToolsReject = "tools.reject" // ToolParams -> none
)

// ToolParams name one tool of a server, by the server's own name of it.
type ToolParams struct {
	Name string `json:"name"`
	Tool string `json:"tool"`
}

// ReviewResult is what tools.review returns: the held tools with the old
// and new definitions, their diffs and the scanner's flags, by server then
// tool; Enabled is false on a host that pins nothing (no pin store).
type ReviewResult struct {
	Enabled bool         `json:"enabled"`
	Held    []trust.Held `json:"held"`
}
