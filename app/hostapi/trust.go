package hostapi

import (
	"fmt"
	"time"
)

// The pinned tool definitions (docs/trust.md; their methods are
// tools.review, tools.accept, tools.reject): a tool whose definition is
// new on a known server, or changed, is held (apps do not see it) until
// the user accepts it; a rejected one stays hidden until its definition
// changes again.

// ToolParams name one tool of a server, by the server's own name of it.
type ToolParams struct {
	Name string `json:"name"`
	Tool string `json:"tool"`
}

// ReviewResult is what tools.review returns: the held tools with the old
// and new definitions, their diffs and the scanner's flags, by server then
// tool; Enabled is false on a host that pins nothing (no pin store).
type ReviewResult struct {
	Enabled bool       `json:"enabled"`
	Held    []HeldTool `json:"held"`
}

// TrustState is a pinned tool's state (app/trust keeps them; the
// contract says them).
type TrustState string

// The states of a pinned tool.
const (
	// TrustTrusted: its definition is the pinned one; apps see it.
	TrustTrusted TrustState = "trusted"
	// TrustHeldNew: a tool that appeared on a server already known;
	// hidden until the user accepts it.
	TrustHeldNew TrustState = "held-new"
	// TrustHeldChanged: its definition differs from the pinned one;
	// hidden until the user accepts the change (or the server goes back
	// to the pinned definition).
	TrustHeldChanged TrustState = "held-changed"
	// TrustRejected: the user rejected its definition; hidden until the
	// server presents a different one, which is then held for review.
	TrustRejected TrustState = "rejected"
)

// Held reports whether a tool in state s awaits review.
func (s TrustState) Held() bool { return s == TrustHeldNew || s == TrustHeldChanged }

// TrustFlagKind is the kind of a scanner's finding (app/trust's
// constants).
type TrustFlagKind string

// TrustFlag is one finding of the definitions' scanner: evidence for the
// user, never a block.
type TrustFlag struct {
	Kind TrustFlagKind `json:"kind"`
	// Field is where: "name", "title", "description", "annotations.title",
	// or a string inside a schema by its JSON path
	// ("inputSchema.properties.path.description").
	Field string `json:"field"`
	// Offset and Length are the match's place in the field's text, in
	// bytes, for highlighting.
	Offset int `json:"offset"`
	Length int `json:"length"`
	// Match is the matched text; invisible characters are written U+XXXX
	// and tag characters decoded ("U+E0041.. = \"A..\"").
	Match string `json:"match"`
}

func (f TrustFlag) String() string {
	return fmt.Sprintf("%s in %s at %d: %s", f.Kind, f.Field, f.Offset, f.Match)
}

// DiffLine is one line of a definition's diff: Op is " " (the same), "-"
// (the pinned one's) or "+" (the presented one's).
type DiffLine struct {
	Op   string `json:"op"`
	Text string `json:"text"`
}

// HeldTool is a tool held for review, with what the review shows.
type HeldTool struct {
	Server string     `json:"server"`
	Tool   string     `json:"tool"`
	State  TrustState `json:"state"`
	// Old is the pinned definition, indented ("" for a new tool); New the
	// presented one.
	Old string `json:"old,omitempty"`
	New string `json:"new"`
	// DescriptionDiff is a line diff of the description's text;
	// SchemaDiff one of the rest of the definition (name, title, schemas,
	// annotations) as indented canonical JSON.
	DescriptionDiff []DiffLine `json:"descriptionDiff"`
	SchemaDiff      []DiffLine `json:"schemaDiff"`
	// Flags are the scanner's findings on the new definition.
	Flags []TrustFlag `json:"flags,omitempty"`
	Since time.Time   `json:"since"`
}
