// Package trust pins the definitions of the tools a server lists, so that a
// server cannot change what a tool says it does after the user trusted it
// (a "rug pull"), and scans each definition for signs of tool poisoning.
//
// It is the self-contained core of issue 14 section 2: a definition hash
// ([Hash]), a per-user pin store ([Store]: [Store.Observe], [Store.Accept],
// [Store.Reject], [Store.Review]) and a scanner ([Scan]). It knows nothing of
// the gateway, the host or the UI; docs/trust.md says what the wiring does
// with it.
package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pinned is the part of a tool's definition that is pinned: every field
// that reaches the model or says what the tool does. Left out: _meta
// (transport and implementation data, which servers may vary per list) and
// icons (pictures for a UI, not read by the model).
type pinned struct {
	Name         string               `json:"name"`
	Title        string               `json:"title,omitempty"`
	Description  string               `json:"description,omitempty"`
	InputSchema  any                  `json:"inputSchema,omitempty"`
	OutputSchema any                  `json:"outputSchema,omitempty"`
	Annotations  *mcp.ToolAnnotations `json:"annotations,omitempty"`
}

// Canonical returns the canonical JSON of a tool's pinned definition: the
// object {name, title, description, inputSchema, outputSchema, annotations}
// (empty ones left out), every object's keys sorted by their UTF-8 bytes,
// no whitespace, strings escaped as encoding/json does without HTML
// escaping, and numbers as the server wrote them (1 and 1.0 differ). Key
// order and whitespace in what the server sent do not change it.
func Canonical(t *mcp.Tool) ([]byte, error) {
	if t == nil {
		return nil, fmt.Errorf("no tool")
	}
	raw, err := json.Marshal(pinned{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations})
	if err != nil {
		return nil, fmt.Errorf("tool %q: its definition is not JSON: %w", t.Name, err)
	}
	return canonicalJSON(raw)
}

// canonicalJSON re-encodes a JSON text canonically (see [Canonical]).
func canonicalJSON(raw []byte) ([]byte, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return encode(v, "")
}

// encode writes v with sorted keys (encoding/json sorts map keys) and no
// HTML escaping; indent "" is compact.
func encode(v any, indent string) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if indent != "" {
		e.SetIndent("", indent)
	}
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Hash is "sha256:" and the hex SHA-256 of [Canonical].
func Hash(t *mcp.Tool) (string, error) {
	c, err := Canonical(t)
	if err != nil {
		return "", err
	}
	return hashOf(c), nil
}

func hashOf(canonical []byte) string {
	sum := sha256.Sum256(canonical)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// indented returns a canonical definition indented by two spaces, for
// review and diffs.
func indented(canonical []byte) string {
	d := json.NewDecoder(bytes.NewReader(canonical))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return string(canonical)
	}
	b, err := encode(v, "  ")
	if err != nil {
		return string(canonical)
	}
	return string(b)
}
