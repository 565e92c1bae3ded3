package trust

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// FieldText returns the text of a definition's field as [Scan] names it
// ("description", "inputSchema.properties.path.description", ...), from a
// stored definition (canonical or indented JSON, as [Held] carries it):
// what a flag's Offset and Length point into, for highlighting. "" if the
// definition does not decode or has no such field.
func FieldText(def, field string) string {
	if def == "" {
		return ""
	}
	var t mcp.Tool
	if json.Unmarshal([]byte(def), &t) != nil {
		return ""
	}
	for _, ft := range fieldTexts(&t) {
		if ft.field == field {
			return ft.text
		}
	}
	return ""
}
